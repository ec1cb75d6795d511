// The contacts the global search finds (app/search-hits.server.ts): by a `contact:` token's value,
// else by the free text: a name's or an email's beginning, a whole email or phone, on indexes only
// (quick at a million contacts; the contacts list searches inside words too). Linked as the spec
// says, /contacts/{uid}. Only for those the contacts menu lets in (hide_contacts); merged-away
// contacts are left out in the query.
import type { SearchHitInput, SearchHitSection } from "~/search-hits.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { quickFindContacts } from "./contacts.server";

export async function contactSearchHits({ viewer, text, contact, limit }: SearchHitInput): Promise<SearchHitSection | null> {
  const q = contact.find(Boolean) ?? text;
  if (!q || !menuItemAllows("contacts", "contacts", viewer)) return null;
  const found = await quickFindContacts(q, limit);
  return {
    title: "plugin_contacts.searchHits.title",
    hits: found.contacts.map((c) => ({
      title: c.name ? { text: c.name } : { key: "plugin_contacts.panel.unnamed" },
      detail: c.email || c.phone ? { text: c.email || c.phone } : undefined,
      href: `/contacts/${c.uid}`,
    })),
    more: found.more ? `/contacts?${new URLSearchParams({ q })}` : undefined,
  };
}
