// Contacts as agents see them: the list (newest first, paged; searched by name, email or phone
// through search.server.ts), one contact with its emails, phones and channel ids, its identity
// edited, and its conversations across channels, only those the viewer may read (the host's
// access rules).
import { and, desc, eq, inArray, isNull, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { getDb } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { conversationPath } from "~/conversation/channels";
import { searchContactIds } from "./search.server";
import { checkIdNumber, ID_TYPES } from "./identity";
import { nameKeyOf, normaliseEmail, normalisePhone, type IdentityKind } from "./identities";

export const LIST_PAGE = 20;
export const LIST_PAGE_MAX = 100;
/** The activity list's page (spec section 9: activity 5). */
export const ACTIVITY_PAGE = 5;
export const SEARCH_MAX = 100;
export const NAME_MAX = 200;
export const SALUTATION_MAX = 30;
export const NOTES_MAX = 5_000;

export type ContactRow = { id: number; uid: string; name: string; salutation: string; email: string; phone: string; createdAt: number };

/** A page of contacts, newest first; `more` when another page follows. */
export async function listContacts(input: { q?: string; page?: number; size?: number }) {
  const { db, schema } = getDb();
  const c = schema.contacts;
  const q = (input.q ?? "").trim().slice(0, SEARCH_MAX);
  const size = Math.min(Math.max(1, input.size ?? LIST_PAGE), LIST_PAGE_MAX);
  const page = Math.max(1, Math.floor(input.page ?? 1));
  const columns = { id: c.id, uid: c.uid, name: c.name, salutation: c.salutation, createdAt: c.createdAt };
  let rows;
  if (q) {
    // the search finds the page's ids through its index (search.server.ts); the rows follow in that order
    const found = await searchContactIds(q, (page - 1) * size, size + 1);
    const byId = new Map((found.length ? await db.select(columns).from(c).where(inArray(c.id, found)) : []).map((r) => [r.id, r]));
    rows = found.flatMap((id) => byId.get(id) ?? []);
  } else
    rows = await db
      .select(columns)
      .from(c)
      .where(isNull(c.mergedInto))
      .orderBy(desc(c.createdAt), desc(c.id))
      .limit(size + 1)
      .offset((page - 1) * size);
  const contacts = await withReach(rows.slice(0, size));
  return { contacts, page, size, q, more: rows.length > size };
}

/** A contact as the JSON twins give it (GET /api/contacts/list and /api/contacts/custom). */
export const contactJson = (c: ContactRow) => ({
  id: c.id,
  uid: c.uid,
  name: c.name,
  salutation: c.salutation,
  email: c.email,
  phone: c.phone,
  created_at: c.createdAt,
});

/** Contacts' rows as lists show them: each with its first email and phone. */
export async function withReach(rows: Omit<ContactRow, "email" | "phone">[]): Promise<ContactRow[]> {
  const identities = await identitiesOf(rows.map((r) => r.id));
  const first = (id: number, kind: IdentityKind) => identities.find((i) => i.contactId === id && i.kind === kind)?.value ?? "";
  return rows.map((r) => ({ ...r, createdAt: Number(r.createdAt), email: first(r.id, "email"), phone: first(r.id, "phone") }));
}

/**
 * A quick find for the global search, on indexes only (whatever the number of contacts): a whole
 * email or phone, an email's beginning, or the beginning of a name (any case). The contacts list's
 * own search also finds words inside names and emails, which reads every contact.
 */
export async function quickFindContacts(text: string, limit: number): Promise<{ contacts: ContactRow[]; more: boolean }> {
  const { db, schema } = getDb();
  const c = schema.contacts;
  const ci = schema.contactIdentities;
  const q = text.trim().slice(0, SEARCH_MAX);
  if (!q) return { contacts: [], more: false };
  // "starts with" as an index range (the indexes' own order: byte order on SQLite and on a C-collated PostgreSQL; rechecked below)
  const startsWith = (column: AnyColumn, prefix: string) => and(sql`${column} >= ${prefix}`, sql`${column} < ${`${prefix}\u{10FFFF}`}`);
  const key = nameKeyOf(q);
  const phone = normalisePhone(q);
  // emails are kept lower-cased: a whole one is its own beginning
  const lower = q.toLowerCase();
  const byIdentity = (kind: IdentityKind, match: SQL | undefined) =>
    db
      .select({ id: ci.contactId, value: ci.value })
      .from(ci)
      .where(and(eq(ci.kind, kind), match))
      .limit(limit + 1);
  const [byName, byEmail, byPhone] = await Promise.all([
    db
      .select({ id: c.id, value: c.nameKey })
      .from(c)
      .where(and(startsWith(c.nameKey, key), isNull(c.mergedInto)))
      .limit(limit + 1),
    /\s/.test(lower) ? [] : byIdentity("email", startsWith(ci.value, lower)),
    phone ? byIdentity("phone", eq(ci.value, phone)) : [],
  ]);
  const ids = [
    ...new Set([
      ...byName.filter((r) => r.value.startsWith(key)).map((r) => r.id),
      ...byEmail.filter((r) => r.value.startsWith(lower)).map((r) => r.id),
      ...byPhone.map((r) => r.id),
    ]),
  ];
  if (!ids.length) return { contacts: [], more: false };
  const rows = await db
    .select({ id: c.id, uid: c.uid, name: c.name, salutation: c.salutation, createdAt: c.createdAt })
    .from(c)
    .where(and(inArray(c.id, ids), isNull(c.mergedInto)))
    .orderBy(desc(c.createdAt), desc(c.id));
  return {
    contacts: await withReach(rows.slice(0, limit)),
    more: rows.length > limit || byName.length > limit || byEmail.length > limit,
  };
}

async function identitiesOf(contactIds: number[]) {
  if (!contactIds.length) return [];
  const { db, schema } = getDb();
  const ci = schema.contactIdentities;
  return db.select({ contactId: ci.contactId, kind: ci.kind, value: ci.value }).from(ci).where(inArray(ci.contactId, contactIds)).orderBy(ci.kind, ci.value);
}

/** One contact by its uid, with what recognises it; undefined when there is none. */
export async function contactByUid(uid: string) {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(uid)) return undefined;
  const { db, schema } = getDb();
  const [contact] = await db.select().from(schema.contacts).where(eq(schema.contacts.uid, uid));
  if (!contact) return undefined;
  const identities = await identitiesOf([contact.id]);
  const of = (kind: IdentityKind) => identities.filter((i) => i.kind === kind).map((i) => i.value);
  return {
    ...contact,
    createdAt: Number(contact.createdAt),
    updatedAt: Number(contact.updatedAt),
    mergedAt: contact.mergedAt === null ? null : Number(contact.mergedAt),
    emails: of("email"),
    phones: of("phone"),
    channels: of("channel"),
  };
}
/**
 * The uid of the contact an email or phone names: the profile card links customers as
 * /contacts/{email or phone} (app/accounts/profile.server.ts), and such a link lands on the contact.
 */
