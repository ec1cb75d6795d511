// What a message's HTML may carry, in one place: the page sanitises with it when it shows a
// message, and a channel when it stores one. No scripts, styles, frames or forms; details/summary
// fold a mail's quoted history without JS; img only from our own /files or cid: (a remote source,
// a tracker, is never loaded); links open apart, telling the target nothing.
import sanitizeHtml from "sanitize-html";

export const MESSAGE_HTML: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags.filter((t) => t !== "iframe"), "details", "summary", "img"],
  allowedAttributes: { a: ["href", "title"], img: ["src", "alt"], td: ["colspan", "rowspan"], th: ["colspan", "rowspan"] },
  allowedSchemes: ["http", "https", "mailto", "cid"],
  allowedSchemesByTag: { img: ["cid"] },
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform("a", { rel: "noopener noreferrer nofollow", target: "_blank" }) },
};
