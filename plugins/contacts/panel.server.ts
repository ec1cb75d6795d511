// The conversation's "Contact" panel (app/conversation/panels.server.ts): who the customer is, with
// a link to the contact; a conversation the linking job has not reached yet says so.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { menuItemAllows } from "~/plugins/registry.server";

export async function contactPanel({ ticket, viewer }: PanelInput): Promise<PanelSection | null> {
  // workspace chats have no customer
  if (ticket.kind === "chat" || !menuItemAllows("contacts", "contacts", viewer)) return null;
  const { db, schema } = getDb();
  const [contact] = await db
    .select({ uid: schema.contacts.uid, name: schema.contacts.name })
    .from(schema.contactTickets)
    .innerJoin(schema.contacts, eq(schema.contacts.id, schema.contactTickets.contactId))
    .where(eq(schema.contactTickets.ticketId, ticket.id));
  return {
    title: "plugin_contacts.panel.title",
    items: contact ? [{ label: contact.name ? { text: contact.name } : { key: "plugin_contacts.panel.unnamed" }, href: `/contacts/${contact.uid}` }] : [],
    empty: "plugin_contacts.panel.notYet",
    actions: [],
  };
}
