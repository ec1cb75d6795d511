// The open conversation's live parts: its socket room, the messages that arrive (and those missed
// while offline), who is typing, and our own typing.
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { subscribe } from "valtio";
import { LOCAL_TYPING_MS, lastShown, mergeMessages, realtime, receiveMessages, retryDelay, typingNames, useRealtime } from "~/realtime-store";
import { CLIENT_EVENTS } from "~/realtime-events";

/** Joins ticket:<id> while the page is open, and again after every reconnect; each join then asks what was missed. */
export function useConversationRoom(ticketId: number) {
  useEffect(() => {
    let joined = false;
    let open = true;
    const join = () => {
      // (re)join when the connection comes up; a reconnect is a new socket on the server
      // the join brings what was written after the newest message shown (while offline, or since
      // the page loaded); only more than one answer holds is asked for again, page by page
      if (realtime.status === "connected" && !joined)
        realtime.socket?.emit(
          CLIENT_EVENTS.joinRoom,
          { ticketId, after: lastShown.get(ticketId) },
          (answer: { ok: boolean; messages?: { id: number }[]; more?: boolean }) => {
            if (!open) return; // a late answer after leaving is ignored
            realtime.rooms[ticketId] = answer.ok;
            if (!answer.ok) return;
            if (answer.messages) receiveMessages(ticketId, answer.messages);
            if (!answer.messages || answer.more) realtime.catchUp[ticketId] = (realtime.catchUp[ticketId] ?? 0) + 1;
          },
        );
      joined = realtime.status === "connected";
      if (!joined) realtime.rooms[ticketId] = false;
    };
    join();
    const unsubscribe = subscribe(realtime, join);
    // coming back to the tab reads what arrived meanwhile (spec: read when viewed with focus)
    const read = () => {
      if (!document.hidden) realtime.socket?.emit(CLIENT_EVENTS.readMessage, { ticketId });
    };
    window.addEventListener("focus", read);
    return () => {
      open = false;
      window.removeEventListener("focus", read);
      unsubscribe();
      realtime.rooms[ticketId] = false;
      realtime.socket?.emit(CLIENT_EVENTS.leaveRoom, { ticketId });
    };
  }, [ticketId]);
}

/**
 * The conversation's messages: those the page loaded, then those that arrived since (events, and
 * the replay after each join from the last one shown), each once and in order. A page showing
 * older messages (`newest` false) shows only what it loaded.
 */
export function useLiveMessages<M extends { id: number }>(ticketId: number, loaded: readonly M[], newest: boolean): M[] {
  const snap = useRealtime();
  const shown = newest ? mergeMessages(loaded, snap.arrived[ticketId]) : (loaded as M[]);
  const last = useRef(0);
  last.current = shown.at(-1)?.id ?? 0;
  if (newest) lastShown.set(ticketId, last.current);
  else lastShown.delete(ticketId); // older pages take no replay
  const asked = (snap.catchUp[ticketId] ?? 0) + snap.resyncs;
  useEffect(() => {
    if (!asked || !newest) return;
    let stop = false;
    (async () => {
      // from the last message shown, page after page, until nothing more
      for (let more = true; more && !stop;) {
        const res = await fetch(`/api/ticket/data/check/${ticketId}/${last.current}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ view: "page", ts: Math.floor(Date.now() / 1000) }),
        });
        if (res.status < 500 && !res.ok) return; // not (or no longer) for this reader
        if (!res.ok) throw new Error(`replay: ${res.status}`);
        const answer = (await res.json()) as { messages: { id: number }[]; more: boolean };
        if (stop) return;
        receiveMessages(ticketId, answer.messages);
        if (answer.messages.length) last.current = Math.max(last.current, answer.messages.at(-1)!.id);
        more = answer.more && answer.messages.length > 0;
      }
    })().catch(() => {
      // offline again: the next join asks; the server swamped (a storm): ask again shortly
      if (!stop && realtime.status === "connected") setTimeout(() => (realtime.catchUp[ticketId] = (realtime.catchUp[ticketId] ?? 0) + 1), retryDelay());
    });
    return () => {
      stop = true;
    };
  }, [ticketId, asked, newest]);
  // leaving the conversation forgets what arrived for it (the next visit loads it)
  useEffect(
    () => () => {
      delete realtime.arrived[ticketId];
      lastShown.delete(ticketId);
    },
    [ticketId],
  );
  return shown;
}

/** Sends sendTyping while the user types (at most once a second) and removeTyping after 2 s idle. */
export function useTypingEmitter(ticketId: number) {
  const state = useRef<{ lastSent: number; idle?: ReturnType<typeof setTimeout> }>({ lastSent: 0 });
  useEffect(() => () => clearTimeout(state.current.idle), []);
  return () => {
    const now = Date.now();
    if (now - state.current.lastSent > 1000) {
      realtime.socket?.emit(CLIENT_EVENTS.sendTyping, { ticketId });
      state.current.lastSent = now;
    }
    clearTimeout(state.current.idle);
    state.current.idle = setTimeout(() => {
      realtime.socket?.emit(CLIENT_EVENTS.removeTyping, { ticketId });
      state.current.lastSent = 0;
    }, LOCAL_TYPING_MS);
  };
}

export function TypingIndicator({ ticketId }: { ticketId: number }) {
  const { t } = useTranslation();
  const snap = useRealtime();
  // re-render once a second so entries disappear 5 s after the last news
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const names = typingNames(snap.typing, ticketId, now);
  return (
    <p className="typing muted" aria-live="polite">
      {names.length ? t("realtime.typing", { names: names.join(", "), count: names.length }) : "\u00a0"}
    </p>
  );
}

/** "on" while the page receives this conversation's events (tests and styles can wait on it). */
export function useLive(ticketId: number) {
  return useRealtime().rooms[ticketId] ? "on" : "off";
}

/** A message's delivery state: as the page loaded it, or as messageStateChanged told since. */
export function useDeliveryState(message: { id: number; deliveryState: string; deliveryError: string | null }) {
  const heard = useRealtime().delivery[message.id];
  return heard ?? { state: message.deliveryState, error: message.deliveryError };
}
