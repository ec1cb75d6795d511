// Text analysis of every message, in the background: a job of this plugin reads the messages no
// analysis row names yet (by id, a batch at a time), asks the AI service (service.server.ts) for
// each one's emotion, classification, context and personality, and writes the row and the
// ticket's roll-up in one transaction. Idempotent and restart-safe: what is done is the row (keyed
// by message id); a job that dies mid-batch leaves the rest for the next. Customers' messages
// drive the ticket's emotion (tickets.emotion, which the list's emotion filter reads), its counts
// (emotion_2) and its context; agents' messages give agentEmotion. After the commit, the pages that
// have the conversation open hear newEmotion and newContext.
import { and, desc, eq, gt, inArray, isNull, ne, sql } from "drizzle-orm";
import sanitizeHtml from "sanitize-html";
import { getDb, type DbHandle } from "@db/client";
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { toOpenPages } from "~/conversation/events.server";
import { SERVER_EVENTS } from "~/realtime-events";
import type { Analysis } from "./analyse";
import { analyse } from "./service.server";
import { aiSettings } from "./settings.server";
import { numbersOf } from "./scam";
import { matchReply } from "./feedback.server";

export const ANALYSE_JOB = "ai.analyse";
/** Messages read at a time. */
const BATCH = 50;
/** Messages one job reads before it hands over to the next (other kinds of job get their turn). */
const JOB_BUDGET = 1_000;
/** The spec's emotion threshold (0.5): weaker readings count in emotion_2 but do not name the ticket's emotion. */
export const THRESHOLD = 50;

type Pending = { id: number; ticketId: number; type: string; body: string; senderUserId: number | null };

/**
 * Messages with no analysis yet, after `after` by id: text of customers and agents, not of
 * workspace chats. Newest first: a message that just came in is read before an old backlog (a
 * fresh install's history), so its panel fills within seconds.
 */
export async function pendingMessages(after: number, limit: number, handle: DbHandle = getDb()): Promise<Pending[]> {
  const { db, schema } = handle;
  const m = schema.messages;
  const a = schema.aiMessageAnalysis;
  const t = schema.tickets;
  return db
    .select({ id: m.id, ticketId: m.ticketId, type: m.type, body: m.body, senderUserId: m.senderUserId })
    .from(m)
    .innerJoin(t, eq(t.id, m.ticketId))
    .leftJoin(a, eq(a.messageId, m.id))
    .where(and(gt(m.id, after), isNull(a.messageId), inArray(m.type, ["text", "text/html"]), ne(t.channel, "chat")))
    .orderBy(desc(m.id))
    .limit(limit);
}

/** The newest message id (the look's high-water mark when nothing is pending). */
export async function newestMessageId(handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const [row] = await db.select({ id: sql<number>`max(${schema.messages.id})` }).from(schema.messages);
  return Number(row?.id ?? 0);
}

export function plainText(m: Pick<Pending, "type" | "body">) {
  if (m.type !== "text/html") return m.body;
  return sanitizeHtml(m.body, { allowedTags: [], allowedAttributes: {} })
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}

/** A 0-1 reading as a whole percentage. */
export const pct = (n: number) => Math.max(0, Math.min(100, Math.round(n * 100)));

/** What toOpenPages needs to reach a ticket's open pages. */
export async function openPagesTarget(ticketId: number, handle: DbHandle = getDb()) {
  const t = handle.schema.tickets;
  const [ticket] = await handle.db
    .select({ id: t.id, ticketNumber: t.ticketNumber, departmentId: t.departmentId, kind: t.kind })
    .from(t)
    .where(eq(t.id, ticketId));
  return ticket;
}

/**
 * Queues the job that reads the messages after `after`, starting from `first` (the newest) (once per
 * starting message and ten minutes: a job that gave up is tried again later). The jobs take turns in
 * one lane: a look every two seconds queues another while one still works through a backlog, and
 * side by side they read the same pending messages newest first and analysed each two or three
 * times over (bench:channels: 24,939 analyses written for about 10,000 messages, the extra ones refused
 * as already there, each a transaction of its own).
 */
