// Every conversation belongs to a contact, without the conversation's code knowing: a job of this
// plugin walks the tickets with no contact_tickets row (by id, a batch at a time) and links each to
// the contact its email, E.164 phone or channel id names, creating the contact when none does.
// Resumable and idempotent: what is done is the contact_tickets row, written in the transaction
// that made the contact. Two nodes at once make one contact per person: identities are unique
// (kind, value), so the second one's insert fails, its transaction rolls back and it tries again,
// now finding the first one's contact.
import { randomBytes } from "node:crypto";
import { and, asc, eq, gt, inArray, lte, max, ne, notExists, sql } from "drizzle-orm";
import { getDb, isUniqueViolation, type DbHandle, type Tx } from "@db/client";
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { identitiesOfTicket, nameKeyOf, type Identity } from "./identities";

export const LINK_JOB = "contacts.link";
/** Tickets read at a time. */
const BATCH = 200;
/** Tickets one job links before it hands over to the next (other kinds of job get their turn). */
const JOB_BUDGET = 2_000;
const ATTEMPTS = 5;

/** A contact's address in links: 16 URL-safe characters. */
export const newUid = () => randomBytes(12).toString("base64url");

type TicketToLink = { id: number; channel: string; contactName: string; contactEmail: string; contactPhone: string; customerId: string };

/** Tickets that have no contact yet, after `after` (by id) and up to `upTo`; workspace chats (agents among themselves) have none. */
function unlinked(handle: DbHandle, after: number, limit: number, upTo?: number) {
  const { db, schema } = handle;
  const t = schema.tickets;
  const ct = schema.contactTickets;
  return db
    .select({ id: t.id, channel: t.channel, contactName: t.contactName, contactEmail: t.contactEmail, contactPhone: t.contactPhone, customerId: t.customerId })
    .from(t)
    .where(
      and(
        gt(t.id, after),
        upTo === undefined ? undefined : lte(t.id, upTo),
        ne(t.channel, "chat"),
        notExists(
          db
            .select({ one: sql`1` })
            .from(ct)
            .where(eq(ct.ticketId, t.id)),
        ),
      ),
    )
    .orderBy(asc(t.id))
    .limit(limit);
}

/** The contact the strongest of these identities names (email before phone before channel id). */
async function matching(tx: Tx, handle: DbHandle, identities: Identity[]) {
  if (!identities.length) return undefined;
  const ci = handle.schema.contactIdentities;
  const rows = await tx
    .select({ contactId: ci.contactId, kind: ci.kind, value: ci.value })
    .from(ci)
    .where(
      inArray(
        ci.value,
        identities.map((i) => i.value),
      ),
    );
  for (const identity of identities) {
    const hit = rows.find((r) => r.kind === identity.kind && r.value === identity.value);
    if (hit) return hit.contactId;
  }
  return undefined;
}

/**
 * Channels whose email and phone are whatever the customer typed into a form (the live chat's, the
 * public new-ticket page's): they may find the contact those name, but never add to it, or anyone
 * could attach their own phone to another person's contact by typing that person's email.
 */
const TYPED_BY_CUSTOMER = new Set(["LIVECHAT", "LIVECHAT2", "MANUAL"]);

/** Links one ticket (a no-op when it already is); answers its contact's id. */
export async function linkTicket(ticket: TicketToLink, handle: DbHandle = getDb(), now = Date.now()): Promise<number> {
  const { schema } = handle;
  const identities = identitiesOfTicket(ticket);
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.transaction(async (tx) => {
        const [done] = await tx
          .select({ contactId: schema.contactTickets.contactId })
          .from(schema.contactTickets)
          .where(eq(schema.contactTickets.ticketId, ticket.id));
        if (done) return done.contactId;
        const name = ticket.contactName.trim().slice(0, 200);
        let contactId = await matching(tx, handle, identities);
        const existing = contactId !== undefined;
        if (contactId === undefined) {
          const [created] = await tx
            .insert(schema.contacts)
            .values({ uid: newUid(), name, nameKey: nameKeyOf(name), createdAt: now, updatedAt: now })
            .returning({ id: schema.contacts.id });
          contactId = created.id;
          // plain inserts: another node's contact holding one of these fails this transaction, and the retry finds it
          if (identities.length) await tx.insert(schema.contactIdentities).values(identities.map((i) => ({ contactId: contactId!, ...i })));
        } else if (!TYPED_BY_CUSTOMER.has(ticket.channel)) {
          // what this conversation adds (a phone to a contact known by email); one another contact holds stays theirs
          await tx
            .insert(schema.contactIdentities)
            .values(identities.map((i) => ({ contactId: contactId!, ...i })))
            .onConflictDoNothing();
        }
        // a contact known without a name takes the one this conversation gives
        if (existing && name)
          await tx
            .update(schema.contacts)
            .set({ name, nameKey: nameKeyOf(name), updatedAt: now })
            .where(and(eq(schema.contacts.id, contactId), eq(schema.contacts.name, "")));
        await tx.insert(schema.contactTickets).values({ ticketId: ticket.id, contactId });
        return contactId;
      });
    } catch (error) {
      if (attempt >= ATTEMPTS || !isUniqueViolation(error)) throw error;
    }
  }
}

/**
 * Links the tickets without a contact after `after`, at most `budget` of them; answers how many
 * were looked at and the last id, so a caller can go on from there.
 */
export async function linkPending(options: { after?: number; budget?: number; handle?: DbHandle; now?: () => number } = {}) {
  const handle = options.handle ?? getDb();
  const budget = options.budget ?? Infinity;
  let after = options.after ?? 0;
  let linked = 0;
  for (;;) {
    const limit = Math.min(BATCH, budget - linked);
    const rows = await unlinked(handle, after, limit);
    for (const row of rows) {
      await linkTicket(row, handle, options.now?.() ?? Date.now());
      after = row.id;
      linked++;
    }
    if (rows.length < limit) return { linked, after, more: false };
    if (linked >= budget) return { linked, after, more: true };
  }
}

/** The first ticket with no contact after `after` (up to the newest ticket now), or undefined, and the newest ticket id. */
export async function firstUnlinked(after: number, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const [top] = await db.select({ id: max(schema.tickets.id) }).from(schema.tickets);
  const newest = Number(top?.id ?? 0);
  const [row] = await unlinked(handle, after, 1, newest);
  return { first: row?.id, newest };
}

/** Queues the job that links from ticket `first` on; the key makes nodes that see the same work queue it once (and again each hour should it stop). */
export async function queueLinking(first: number, now = Date.now()) {
  await enqueue(undefined, { kind: LINK_JOB, key: `${LINK_JOB}:${first}:${Math.floor(now / 3_600_000)}`, payload: { after: first - 1 } });
  wakeJobs();
}

export function defineLinkJob() {
  defineJobKind(LINK_JOB, {
    async run(payload) {
      const after = Math.max(0, Number((payload as { after?: number })?.after) || 0);
      const result = await linkPending({ after, budget: JOB_BUDGET });
      // more to do: the next job starts where this one stopped
      if (result.more) await queueLinking(result.after + 1);
    },
  });
}
