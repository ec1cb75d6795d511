// Records the global search finds besides conversations (contacts, cases, products). Each plugin
// names a loader in its manifest (`searchHits`); the search asks those of the plugins the edition
// enables, in plugin order, and draws what they answer: data (a heading, hits with a link), so the
// hits render on the server and work without JavaScript, and app/ never imports a plugin.
// Each loader checks who may see its records itself (its menu rule, and per row in its query).
import { pluginExport } from "~/plugins/modules.server";
import { plugins } from "~/plugins/registry.server";
import type { Reader } from "~/conversation/access.server";
import type { PanelText } from "~/conversation/panels.server";
import type { Viewer } from "~/permissions";
import { log } from "~/ops/log.server";

/** Hits per section (the search's page size, spec section 9). */
export const SEARCH_HITS_LIMIT = 6;

export interface SearchHitInput {
  reader: Reader;
  /** The same person for the plugins' menu rules (hide_contacts, hide_case). */
  viewer: Viewer;
  /** The free text of the query (words outside key:value tokens), trimmed; may be empty. */
  text: string;
  /** The values of the query's `contact:` tokens. */
  contact: string[];
  limit: number;
}

export interface SearchHit {
  title: PanelText;
  /** A second, muted line (an email, a SKU, a status). */
  detail?: PanelText;
  href: string;
}

export interface SearchHitSection {
  /** Tells apart the sections of a plugin that answers more than one; the plugin's id otherwise. */
  id?: string;
  /** Translation key of the section's heading. */
  title: string;
  hits: SearchHit[];
  /** Where the rest is listed (the plugin's own list, searched), when there are more than `limit`. */
  more?: string;
}

type SearchHitLoader = (input: SearchHitInput) => Promise<SearchHitSection | null>;

/** Every enabled plugin's hits for a query; sections without hits are left out. `trial`: only plugins marked `trial`. */
export async function searchHits(
  input: Omit<SearchHitInput, "limit"> & { limit?: number },
  enabled: readonly string[],
  trial = false,
): Promise<(SearchHitSection & { plugin: string })[]> {
  if (!input.text && !input.contact.some(Boolean)) return [];
  const full: SearchHitInput = { ...input, limit: input.limit ?? SEARCH_HITS_LIMIT };
  const owners = plugins().filter((p) => p.searchHits && enabled.includes(p.id) && (p.trial || !trial));
  const sections = await Promise.all(
    owners.map(async (p) => {
      try {
        const answer = await (await pluginExport<SearchHitLoader>(p.id, p.searchHits!))(full);
        return answer && answer.hits.length ? [{ ...answer, hits: answer.hits.slice(0, full.limit), plugin: p.id }] : [];
      } catch (error) {
        // one plugin's trouble must not take the search down
        log.error({ err: error, plugin: p.id }, "search hits failed");
        return [];
      }
    }),
  );
  return sections.flat();
}
