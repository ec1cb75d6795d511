// Customer analysis (spec sections 2 and 6: /customer_analysis, for client ids 2, 273, 408 or the
// Pro and Enterprise plans): the contacts who wrote in a range, put in segments by the emotion of
// their latest conversation (the AI's reading), the channels they used, how many conversations
// they had (volume) and where their latest one stands (outcome). Only conversations the viewer may
// read count; conversations not linked to a contact are counted apart.
import { and, eq, gte, isNull, lt, ne, sql } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";

export const VOLUMES = ["one", "few", "several", "many"] as const;
/** Spec section 4's statuses as outcomes: still open (0), waiting (1), resolved (2), closed (3). */
export const OUTCOMES = ["open", "pending", "resolved", "closed"] as const;

export interface Segments {
  contacts: number;
  unlinked: number;
  emotion: Record<string, number>;
  channel: Record<string, number>;
  volume: Record<(typeof VOLUMES)[number], number>;
  outcome: Record<(typeof OUTCOMES)[number], number>;
}

/**
 * Counted in the database (both dialects): each contact's conversations of the range numbered newest
 * first, so the contact's latest one (its emotion and outcome) and how many they had are one row;
 * only the few segment counts come back, however many contacts wrote.
 */
export async function customerSegments(reader: Reader, range: { from: number; to: number }, handle: DbHandle = getDb()): Promise<Segments> {
  const { db, schema } = handle;
  const t = schema.tickets;
  const ct = schema.contactTickets;
  const a = schema.aiTicketAnalysis;
  const inRange = and(gte(t.createdAt, range.from), lt(t.createdAt, range.to), ne(t.channel, "chat"), readableBy(reader));
  const r = db
    .select({
      contactId: ct.contactId,
      channel: t.channel,
      status: t.status,
      emotion: sql<string>`coalesce(${a.customerEmotion}, '')`.as("emotion"),
      latest: sql<number>`row_number() over (partition by ${ct.contactId} order by ${t.createdAt} desc, ${t.id} desc)`.as("latest"),
      n: sql<number>`count(*) over (partition by ${ct.contactId})`.as("n"),
    })
    .from(t)
    .innerJoin(ct, eq(ct.ticketId, t.id))
    .leftJoin(a, eq(a.ticketId, t.id))
    .where(inRange)
    .as("r");
  // the bounds are in the text, not parameters: PostgreSQL matches GROUP BY to the select by its text
  const volume = sql<string>`case when ${r.n} <= 1 then 'one' when ${r.n} <= 3 then 'few' when ${r.n} <= 9 then 'several' else 'many' end`;
  const [latest, channels, [unlinked]] = await Promise.all([
    db
      .select({ emotion: r.emotion, status: r.status, volume, n: sql<number>`count(*)` })
      .from(r)
      .where(eq(r.latest, 1))
      .groupBy(sql`${r.emotion}`, r.status, volume),
    db
      .select({ channel: r.channel, n: sql<number>`count(distinct ${r.contactId})` })
      .from(r)
      .groupBy(r.channel),
    db
      .select({ n: sql<number>`count(*)` })
      .from(t)
      .leftJoin(ct, eq(ct.ticketId, t.id))
      .where(and(inRange, isNull(ct.contactId))),
  ]);
  const out: Segments = {
    contacts: 0,
    unlinked: Number(unlinked?.n ?? 0),
    emotion: {},
    channel: {},
    volume: { one: 0, few: 0, several: 0, many: 0 },
    outcome: { open: 0, pending: 0, resolved: 0, closed: 0 },
  };
  for (const row of latest) {
    const n = Number(row.n);
    const emotion = row.emotion || "none";
    out.contacts += n;
    out.emotion[emotion] = (out.emotion[emotion] ?? 0) + n;
    out.volume[row.volume as (typeof VOLUMES)[number]] += n;
    out.outcome[OUTCOMES[Number(row.status)] ?? "open"] += n;
  }
  for (const row of channels) out.channel[row.channel] = Number(row.n);
  return out;
}
