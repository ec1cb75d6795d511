// The query keys that belong to the list panel. Conversation pages carry them in their links so
// the list keeps its filters, and drop everything else (toasts, message paging).
const LIST_KEYS = [
  "list",
  "tab",
  "status",
  "page",
  "channel",
  "label",
  "department",
  "priority",
  "campaign",
  "assignee",
  "emotion",
  "appt",
  "dateField",
  "preset",
  "from",
  "to",
  "sort",
  "sla",
];
const GROUP_KEY = /^g\d+$/; // "Show More" of a department or label group

export const isListKey = (key: string) => LIST_KEYS.includes(key) || GROUP_KEY.test(key);

/** Only the list's parameters of a query string, without the leading "?". */
export function listParams(search: string) {
  const out = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(search)) if (isListKey(key)) out.append(key, value);
  return out;
}

/** "?..." with the list's parameters, or "" when there are none. */
export function listSearch(search: string) {
  const s = listParams(search).toString();
  return s ? `?${s}` : "";
}
