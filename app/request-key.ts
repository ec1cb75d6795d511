// The browser's side of idempotent writes (ADR 045, app/request-keys.server.ts): every form that
// carries a request key gets a fresh one each time the user sends it, so two sends are two writes;
// a form that shows a send whose answer was lost (data-keep) sends its key again, so the retry
// cannot write twice. Without JavaScript the server's key for the page is used as rendered.
import { REQUEST_KEY_FIELD_NAME } from "./request-key-field";

export function newRequestKey() {
  // getRandomValues, not randomUUID: that one exists only on https and localhost
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** On every submit (capture phase: before Remix reads the form), a fresh key unless kept. */
export function freshKeysOnSubmit(target: Pick<Window, "addEventListener" | "removeEventListener"> = window) {
  const onSubmit = (event: Event) => {
    const form = event.target as HTMLFormElement | null;
    const input = form?.elements?.namedItem?.(REQUEST_KEY_FIELD_NAME);
    if (input instanceof HTMLInputElement && !input.hasAttribute("data-keep")) input.value = newRequestKey();
  };
  target.addEventListener("submit", onSubmit, true);
  return () => target.removeEventListener("submit", onSubmit, true);
}
