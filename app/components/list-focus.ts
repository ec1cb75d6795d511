// The list panel as a place focus goes to (after "g t", after closing a conversation): the
// panel has id "list" and its rows carry data-ticket (plugins/tickets/components/ListPanel.tsx).

/** Focuses the open conversation's row, else the first row, else the panel; false when the page has no list. */
export function focusList(): boolean {
  const list = document.getElementById("list");
  if (!list) return false;
  (list.querySelector<HTMLElement>('[data-ticket][aria-current="page"]') ?? list.querySelector<HTMLElement>("[data-ticket]") ?? list).focus();
  return true;
}
