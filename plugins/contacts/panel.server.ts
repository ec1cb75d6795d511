// The conversation's "Contact" panel (app/conversation/panels.server.ts): who the customer is, with
// a link to the contact and the channels they reached us on; a conversation the linking job has
// not reached yet says so.
import { desc, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { menuItemAllows } from "~/plugins/registry.server";

export async function contactPanel({ ticket, viewer }: PanelInput): Promise<PanelSection | null> {
  // workspace chats have no customer
  if (ticket.kind === "chat" || !menuItemAllows("contacts", "contacts", viewer)) return null;
  const { db, schema } = getDb();
  const [contact] = await db
    .select({ id: schema.contacts.id, uid: schema.contacts.uid, name: schema.contacts.name })
    .from(schema.contactTickets)
    .innerJoin(schema.contacts, eq(schema.contacts.id, schema.contactTickets.contactId))
    .where(eq(schema.contactTickets.ticketId, ticket.id));
  const channels = contact ? await contactChannels(contact.id) : [];
  return {
    title: "plugin_contacts.panel.title",
    items: contact
      ? [
          { label: contact.name ? { text: contact.name } : { key: "plugin_contacts.panel.unnamed" }, href: `/contacts/${contact.uid}` },
          ...(channels.length ? [{ label: { key: "plugin_contacts.panel.channels" }, channels }] : []),
        ]
      : [],
    empty: "plugin_contacts.panel.notYet",
    actions: [],
  };
}

/** How many of the contact's latest conversations tell its channels: a busy contact costs what a quiet one does. */
const CHANNELS_FROM_LATEST = 200;

/** The channels the person reached the workspace on (one contact across channels), most recent first. */
async function contactChannels(contactId: number) {
  const { db, schema } = getDb();
  const ct = schema.contactTickets;
  const rows = await db
    .select({ channel: schema.tickets.channel })
    .from(ct)
    .innerJoin(schema.tickets, eq(schema.tickets.id, ct.ticketId))
    .where(eq(ct.contactId, contactId))
    .orderBy(desc(ct.updatedAt))
    .limit(CHANNELS_FROM_LATEST);
  return [...new Set(rows.map((r) => r.channel))];
}
