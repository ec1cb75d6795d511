// What customers ask about (spec section 2, /analyst_intelligence): the AI's classification and
// context (intent) of each conversation (ai_ticket_analysis, the ticket's roll-up), counted over a
// range of days, week by week, and the conversations behind each count. Every query is limited to
// what the reader may read (readableBy), so a drill-down never shows a conversation the viewer
// could not open; the pages are admin only on the trading edition (guard.server.ts).
import { and, desc, eq, gte, lt, ne, sql } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { weekNumber, weekStart } from "@plugins/ai/feedback.server";

export interface Range {
  from: number;
  to: number;
}

/** Conversations (not workspace chats) created in the range that the reader may read, with their analysis. */
function analysed(handle: DbHandle, reader: Reader, range: Range) {
  const { schema } = handle;
  const t = schema.tickets;
  return and(gte(t.createdAt, range.from), lt(t.createdAt, range.to), ne(t.channel, "chat"), readableBy(reader));
}

/** Conversations per classification and per intent in the range. */
export async function topicCounts(reader: Reader, range: Range, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const t = schema.tickets;
  const a = schema.aiTicketAnalysis;
  const count = sql<number>`count(*)`;
  const [classes, intents] = await Promise.all([
    db
      .select({ key: a.classification, n: count })
      .from(a)
      .innerJoin(t, eq(t.id, a.ticketId))
      .where(and(analysed(handle, reader, range), ne(a.classification, "")))
      .groupBy(a.classification),
    db
      .select({ key: a.intent, n: count })
      .from(a)
      .innerJoin(t, eq(t.id, a.ticketId))
      .where(and(analysed(handle, reader, range), ne(a.intent, "")))
      .groupBy(a.intent),
  ]);
  const sorted = (rows: { key: string; n: number }[]) =>
    rows.map((r) => ({ key: r.key, count: Number(r.n) })).sort((x, y) => y.count - x.count || x.key.localeCompare(y.key));
  return { classes: sorted(classes), intents: sorted(intents) };
}

/** Conversations per week (the workspace's weeks, by creation) and classification, oldest first. */
export async function topicTrend(reader: Reader, range: Range, timeZone: string, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const t = schema.tickets;
  const a = schema.aiTicketAnalysis;
  const week = weekNumber(t.createdAt, range.from, range.to, timeZone);
  const rows = await db
    .select({ week, key: a.classification, n: sql<number>`count(*)` })
    .from(a)
    .innerJoin(t, eq(t.id, a.ticketId))
    .where(and(analysed(handle, reader, range), ne(a.classification, "")))
    .groupBy(week, a.classification);
  return rows
    .map((r) => ({ week: weekStart(Number(r.week), timeZone), key: r.key, count: Number(r.n) }))
    .sort((x, y) => x.week - y.week || x.key.localeCompare(y.key));
}

export const PAGE = 30;

/** The conversations behind a count: newest first, a page of 30 (and whether there are more). */
export async function conversationsAbout(
  reader: Reader,
  filter: { classification?: string; intent?: string; emotion?: string },
  range: Range,
  offset = 0,
  handle: DbHandle = getDb(),
) {
  const { db, schema } = handle;
  const t = schema.tickets;
  const a = schema.aiTicketAnalysis;
  const rows = await db
    .select({
      ticketNumber: t.ticketNumber,
      kind: t.kind,
      channel: t.channel,
      title: t.title,
      status: t.status,
      createdAt: t.createdAt,
      classification: a.classification,
      intent: a.intent,
      emotion: a.customerEmotion,
    })
    .from(a)
    .innerJoin(t, eq(t.id, a.ticketId))
    .where(
      and(
        analysed(handle, reader, range),
        filter.classification ? eq(a.classification, filter.classification) : undefined,
        filter.intent ? eq(a.intent, filter.intent) : undefined,
        filter.emotion ? eq(a.customerEmotion, filter.emotion) : undefined,
      ),
    )
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(PAGE + 1)
    .offset(offset);
  return { items: rows.slice(0, PAGE), more: rows.length > PAGE };
}

/** One conversation's readings, message by message (the drill-down's last step): null when it is not there or not readable. */
export async function conversationInsight(reader: Reader, kind: string, ticketNumber: number, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const t = schema.tickets;
  const [ticket] = await db
    .select({ id: t.id, ticketNumber: t.ticketNumber, kind: t.kind, channel: t.channel, title: t.title, status: t.status, createdAt: t.createdAt })
    .from(t)
    .where(and(eq(t.ticketNumber, ticketNumber), eq(t.kind, kind), ne(t.channel, "chat"), readableBy(reader)));
  if (!ticket) return null;
  const m = schema.aiMessageAnalysis;
  const [rollup] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, ticket.id));
  const [label] = await db.select().from(schema.aiTicketLabels).where(eq(schema.aiTicketLabels.ticketId, ticket.id));
  const readings = await db
    .select({
      messageId: m.messageId,
      fromCustomer: m.fromCustomer,
      emotion: m.emotion,
      confidence: m.confidence,
      classification: m.classification,
      intent: m.intent,
      subject: m.subject,
      createdAt: schema.messages.createdAt,
    })
    .from(m)
    .innerJoin(schema.messages, eq(schema.messages.id, m.messageId))
    .where(eq(m.ticketId, ticket.id))
    .orderBy(m.messageId)
    .limit(200);
  const alerts = await db
    .select({ keyword: schema.tradeAlertRules.keyword, messageId: schema.tradeAlertHits.messageId })
    .from(schema.tradeAlertHits)
    .innerJoin(schema.tradeAlertRules, eq(schema.tradeAlertRules.id, schema.tradeAlertHits.ruleId))
    .where(eq(schema.tradeAlertHits.ticketId, ticket.id));
  return {
    ticket,
    rollup: rollup ? { customerEmotion: rollup.customerEmotion, classification: rollup.classification, intent: rollup.intent, subject: rollup.subject } : null,
    label: label ? { emotion: label.emotion, classification: label.classification } : null,
    readings,
    alerts,
  };
}
