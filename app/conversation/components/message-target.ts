// ?message_id= on a conversation's address (search hits, notifications): the server pages the
// messages around it (model.loadMessages `around`) and the view marks it. Without JavaScript the
// browser's autofocus brings it into view; with JavaScript it is scrolled to and focused here.
import { useEffect } from "react";
import { useLocation } from "@remix-run/react";

/** The id of the message the address points at, when the page shows it. */
export function useMessageTarget(messages: readonly { id: number }[]) {
  const location = useLocation();
  const wanted = Number(new URLSearchParams(location.search).get("message_id")) || null;
  const target = wanted && messages.some((m) => m.id === wanted) ? wanted : null;
  useEffect(() => {
    if (!target) return;
    const element = document.getElementById(`m-${target}`);
    element?.scrollIntoView({ block: "center" });
    element?.focus({ preventScroll: true });
  }, [target, location.key]);
  return target;
}
