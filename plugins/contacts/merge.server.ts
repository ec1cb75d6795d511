// Merging two contacts that are one person: the other contact's identities (emails, phones,
// channel ids) and conversations move to this one, in one transaction, and the other is marked
// merged_into this one (its page redirects here); custom field values this one has none of are
// copied from the other. What moved is kept in contact_merges, so an undo
// within a day puts exactly that back: identities or conversations that came to this contact
// later stay where they are. The merge record says who merged and when (the undo, when).
import { and, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import type { UserRow } from "~/accounts/users.server";
import { audit } from "~/accounts/audit.server";
import type { IdentityKind } from "./identities";

/** How long a merge can be undone. */
export const UNDO_MS = 24 * 60 * 60_000;
/** Rows changed per statement (well under both databases' parameter limits). */
const CHUNK = 1_000;

/** `fields`: the other contact's custom field values copied here (fields this contact had no value of); absent in merges made before custom fields. */
type Moved = { identities: [IdentityKind, string][]; tickets: number[]; fields?: [number, string][] };
export type MergeRefusal = "self" | "notFound" | "fromMerged" | "intoMerged";
type Actor = Pick<UserRow, "id" | "username">;

async function contactsByUid(tx: Tx, uids: string[]) {
  const { schema } = getDb();
  const c = schema.contacts;
  return tx.select({ id: c.id, uid: c.uid, name: c.name, mergedInto: c.mergedInto }).from(c).where(inArray(c.uid, uids));
}

/** Why `fromUid` cannot be merged into `intoUid`, or the two contacts. */
async function pair(tx: Tx, intoUid: string, fromUid: string) {
  if (intoUid === fromUid) return { refusal: "self" as const };
  const rows = await contactsByUid(tx, [intoUid, fromUid]);
  const into = rows.find((r) => r.uid === intoUid);
  const from = rows.find((r) => r.uid === fromUid);
  if (!into || !from) return { refusal: "notFound" as const };
  if (into.mergedInto !== null) return { refusal: "intoMerged" as const };
  if (from.mergedInto !== null) return { refusal: "fromMerged" as const };
  return { into, from };
}

/** What a merge of `fromUid` into `intoUid` would move: the other contact's identities and how many conversations. */
export async function mergePreview(intoUid: string, fromUid: string) {
  const { db, schema } = getDb();
  const found = await pair(db, intoUid, fromUid);
  if ("refusal" in found) return { ok: false as const, refusal: found.refusal };
  const ci = schema.contactIdentities;
  const identities = await db.select({ kind: ci.kind, value: ci.value }).from(ci).where(eq(ci.contactId, found.from.id)).orderBy(ci.kind, ci.value);
  const [tickets] = await db.select({ n: count() }).from(schema.contactTickets).where(eq(schema.contactTickets.contactId, found.from.id));
  return { ok: true as const, into: found.into, from: found.from, identities, conversations: Number(tickets?.n ?? 0) };
}

const chunks = <T>(list: T[]) => Array.from({ length: Math.ceil(list.length / CHUNK) }, (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

/** Merges `fromUid` into `intoUid` in one transaction; answers the merge's id, or why not. */
export async function mergeContacts(intoUid: string, fromUid: string, by: Actor, now = Date.now()) {
  const handle = getDb();
  const { schema } = handle;
  const c = schema.contacts;
  return handle
    .transaction(async (tx) => {
      const found = await pair(tx, intoUid, fromUid);
      if ("refusal" in found) return { ok: false as const, refusal: found.refusal };
      const { into, from } = found;
      // both rows claimed only while they still stand on their own (on PostgreSQL these updates lock
      // them, in id order, so two merges of the same contacts at once cannot cross)
      for (const [id, set] of [
        [into.id, { updatedAt: now }],
        [from.id, { mergedInto: into.id, mergedAt: now, updatedAt: now }],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)) as [number, Record<string, unknown>][]) {
        const claimed = await tx
          .update(c)
          .set(set)
          .where(and(eq(c.id, id), isNull(c.mergedInto)))
          .returning({ id: c.id });
        if (!claimed.length) throw new MergeRace(id === into.id ? "intoMerged" : "fromMerged");
      }
      const ci = schema.contactIdentities;
      const ct = schema.contactTickets;
      const identities = await tx.select({ kind: ci.kind, value: ci.value }).from(ci).where(eq(ci.contactId, from.id));
      const tickets = (await tx.select({ id: ct.ticketId }).from(ct).where(eq(ct.contactId, from.id))).map((r) => r.id);
      await tx.update(ci).set({ contactId: into.id }).where(eq(ci.contactId, from.id));
      await tx.update(ct).set({ contactId: into.id }).where(eq(ct.contactId, from.id));
      // custom field values: this contact's own win; those it has none of are copied from the other (which keeps its own)
      const fv = schema.contactFieldValues;
      const values = await tx
        .select({ contactId: fv.contactId, fieldId: fv.fieldId, value: fv.value })
        .from(fv)
        .where(inArray(fv.contactId, [into.id, from.id]));
      const own = new Set(values.filter((v) => v.contactId === into.id).map((v) => v.fieldId));
      const fields = values.filter((v) => v.contactId === from.id && !own.has(v.fieldId)).map((v) => [v.fieldId, v.value] as [number, string]);
      if (fields.length) await tx.insert(fv).values(fields.map(([fieldId, value]) => ({ contactId: into.id, fieldId, value })));
      const moved: Moved = { identities: identities.map((i) => [i.kind as IdentityKind, i.value]), tickets, fields };
      const [merge] = await tx
        .insert(schema.contactMerges)
        .values({ intoId: into.id, fromId: from.id, moved: JSON.stringify(moved), byUser: by.id, mergedAt: now })
        .returning({ id: schema.contactMerges.id });
      await audit(
        {
          action: "contact.merged",
          actor: { id: by.id, name: by.username },
          target: { type: "contact", id: into.uid },
          detail: { from: from.uid, identities: moved.identities.length, tickets: tickets.length },
        },
        tx,
      );
      return { ok: true as const, mergeId: merge.id };
    })
    .catch((error) => {
      if (error instanceof MergeRace) return { ok: false as const, refusal: error.refusal };
      throw error;
    });
}

class MergeRace extends Error {
  constructor(readonly refusal: MergeRefusal) {
    super(`merge refused: ${refusal}`);
  }
}

export type UndoRefusal = "notFound" | "undone" | "expired" | "mergedAgain";

/** Undoes a merge of the last day: exactly what moved goes back, and the other contact stands on its own again. */
export async function undoMerge(mergeId: number, by: Actor, now = Date.now()) {
  const handle = getDb();
  const { schema } = handle;
  const m = schema.contactMerges;
  const c = schema.contacts;
  return handle
    .transaction(async (tx): Promise<{ ok: true; intoUid: string; fromUid: string } | { ok: false; refusal: UndoRefusal }> => {
      const [merge] = await tx.select().from(m).where(eq(m.id, mergeId));
      if (!merge) return { ok: false, refusal: "notFound" };
      if (merge.undoneAt !== null) return { ok: false, refusal: "undone" };
      if (now - Number(merge.mergedAt) > UNDO_MS) return { ok: false, refusal: "expired" };
      // the claim: a second undo at the same moment finds it taken
      const claimed = await tx
        .update(m)
        .set({ undoneAt: now })
        .where(and(eq(m.id, mergeId), isNull(m.undoneAt)))
        .returning({ id: m.id });
      if (!claimed.length) return { ok: false, refusal: "undone" };
      const rows = await tx
        .select({ id: c.id, uid: c.uid, mergedInto: c.mergedInto })
        .from(c)
        .where(inArray(c.id, [merge.intoId, merge.fromId]));
      const into = rows.find((r) => r.id === merge.intoId)!;
      const from = rows.find((r) => r.id === merge.fromId)!;
      // this contact went on into another since: what moved is no longer here to give back
      if (into.mergedInto !== null || from.mergedInto !== into.id) throw new UndoRefused("mergedAgain");
      const moved = JSON.parse(merge.moved) as Moved;
      const ci = schema.contactIdentities;
      const ct = schema.contactTickets;
      for (const kind of ["email", "phone", "channel"] as const) {
        const values = moved.identities.filter(([k]) => k === kind).map(([, v]) => v);
        for (const part of chunks(values))
          await tx
            .update(ci)
            .set({ contactId: from.id })
            .where(and(eq(ci.contactId, into.id), eq(ci.kind, kind), inArray(ci.value, part)));
      }
      for (const part of chunks(moved.tickets))
        await tx
          .update(ct)
          .set({ contactId: from.id })
          .where(and(eq(ct.contactId, into.id), inArray(ct.ticketId, part)));
      // the copied custom field values go, unless changed here since (the other contact kept its own)
      const fv = schema.contactFieldValues;
      for (const [fieldId, value] of moved.fields ?? [])
        await tx.delete(fv).where(and(eq(fv.contactId, into.id), eq(fv.fieldId, fieldId), eq(fv.value, value)));
      await tx.update(c).set({ mergedInto: null, mergedAt: null, updatedAt: now }).where(eq(c.id, from.id));
      await audit(
        { action: "contact.merge_undone", actor: { id: by.id, name: by.username }, target: { type: "contact", id: into.uid }, detail: { from: from.uid } },
        tx,
      );
      return { ok: true, intoUid: into.uid, fromUid: from.uid };
    })
    .catch((error) => {
      if (error instanceof UndoRefused) return { ok: false as const, refusal: error.refusal };
      throw error;
    });
}

class UndoRefused extends Error {
  constructor(readonly refusal: UndoRefusal) {
    super(`undo refused: ${refusal}`);
  }
}

/** This contact's merges that can still be undone, newest first. */
export async function undoableMerges(contactId: number, now = Date.now()) {
  const { db, schema } = getDb();
  const m = schema.contactMerges;
  const c = schema.contacts;
  const rows = await db
    .select({ id: m.id, mergedAt: m.mergedAt, fromUid: c.uid, fromName: c.name })
    .from(m)
    .innerJoin(c, eq(c.id, m.fromId))
    .where(and(eq(m.intoId, contactId), isNull(m.undoneAt), gt(m.mergedAt, now - UNDO_MS)))
    .orderBy(desc(m.mergedAt), desc(m.id))
    .limit(20);
  return rows.map((r) => ({ ...r, mergedAt: Number(r.mergedAt) }));
}

/** Where a merged contact's page goes: the contact it (or the one it went into) stands as now. */
export async function mergedTarget(mergedInto: number) {
  const { db, schema } = getDb();
  const c = schema.contacts;
  let id: number | null = mergedInto;
  // a short chain at most (A into B, B later into C); bounded against a cycle
  for (let hop = 0; hop < 10 && id !== null; hop++) {
    const [row]: { uid: string; mergedInto: number | null }[] = await db.select({ uid: c.uid, mergedInto: c.mergedInto }).from(c).where(eq(c.id, id));
    if (!row) return undefined;
    if (row.mergedInto === null) return row.uid;
    id = row.mergedInto;
  }
  return undefined;
}
