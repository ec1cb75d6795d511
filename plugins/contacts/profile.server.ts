// The customer behind a profile card (app/accounts/customer-profile.server.ts): the contact its
// conversation is linked to, or the one an email or phone names (in any of the forms people write
// them), followed through merges; then a page of that contact's conversations across every
// channel, all of them (activity) or one kind (Tickets, Live Chat), only those the reader may read.
// Only for those the contacts menu lets in (hide_contacts); the host falls back otherwise.
import { and, desc, eq, type SQL } from "drizzle-orm";
import { getDb } from "@db/client";
import { readableBy } from "~/conversation/access.server";
import { listColumns } from "~/conversation/list-columns.server";
import type { CustomerProfile, CustomerProfileInput } from "~/accounts/customer-profile.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { normaliseEmail, normalisePhone } from "./identities";
import { mergedTarget } from "./merge.server";

/** The contact's id: by the conversation's link, else by an email, else a phone. */
async function contactIdOf(who: CustomerProfileInput["who"]): Promise<number | undefined> {
  const { db, schema } = getDb();
  if ("ticketId" in who) {
    const [row] = await db.select({ id: schema.contactTickets.contactId }).from(schema.contactTickets).where(eq(schema.contactTickets.ticketId, who.ticketId));
    return row?.id;
  }
  const ci = schema.contactIdentities;
  for (const [kind, value] of [
    ["email", normaliseEmail(who.email)],
    ["phone", normalisePhone(who.phone)],
  ] as const) {
    if (!value) continue;
    const [row] = await db
      .select({ id: ci.contactId })
      .from(ci)
      .where(and(eq(ci.kind, kind), eq(ci.value, value)));
    if (row) return row.id;
  }
  return undefined;
}

/** The contact that stands for this one: itself, or the one it was merged into. */
async function standing(id: number) {
  const { db, schema } = getDb();
  const c = schema.contacts;
  const columns = { id: c.id, uid: c.uid, name: c.name, salutation: c.salutation, mergedInto: c.mergedInto };
  const [row] = await db.select(columns).from(c).where(eq(c.id, id));
  if (!row || row.mergedInto === null) return row;
  const uid = await mergedTarget(row.mergedInto);
  if (!uid) return undefined;
  const [target] = await db.select(columns).from(c).where(eq(c.uid, uid));
  return target;
}

export async function contactProfile({ reader, viewer, who, list, offset, limit }: CustomerProfileInput): Promise<CustomerProfile | null> {
  if (!menuItemAllows("contacts", "contacts", viewer)) return null;
  const found = await contactIdOf(who);
  const contact = found === undefined ? undefined : await standing(found);
  if (!contact) return null;
  const { db, schema } = getDb();
  const t = schema.tickets;
  const ct = schema.contactTickets;
  const ci = schema.contactIdentities;
  const conversations = (kind?: SQL) =>
    db
      .select(listColumns())
      .from(ct)
      .innerJoin(t, eq(t.id, ct.ticketId))
      .where(and(eq(ct.contactId, contact.id), readableBy(reader), kind));
  const [rows, identities] = await Promise.all([
    conversations(list === "activity" ? undefined : eq(t.kind, list))
      // the link's copy of the last activity: read in index order (contact_tickets' updated_at)
      .orderBy(desc(ct.updatedAt), desc(ct.ticketId))
      .limit(limit + 1)
      .offset(Math.max(0, offset)),
    db.select({ kind: ci.kind, value: ci.value }).from(ci).where(eq(ci.contactId, contact.id)).orderBy(ci.kind, ci.value),
  ]);
  // an empty tab still shows the customer when another kind of theirs may be read
  const readsAny = rows.length > 0 || (await conversations().limit(1)).length > 0;
  const first = (kind: string) => identities.find((i) => i.kind === kind)?.value ?? "";
  return {
    uid: contact.uid,
    name: [contact.salutation, contact.name].filter(Boolean).join(" "),
    email: first("email"),
    phone: first("phone"),
    items: rows.slice(0, limit),
    more: rows.length > limit,
    readsAny,
  };
}
