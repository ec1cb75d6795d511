// The conversation's "Knowledge base" panel (app/conversation/panels.server.ts) on ticket, live
// chat and call pages: a search form (GET ?kbq=, works without JavaScript) and, for each article
// found, "Insert text" and (public ones) "Insert link", which put the article's text or its public
// address into the reply box (with JavaScript at the cursor; without, through the page's ?draft=).
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { getArticle, listArticles } from "./kb.server";
import { publicPath, QUERY_MAX } from "./limits";
import { plainText } from "./render.server";

/** The panel's query parameter on the conversation page. */
export const PANEL_PARAM = "kbq";
const RESULTS = 5;
/** Text inserted with JavaScript (the page carries it for each result). */
const INSERT_MAX = 5000;
/** A ?draft= link stays well under a request line's limits (16 KB in Node): its text is cut to fit. */
const HREF_BUDGET = 6000;

/** `text` cut (at a character) so that its encoded form fits `budget`, marked with "…" when cut. */
export function fitEncoded(text: string, budget: number) {
  if (encodeURIComponent(text).length <= budget) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (encodeURIComponent(chars.slice(0, mid).join("") + "…").length <= budget) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join("") + "…";
}

export async function kbPanel({ ticket, viewer, searchParams, origin }: PanelInput): Promise<PanelSection | null> {
  if (!["ticket", "livechat", "call"].includes(ticket.kind) || !menuItemAllows("kb", "kb", viewer)) return null;
  const q = (searchParams?.get(PANEL_PARAM) ?? "").trim().slice(0, QUERY_MAX);
  const search = { name: PANEL_PARAM, value: q, label: "plugin_kb.panel.search", submit: "plugin_kb.panel.searchButton" };
  const section: PanelSection = { title: "plugin_kb.panel.title", items: [], actions: [], search, empty: q ? "plugin_kb.panel.none" : "plugin_kb.panel.hint" };
  if (!q) return section;
  const found = await listArticles({ q, includeInternal: true, pageSize: RESULTS });
  const draftHref = (text: string) => {
    const params = new URLSearchParams({ [PANEL_PARAM]: q });
    params.set("draft", fitEncoded(text, HREF_BUDGET));
    return `?${params}#reply`;
  };
  for (const listed of found.articles) {
    const article = await getArticle(listed.id);
    if (!article) continue;
    const text = plainText(article.body).slice(0, INSERT_MAX);
    const link = article.visibility === "public" ? `${origin ?? ""}${publicPath(article)}` : null;
    section.items.push({
      label: {
        key: article.visibility === "internal" ? "plugin_kb.panel.itemInternal" : "plugin_kb.panel.item",
        values: { title: article.title, lang: `t:plugin_kb.lang.${article.lang}` },
      },
      href: link ? publicPath(article) : undefined,
      actions: [
        { label: { key: "plugin_kb.panel.insertText", values: { title: article.title } }, href: draftHref(text), insert: text },
        ...(link ? [{ label: { key: "plugin_kb.panel.insertLink", values: { title: article.title } }, href: draftHref(link), insert: link }] : []),
      ],
    });
  }
  return section;
}
