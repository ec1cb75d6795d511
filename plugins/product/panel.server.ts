// The conversation's "Products" panel (app/conversation/panels.server.ts): the products linked to
// the ticket, and the catalogue to link one from.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { menuItemAllows } from "~/plugins/registry.server";

export async function productPanel({ ticket, viewer }: PanelInput): Promise<PanelSection | null> {
  if (ticket.kind !== "ticket" || !menuItemAllows("product", "product", viewer)) return null;
  const { db, schema } = getDb();
  const p = schema.products;
  const linked = await db
    .select({ id: p.id, name: p.name, sku: p.sku })
    .from(schema.productTickets)
    .innerJoin(p, eq(p.id, schema.productTickets.productId))
    .where(eq(schema.productTickets.ticketId, ticket.id))
    .orderBy(p.name);
  return {
    title: "plugin_product.panel.title",
    items: linked.map((x) => ({ label: { text: `${x.name} (${x.sku})` }, href: `/product/${x.id}` })),
    empty: "plugin_product.panel.none",
    actions: [{ label: { key: "plugin_product.panel.link" }, href: "/product" }],
  };
}
