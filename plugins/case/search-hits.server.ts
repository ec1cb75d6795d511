// The cases the global search finds (app/search-hits.server.ts): the free text in a case's title,
// or its number (1001 or #1001). Only for those the cases menu lets in (hide_case); they see every
// case (a case's tickets are filtered on its page).
import type { SearchHitInput, SearchHitSection } from "~/search-hits.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { searchCases } from "./case.server";

export async function caseSearchHits({ viewer, text, limit }: SearchHitInput): Promise<SearchHitSection | null> {
  if (!text || !menuItemAllows("case", "case", viewer)) return null;
  const rows = await searchCases(text, limit);
  return {
    title: "plugin_case.searchHits.title",
    hits: rows.map((c) => ({
      title: { key: "plugin_case.searchHits.hit", values: { number: String(c.number), title: c.title } },
      detail: { key: `plugin_case.status.${c.status}` },
      href: `/case/${c.number}`,
    })),
  };
}