export async function uidByIdentity(text: string) {
  const email = normaliseEmail(text);
  const phone = email ? "" : normalisePhone(text);
  if (!email && !phone) return undefined;
  const { db, schema } = getDb();
  const ci = schema.contactIdentities;
  const [row] = await db
    .select({ uid: schema.contacts.uid })
    .from(ci)
    .innerJoin(schema.contacts, eq(schema.contacts.id, ci.contactId))
    .where(and(eq(ci.kind, email ? "email" : "phone"), eq(ci.value, email || phone)));
  return row?.uid;
}
export type Contact = NonNullable<Awaited<ReturnType<typeof contactByUid>>>;

export const IDENTITY_FIELDS = ["salutation", "name", "idType", "idNumber", "notes"] as const;
export type IdentityInput = Record<(typeof IDENTITY_FIELDS)[number], string>;

/**
 * Saves the identity part of a contact; the number is checked against its type and kept in its
 * usual form (a MyKad as YYMMDD-PB-####), or cleared for None and Refuses to provide. A refusal
 * names the field and its message (translation keys) with the values to interpolate.
 */
export async function updateIdentity(uid: string, input: IdentityInput, now = Date.now()) {
  const errors: Record<string, string> = {};
  const messageValues: Record<string, string> = {};
  const name = input.name.trim();
  const salutation = input.salutation.trim();
  const notes = input.notes.trim();
  if (name.length > NAME_MAX) errors.name = "plugin_contacts.error.nameTooLong";
  if (salutation.length > SALUTATION_MAX) errors.salutation = "plugin_contacts.error.salutationTooLong";
  if (notes.length > NOTES_MAX) errors.notes = "plugin_contacts.error.notesTooLong";
  const idType = (ID_TYPES as readonly string[]).includes(input.idType) ? input.idType : "";
  const checked = checkIdNumber(input.idType, input.idNumber);
  if (!checked.ok) {
    errors[input.idType === idType ? "idNumber" : "idType"] = checked.error;
    Object.assign(messageValues, checked.values);
  }
  if (Object.keys(errors).length || !checked.ok) return { ok: false as const, errors, messageValues };
  const { db, schema } = getDb();
  const [row] = await db
    .update(schema.contacts)
    .set({ name, nameKey: nameKeyOf(name), salutation, idType, idNumber: checked.number, notes, updatedAt: now })
    .where(eq(schema.contacts.uid, uid))
    .returning({ id: schema.contacts.id });
  return row ? { ok: true as const } : { ok: false as const, notFound: true, errors, messageValues };
}

export type ActivityItem = { path: string; ticketNumber: number; title: string; channel: string; status: number; updatedAt: number };

/** The contact's conversations the viewer may read, newest activity first, a page of `size`. */
export async function contactActivity(viewer: Reader, contactId: number, page = 1, size = ACTIVITY_PAGE) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const ct = schema.contactTickets;
  const current = Math.max(1, Math.floor(page));
  const rows = await db
    .select({ ticketNumber: t.ticketNumber, kind: t.kind, title: t.title, channel: t.channel, status: t.status, updatedAt: t.updatedAt })
    .from(ct)
    .innerJoin(t, eq(t.id, ct.ticketId))
    .where(and(eq(ct.contactId, contactId), readableBy(viewer)))
    // the link's copy of the conversation's last activity: read in index order, no sort of all of them
    .orderBy(desc(ct.updatedAt), desc(ct.ticketId))
    .limit(size + 1)
    .offset((current - 1) * size);
  const items: ActivityItem[] = rows
    .slice(0, size)
    .map(({ kind, ...r }) => ({ ...r, updatedAt: Number(r.updatedAt), path: conversationPath(kind, r.ticketNumber) }));
  return { items, page: current, more: rows.length > size };
}
