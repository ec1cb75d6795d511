// Customer analysis (spec sections 2 and 6: /customer_analysis, for client ids 2, 273, 408 or the
// Pro and Enterprise plans): the contacts who wrote in a range, put in segments by the emotion of
// their latest conversation (the AI's reading), the channels they used, how many conversations
// they had (volume) and where their latest one stands (outcome). Only conversations the viewer may
// read count; conversations not linked to a contact are counted apart.
import { and, asc, eq, gte, isNull, lt, ne } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";

export const VOLUMES = ["one", "few", "several", "many"] as const;
const volumeOf = (n: number) => (n <= 1 ? "one" : n <= 3 ? "few" : n <= 9 ? "several" : "many");
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

export async function customerSegments(reader: Reader, range: { from: number; to: number }, handle: DbHandle = getDb()): Promise<Segments> {
  const { db, schema } = handle;
  const t = schema.tickets;
  const ct = schema.contactTickets;
  const a = schema.aiTicketAnalysis;
  const inRange = and(gte(t.createdAt, range.from), lt(t.createdAt, range.to), ne(t.channel, "chat"), readableBy(reader));
  const [rows, unlinked] = await Promise.all([
    db
      .select({ contactId: ct.contactId, channel: t.channel, status: t.status, emotion: a.customerEmotion })
      .from(t)
      .innerJoin(ct, eq(ct.ticketId, t.id))
      .leftJoin(a, eq(a.ticketId, t.id))
      .where(inRange)
      .orderBy(asc(t.createdAt), asc(t.id)),
    db
      .select({ id: t.id })
      .from(t)
      .leftJoin(ct, eq(ct.ticketId, t.id))
      .where(and(inRange, isNull(ct.contactId))),
  ]);
  // one pass, oldest first: a contact's last row is their latest conversation
  const perContact = new Map<number, { n: number; channels: Set<string>; status: number; emotion: string }>();
  for (const r of rows) {
    const c = perContact.get(r.contactId) ?? { n: 0, channels: new Set<string>(), status: 0, emotion: "" };
    c.n++;
    c.channels.add(r.channel);
    c.status = r.status;
    c.emotion = r.emotion ?? "";
    perContact.set(r.contactId, c);
  }
  const out: Segments = {
    contacts: perContact.size,
    unlinked: unlinked.length,
    emotion: {},
    channel: {},
    volume: { one: 0, few: 0, several: 0, many: 0 },
    outcome: { open: 0, pending: 0, resolved: 0, closed: 0 },
  };
  for (const c of perContact.values()) {
    const emotion = c.emotion || "none";
    out.emotion[emotion] = (out.emotion[emotion] ?? 0) + 1;
    for (const ch of c.channels) out.channel[ch] = (out.channel[ch] ?? 0) + 1;
    out.volume[volumeOf(c.n)]++;
    out.outcome[OUTCOMES[c.status] ?? "open"]++;
  }
  return out;
}
