// Markdown to HTML for articles: marked renders, sanitize-html keeps only harmless tags and
// attributes (no script, no event handlers, no javascript: links), so an admin's text cannot run
// code in a visitor's or an agent's browser. Plain text (for "Insert text" and meta descriptions)
// is the sanitised HTML without tags.
import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";

const marked = new Marked({ gfm: true, breaks: false, async: false });

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags.filter((t) => t !== "iframe"), "img", "del", "input"],
  allowedAttributes: {
    a: ["href", "title"],
    img: ["src", "alt", "title", "width", "height"],
    code: ["class"],
    th: ["align"],
    td: ["align"],
    ol: ["start"],
    input: ["type", "checked", "disabled"],
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowProtocolRelative: false,
  transformTags: {
    a: sanitizeHtml.simpleTransform("a", { rel: "noopener noreferrer nofollow" }),
    // only GFM task-list checkboxes survive, read-only
    input: (tagName, attribs) => (attribs.type === "checkbox" ? { tagName, attribs: { ...attribs, disabled: "" } } : { tagName: "span", attribs: {} }),
  },
  disallowedTagsMode: "discard",
};

/** The article's body as safe HTML. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown) as string;
  return sanitizeHtml(html, { ...OPTIONS, allowedAttributes: { ...OPTIONS.allowedAttributes, a: ["href", "title", "rel"] } });
}

/** The article's text without markup (whitespace folded). */
export function plainText(markdown: string): string {
  const html = marked.parse(markdown) as string;
  const text = sanitizeHtml(html.replace(/<\/(p|h\d|li|tr|pre|blockquote)>/g, "$&\n"), { allowedTags: [], allowedAttributes: {} });
  return decodeEntities(text)
    .replace(/[ \t]+/g, " ")
    .replace(/\n\s*\n+/g, "\n\n")
    .trim();
}

function decodeEntities(s: string) {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&");
}
