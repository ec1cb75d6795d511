// The products the global search finds (app/search-hits.server.ts): the free text in a product's
// name or SKU, as the catalogue searches. Agents find active products; admins inactive ones too.
import type { SearchHitInput, SearchHitSection } from "~/search-hits.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { searchProducts } from "./products.server";

export async function productSearchHits({ reader, viewer, text, limit }: SearchHitInput): Promise<SearchHitSection | null> {
  if (!text || !menuItemAllows("product", "product", viewer)) return null;
  const { rows, more } = await searchProducts(text, limit, reader.type === "admin");
  return {
    title: "plugin_product.searchHits.title",
    hits: rows.map((p) => ({ title: { text: p.name }, detail: p.sku ? { text: p.sku } : undefined, href: `/product/${p.id}` })),
    more: more ? `/product?${new URLSearchParams({ q: text })}` : undefined,
  };
}