export async function queueAnalysis(first: number, after = 0, now = Date.now()) {
  await enqueue(undefined, {
    kind: ANALYSE_JOB,
    key: `${ANALYSE_JOB}:${first}:${Math.floor(now / 600_000)}`,
    payload: { after },
    runAt: now,
    lane: ANALYSE_JOB,
  });
  wakeJobs();
}

export function defineAnalyseJob() {
  defineJobKind(ANALYSE_JOB, {
    maxAttempts: 5,
    async run(payload) {
      const after = Number((payload as { after?: number })?.after ?? 0);
      for (let done = 0; done < JOB_BUDGET;) {
        const stored = await analysePending(after);
        if (!stored) break;
        done += stored;
      }
    },
  });
}

/** Reads a batch of pending messages after `after`; answers how many it stored. */
export async function analysePending(after: number, limit = BATCH, handle: DbHandle = getDb()): Promise<number> {
  const settings = await aiSettings();
  if (settings.adapter === "off") return 0;
  const pending = await pendingMessages(after, limit, handle);
  let stored = 0;
  for (const message of pending) {
    const answer = await analyse(plainText(message), settings);
    if (answer.state === "not_configured") return stored;
    const analysis =
      answer.state === "unavailable" ? { ...answer.analysis, analyser: `${answer.analysis.analyser} (fallback: ${answer.reason})` } : answer.analysis;
    if (!(await storeAnalysis(message, analysis, handle, Date.now(), plainText(message)))) continue;
    stored++;
    // an agent's reply: did it use or edit a recommendation offered for the customer's message?
    if (message.senderUserId !== null)
      await matchReply({ id: message.id, ticketId: message.ticketId, userId: message.senderUserId, text: plainText(message) }, Date.now(), handle);
  }
  return stored;
}

