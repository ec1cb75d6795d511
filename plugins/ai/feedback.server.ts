// What agents do with reply recommendations (spec section 3, issue 21 Deliver 3): each
// recommendation shown is kept as offered (per customer message and kind, with its draft); the
// agent dismisses one with the panel's Dismiss form, or the next reply they send is compared with
// the drafts: a reply that carries a draft whole "used" it, one that keeps most of its words
// "edited" it. Nothing is asked of the browser, so it counts the same with and without JavaScript.
// /ai_learning shows acceptance per kind per week (acceptanceByWeek).
import { and, desc, eq, gte, lt, ne, sql } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { offsetSpans, zonedDayStart, zoneOffset } from "~/time";
import { KINDS, type Kind } from "./recommend";

export const OUTCOMES = ["used", "edited", "dismissed"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const isKind = (v: unknown): v is Kind => KINDS.includes(v as Kind);

/** A reply keeping this share of a draft's words (and not the whole draft) edited it. */
export const EDITED_SHARE = 0.5;
export const WEEK = 7 * 86_400_000;
/** 1970-01-01 was a Thursday: weeks start on Mondays, 4 days later. */
export const MONDAY = 4 * 86_400_000;

/**
 * A time column's week number in the workspace's zone (weeks start on its Mondays at 00:00), for
 * grouping in SQL: the local time is the column plus the zone's offset, and where the offset
 * changes within the range (daylight saving) a CASE picks each span's. Constants are inlined:
 * PostgreSQL matches GROUP BY to the select only when they are the same text.
 */
export function weekNumber(column: unknown, from: number, to: number, timeZone: string) {
  const n = (v: number) => sql.raw(String(v));
  const local = (offset: number) => sql`((${column} + ${n(offset - MONDAY)}) / ${n(WEEK)})`;
  const spans = offsetSpans(from, to, timeZone);
  if (spans.length === 1) return sql<number>`${local(spans[0].offset)}`;
  const whens = spans.slice(0, -1).map((s) => sql`when ${column} < ${n(s.until)} then ${local(s.offset)}`);
  return sql<number>`(case ${sql.join(whens, sql` `)} else ${local(spans[spans.length - 1].offset)} end)`;
}

/** The instant week `week` (a weekNumber) starts: its Monday's 00:00 in `timeZone`. */
export const weekStart = (week: number, timeZone: string) => zonedDayStart(new Date(week * WEEK + MONDAY).toISOString().slice(0, 10), timeZone);

/** The start of the week holding `at`: its Monday's 00:00 in `timeZone`. */
export const weekOf = (at: number, timeZone: string) => weekStart(Math.floor((at + zoneOffset(at, timeZone) - MONDAY) / WEEK), timeZone);

/** Keeps the drafts shown for a customer's message; a draft nobody acted on yet follows what was shown last. */
export async function recordOffers(
  ticketId: number,
  messageId: number,
  offers: { kind: Kind; whatToSay: string }[],
  now = Date.now(),
  handle: DbHandle = getDb(),
) {
  if (!offers.length) return;
  const { db, schema } = handle;
  const f = schema.aiRecommendationFeedback;
  await db
    .insert(f)
    .values(offers.map((o) => ({ ticketId, messageId, kind: o.kind, draft: o.whatToSay.slice(0, 4000), offeredAt: now })))
    .onConflictDoUpdate({ target: [f.messageId, f.kind], set: { draft: sql`excluded.draft` }, setWhere: eq(f.outcome, "") });
}

/** The agent dismissed one recommendation (a decided one stays as it was). Answers whether it was on offer. */
export async function dismiss(input: { ticketId: number; messageId: number; kind: Kind; userId: number }, now = Date.now(), handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const f = schema.aiRecommendationFeedback;
  const done = await db
    .update(f)
    .set({ outcome: "dismissed", userId: input.userId, decidedAt: now })
    .where(and(eq(f.ticketId, input.ticketId), eq(f.messageId, input.messageId), eq(f.kind, input.kind), eq(f.outcome, "")))
    .returning({ id: f.id });
  return done.length > 0;
}

/** Kinds dismissed for a customer's message (the panel leaves them out). */
export async function dismissedKinds(messageId: number, handle: DbHandle = getDb()): Promise<Set<string>> {
  const { db, schema } = handle;
  const f = schema.aiRecommendationFeedback;
  const rows = await db
    .select({ kind: f.kind })
    .from(f)
    .where(and(eq(f.messageId, messageId), eq(f.outcome, "dismissed")));
  return new Set(rows.map((r) => r.kind));
}

const words = (text: string) => new Set((text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => w.length >= 3));
const squash = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/** How a sent reply relates to a draft: carried whole, mostly kept, or not at all. */
export function compareReply(reply: string, draft: string): Outcome | null {
  const d = squash(draft);
  if (!d) return null;
  if (squash(reply).includes(d)) return "used";
  const want = words(draft);
  if (want.size < 3) return null;
  const have = words(reply);
  let kept = 0;
  for (const w of want) if (have.has(w)) kept++;
  return kept / want.size >= EDITED_SHARE ? "edited" : null;
}

/**
 * An agent's reply: the open offers of the conversation's latest customer message before it are
 * compared with it; the best match is marked used or edited (a reply answers with one draft).
 * Idempotent: a decided offer is never changed again.
 */
export async function matchReply(reply: { id: number; ticketId: number; userId: number | null; text: string }, now = Date.now(), handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const f = schema.aiRecommendationFeedback;
  const [latest] = await db
    .select({ messageId: f.messageId })
    .from(f)
    .where(and(eq(f.ticketId, reply.ticketId), lt(f.messageId, reply.id)))
    .orderBy(desc(f.messageId))
    .limit(1);
  if (!latest) return null;
  const open = await db
    .select({ id: f.id, kind: f.kind, draft: f.draft })
    .from(f)
    .where(and(eq(f.messageId, latest.messageId), eq(f.outcome, "")));
  let best: { id: number; kind: string; outcome: Outcome } | null = null;
  for (const o of open) {
    const outcome = compareReply(reply.text, o.draft);
    if (outcome && (!best || (best.outcome === "edited" && outcome === "used"))) best = { id: o.id, kind: o.kind, outcome };
  }
  if (!best) return null;
  await db
    .update(f)
    .set({ outcome: best.outcome, userId: reply.userId, replyMessageId: reply.id, decidedAt: now })
    .where(and(eq(f.id, best.id), eq(f.outcome, "")));
  return { kind: best.kind, outcome: best.outcome };
}

export interface WeekAcceptance {
  week: number;
  kind: Kind;
  used: number;
  edited: number;
  dismissed: number;
  /** Used or edited, of all decided: 0..1, null when none was decided. */
  acceptance: number | null;
}

/** Acceptance per kind per week of decision (the workspace's weeks), from `from` to `to` (ms), oldest first. */
export async function acceptanceByWeek(from: number, to: number, timeZone: string, handle: DbHandle = getDb()): Promise<WeekAcceptance[]> {
  const { db, schema } = handle;
  const f = schema.aiRecommendationFeedback;
  const week = weekNumber(f.decidedAt, from, to, timeZone);
  const rows = await db
    .select({ week, kind: f.kind, outcome: f.outcome, n: sql<number>`count(*)` })
    .from(f)
    .where(and(ne(f.outcome, ""), gte(f.decidedAt, from), lt(f.decidedAt, to)))
    .groupBy(week, f.kind, f.outcome);
  const byKey = new Map<string, WeekAcceptance>();
  for (const r of rows) {
    if (!isKind(r.kind)) continue;
    const start = weekStart(Number(r.week), timeZone);
    const key = `${start}|${r.kind}`;
    const entry = byKey.get(key) ?? { week: start, kind: r.kind, used: 0, edited: 0, dismissed: 0, acceptance: null };
    if ((OUTCOMES as readonly string[]).includes(r.outcome)) entry[r.outcome as Outcome] += Number(r.n);
    byKey.set(key, entry);
  }
  const out = [...byKey.values()].sort((a, b) => a.week - b.week || KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
  for (const e of out) {
    const decided = e.used + e.edited + e.dismissed;
    e.acceptance = decided ? (e.used + e.edited) / decided : null;
  }
  return out;
}
