// The agent's final label of a conversation (emotion and classification), set on /ai/label/{kind}/{n}
// from the Emotion panel. What the AI predicted at that moment (the ticket's roll-up) is kept beside
// it, so the prediction validator compares like with like even after more messages arrive.
import { and, eq, gte, lt, sql, type SQLWrapper } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { CLASSES, EMOTIONS } from "./analyse";
import { weekNumber, weekStart } from "./feedback.server";

export const isEmotion = (v: unknown): v is (typeof EMOTIONS)[number] => EMOTIONS.includes(v as (typeof EMOTIONS)[number]);
export const isClassification = (v: unknown): v is (typeof CLASSES)[number] => CLASSES.includes(v as (typeof CLASSES)[number]);

export async function finalLabel(ticketId: number, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const [row] = await db.select().from(schema.aiTicketLabels).where(eq(schema.aiTicketLabels.ticketId, ticketId));
  return row ?? null;
}

/** Sets the agent's label ("" leaves a part unlabelled) beside the AI's current prediction. */
export async function setFinalLabel(
  input: { ticketId: number; userId: number; emotion: string; classification: string },
  now = Date.now(),
  handle: DbHandle = getDb(),
) {
  const { db, schema } = handle;
  const [predicted] = await db
    .select({ emotion: schema.aiTicketAnalysis.customerEmotion, classification: schema.aiTicketAnalysis.classification })
    .from(schema.aiTicketAnalysis)
    .where(eq(schema.aiTicketAnalysis.ticketId, input.ticketId));
  const row = {
    emotion: input.emotion,
    classification: input.classification,
    predictedEmotion: predicted?.emotion ?? "",
    predictedClassification: predicted?.classification ?? "",
    userId: input.userId,
    labelledAt: now,
  };
  const l = schema.aiTicketLabels;
  await db
    .insert(l)
    .values({ ticketId: input.ticketId, ...row })
    .onConflictDoUpdate({ target: l.ticketId, set: row });
  return row;
}

export interface WeekAccuracy {
  week: number;
  /** Labels with both an agent's and a predicted emotion, and how many agreed. */
  emotionCompared: number;
  emotionMatched: number;
  classCompared: number;
  classMatched: number;
}

/** Per week of labelling (the workspace's weeks), from `from` to `to` (ms): how often the prediction matched the agent's label. */
export async function accuracyByWeek(from: number, to: number, timeZone: string, handle: DbHandle = getDb()): Promise<WeekAccuracy[]> {
  const { db, schema } = handle;
  const l = schema.aiTicketLabels;
  const week = weekNumber(l.labelledAt, from, to, timeZone);
  const both = (a: SQLWrapper, b: SQLWrapper) => sql<number>`sum(case when ${a} <> '' and ${b} <> '' then 1 else 0 end)`;
  const same = (a: SQLWrapper, b: SQLWrapper) => sql<number>`sum(case when ${a} <> '' and ${a} = ${b} then 1 else 0 end)`;
  const rows = await db
    .select({
      week,
      emotionCompared: both(l.emotion, l.predictedEmotion),
      emotionMatched: same(l.emotion, l.predictedEmotion),
      classCompared: both(l.classification, l.predictedClassification),
      classMatched: same(l.classification, l.predictedClassification),
    })
    .from(l)
    .where(and(gte(l.labelledAt, from), lt(l.labelledAt, to), sql`(${l.emotion} <> '' or ${l.classification} <> '')`))
    .groupBy(week)
    .orderBy(week);
  return rows.map((r) => ({
    week: weekStart(Number(r.week), timeZone),
    emotionCompared: Number(r.emotionCompared),
    emotionMatched: Number(r.emotionMatched),
    classCompared: Number(r.classCompared),
    classMatched: Number(r.classMatched),
  }));
}