/** Writes one message's analysis and the ticket's roll-up; false when it was already there. */
export async function storeAnalysis(
  message: Pick<Pending, "id" | "ticketId" | "senderUserId">,
  analysis: Analysis,
  handle: DbHandle = getDb(),
  now = Date.now(),
  /** The message's text: a customer's phone numbers and bank accounts in it are kept for the scam hints. */
  text?: string,
) {
  const { schema } = handle;
  const fromCustomer = message.senderUserId === null;
  const emotions: Record<string, number> = {};
  for (const [k, v] of Object.entries(analysis.emotions)) emotions[k] = pct(v ?? 0);
  const rollup = await handle.transaction(async (tx) => {
    const inserted = await tx
      .insert(schema.aiMessageAnalysis)
      .values({
        messageId: message.id,
        ticketId: message.ticketId,
        fromCustomer,
        language: analysis.language,
        emotion: analysis.emotion,
        confidence: pct(analysis.confidence),
        emotions: JSON.stringify(emotions),
        classification: analysis.classification,
        classConfidence: pct(analysis.classConfidence),
        intent: analysis.context.intent,
        subject: analysis.context.subject.replace(/[^\p{L}\p{N} ,'-]/gu, "").slice(0, 200),
        personality: analysis.personality,
        degraded: analysis.degraded,
        truncated: analysis.truncated,
        analyser: analysis.analyser.slice(0, 200),
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: schema.aiMessageAnalysis.messageId });
    if (!inserted.length) return null;
    const numbers = fromCustomer && text ? numbersOf(text) : [];
    if (numbers.length)
      await tx
        .insert(schema.aiNumbers)
        .values(numbers.map((n) => ({ messageId: message.id, ticketId: message.ticketId, kind: n.kind, value: n.value })))
        .onConflictDoNothing();
    return rollUp(tx as unknown as DbHandle["db"], handle, message.ticketId, now);
  });
  if (!rollup) return false;
  if (fromCustomer) {
    const ticket = await openPagesTarget(message.ticketId, handle);
    if (ticket) {
      toOpenPages(ticket, SERVER_EVENTS.newEmotion, {
        messageId: message.id,
        emotion: analysis.emotion,
        confidence: pct(analysis.confidence),
        customerEmotion: rollup.customerEmotion,
        emotionCounts: rollup.emotionCounts,
      });
      toOpenPages(ticket, SERVER_EVENTS.newContext, {
        messageId: message.id,
        classification: analysis.classification,
        intent: analysis.context.intent,
        subject: analysis.context.subject,
        personality: analysis.personality,
      });
    }
  }
  return true;
}

/** Recomputes the ticket's roll-up from its messages' analyses (so a re-run or an out-of-order job lands the same). */
async function rollUp(tx: DbHandle["db"], handle: DbHandle, ticketId: number, now: number) {
  const { schema } = handle;
  const a = schema.aiMessageAnalysis;
  const counts = await tx
    .select({ emotion: a.emotion, n: sql<number>`count(*)` })
    .from(a)
    .where(and(eq(a.ticketId, ticketId), eq(a.fromCustomer, true), ne(a.emotion, "")))
    .groupBy(a.emotion);
  const emotionCounts: Record<string, number> = {};
  for (const c of counts) emotionCounts[c.emotion] = Number(c.n);
  const latest = (fromCustomer: boolean, strongOnly: boolean) =>
    tx
      .select()
      .from(a)
      .where(
        and(eq(a.ticketId, ticketId), eq(a.fromCustomer, fromCustomer), strongOnly ? sql`${a.confidence} >= ${THRESHOLD} AND ${a.emotion} <> ''` : undefined),
      )
      .orderBy(desc(a.messageId))
      .limit(1);
  const [lastCustomer] = await latest(true, false);
  const [strongCustomer] = await latest(true, true);
  const [strongAgent] = await latest(false, true);
  // a side with no message read yet keeps what a call's voice analysis found for it (voice-call.server.ts)
  const customer = lastCustomer && {
    emotionCounts: JSON.stringify(emotionCounts),
    customerEmotion: strongCustomer?.emotion ?? "",
    customerConfidence: strongCustomer?.confidence ?? 0,
    classification: lastCustomer.classification,
    intent: lastCustomer.intent,
    subject: lastCustomer.subject,
    personality: lastCustomer.personality,
    language: lastCustomer.language,
    degraded: lastCustomer.degraded,
    truncated: lastCustomer.truncated,
  };
  const row = { ...customer, ...(strongAgent ? { agentEmotion: strongAgent.emotion } : {}), updatedAt: now };
  const t = schema.aiTicketAnalysis;
  const [stored] = await tx
    .insert(t)
    .values({ ticketId, ...row })
    .onConflictDoUpdate({ target: t.ticketId, set: row })
    .returning({ customerEmotion: t.customerEmotion, emotionCounts: t.emotionCounts });
  if (customer) await tx.update(schema.tickets).set({ emotion: customer.customerEmotion }).where(eq(schema.tickets.id, ticketId));
  return { customerEmotion: stored.customerEmotion, emotionCounts: JSON.parse(stored.emotionCounts) as Record<string, number> };
}

/** What the panels show of a ticket. */
export async function ticketAnalysis(ticketId: number, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const [row] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, ticketId));
  if (!row) return null;
  const [last] = await db
    .select({ analyser: schema.aiMessageAnalysis.analyser, confidence: schema.aiMessageAnalysis.confidence, emotion: schema.aiMessageAnalysis.emotion })
    .from(schema.aiMessageAnalysis)
    .where(and(eq(schema.aiMessageAnalysis.ticketId, ticketId), eq(schema.aiMessageAnalysis.fromCustomer, true)))
    .orderBy(desc(schema.aiMessageAnalysis.messageId))
    .limit(1);
  return { ...row, emotionCounts: JSON.parse(row.emotionCounts) as Record<string, number>, last: last ?? null };
}
