// Search hit highlighting, shared by the server (the JSON API's HTML excerpt) and the browser
// (the results list). Matching is literal and case-insensitive, like the search itself.

export interface Segment {
  text: string;
  mark: boolean;
}

/** `text` cut into plain and matched pieces; terms are matched literally (no pattern syntax), longest first. */
export function highlightSegments(text: string, terms: string[]): Segment[] {
  const wanted = [...new Set(terms.filter(Boolean))].sort((a, b) => b.length - a.length).map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (wanted.length === 0 || text === "") return text ? [{ text, mark: false }] : [];
  return text
    .split(new RegExp(`(${wanted.join("|")})`, "giu"))
    .map((part, i) => ({ text: part, mark: i % 2 === 1 }))
    .filter((s) => s.text !== "");
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** HTML of `text` with every match in <mark>: everything else is escaped, so no markup from the text survives. */
export const highlightHtml = (text: string, terms: string[]) =>
  highlightSegments(text, terms)
    .map((s) => (s.mark ? `<mark>${escapeHtml(s.text)}</mark>` : escapeHtml(s.text)))
    .join("");
