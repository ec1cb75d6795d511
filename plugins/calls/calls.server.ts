// Calls as the SIP server reports them (POST /hooks/sip/event from Kamailio's routes, sip/kamailio.cfg):
// each call makes a CALL ticket in the shared conversation home (so notes, labels, participants,
// reports and search work on it unchanged) and one `calls` row beside it with what spec section 3
// asks of a call ticket: direction, DID, the caller's number, the agent, ring / talk / hold / ACW
// durations and the hang-up cause. An event is stored (in one transaction) before Kamailio gets its
// 200; every event is keyed by the SIP Call-ID and moves the call only forward, so a repeated or
// late event changes nothing. A call to an agent that ends unanswered (no answer, cancelled by the
// caller, busy) is a missed call: the agent gets a "call_missed" notification in the same transaction.
import { and, desc, eq, gte, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { receive } from "~/conversation/receive.server";
import { touch, FROM_OUTSIDE } from "~/conversation/model.server";
import { addNotification, told } from "~/conversation/notifications.server";
import { getSettings } from "~/models/settings.server";
import { startOfDay } from "~/time";
import { wakeJobs } from "~/jobs/queue.server";
import { queueRecording } from "./recording.server";
import { sameSecret, sipHookSecret } from "./sip.server";

/** Spec section 9: the call list's page size. */
export const CALL_PAGE_SIZE = 30;

export const DIRECTIONS = ["inbound", "outbound", "internal"] as const;
export type Direction = (typeof DIRECTIONS)[number];

const number = z
  .string()
  .trim()
  .regex(/^\+?[\d*#]{1,32}$/);

/** What Kamailio posts: one event of one call (the SIP Call-ID). */
export const callEventSchema = z.discriminatedUnion("event", [
  /** Kamailio (re)started: the dialogs it held are gone, so are their calls */
  z.object({ event: z.literal("restart") }),
  z.object({ event: z.literal("invite"), call_id: z.string().min(1).max(255), from: number, to: number }),
  z.object({ event: z.literal("answer"), call_id: z.string().min(1).max(255) }),
  z.object({ event: z.literal("hold"), call_id: z.string().min(1).max(255) }),
  z.object({ event: z.literal("resume"), call_id: z.string().min(1).max(255) }),
  z.object({
    event: z.literal("end"),
    call_id: z.string().min(1).max(255),
    /** the SIP status that ended it: 200 for a BYE, else the INVITE's final failure */
    code: z.coerce.number().int().min(100).max(699),
    /** who sent the BYE (their number) */
    by: z.string().trim().max(32).optional().default(""),
  }),
]);
export type CallEvent = z.input<typeof callEventSchema>;

/** The hang-up cause of a call that ended with this SIP status. */
export function causeOf(code: number, answered: boolean) {
  if (answered || code === 200) return "normal";
  if (code === 486 || code === 600) return "busy";
  if (code === 487) return "cancelled";
  if (code === 603) return "declined";
  if (code === 408 || code === 480) return "no_answer";
  if (code === 404 || code === 484) return "not_found";
  return "failed";
}

/** A number as the product keeps it: an extension as dialled, an outside number in E.164 (+ and digits). */
export function normaliseNumber(raw: string, isExtension: boolean) {
  const digits = raw.replace(/[^\d+*#]/g, "");
  if (isExtension) return digits;
  if (digits.startsWith("+")) return `+${digits.slice(1).replace(/\D/g, "")}`;
  if (digits.startsWith("00")) return `+${digits.slice(2)}`;
  return `+${digits}`;
}

type CallRow = typeof import("@db/schema/sqlite").calls.$inferSelect;

async function agentsOf(numbers: string[]) {
  const { db, schema } = getDb();
  return db
    .select({ userId: schema.sipAccounts.userId, sipNumber: schema.sipAccounts.sipNumber, departmentId: schema.users.departmentId, name: schema.users.name })
    .from(schema.sipAccounts)
    .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
    .where(inArray(schema.sipAccounts.sipNumber, numbers));
}

/** Kamailio's event hook: 403 without the shared secret, 400 for what is not an event, else stored (200). */
export async function sipEventHook(secret: string, form: URLSearchParams, at = Date.now()): Promise<{ status: number; body: string }> {
  if (!sameSecret(secret, sipHookSecret())) return { status: 403, body: "forbidden" };
  const parsed = callEventSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) return { status: 400, body: "bad event" };
  await recordCallEvent(parsed.data, at);
  return { status: 200, body: "stored" };
}

/** Hang-up causes that make an unanswered call to an agent a missed one (a decline is the agent's own choice). */
export const MISSED_CAUSES = ["no_answer", "cancelled", "busy"];

/** Whether an ended call is one its agent missed: inbound or internal to them, never answered, given up or busy. */
export function isMissed(call: Pick<CallRow, "direction" | "agentUserId" | "answeredAt" | "hangupCause">) {
  return call.direction !== "outbound" && call.agentUserId != null && call.answeredAt == null && MISSED_CAUSES.includes(call.hangupCause ?? "");
}

/** Stores one event of a call (see the file's head); the call's row after it, or null for an unknown call. */
export async function recordCallEvent(event: CallEvent, at = Date.now()): Promise<CallRow | null> {
  if (event.event === "restart") {
    await closeOrphanedCalls("server_restart", at);
    return null;
  }
  if (event.event === "invite") return startCall(event, at);
  const handle = getDb();
  const { schema } = handle;
  const c = schema.calls;
  let missedBy: number | null = null;
  let queued = false;
  const row = await handle.transaction(async (tx) => {
    const [call] = await tx.select().from(c).where(eq(c.sipCallId, event.call_id));
    if (!call || call.state === "ended") return call ?? null;
    let set: Partial<CallRow> | null = null;
    if (event.event === "answer" && call.state === "ringing") set = { state: "talking", answeredAt: at };
    else if (event.event === "hold" && call.state === "talking") set = { state: "held", heldAt: at };
    else if (event.event === "resume" && call.state === "held")
      set = { state: "talking", heldAt: null, holdMs: call.holdMs + Math.max(0, at - (call.heldAt ?? at)) };
    else if (event.event === "end") {
      const answered = call.answeredAt != null;
      set = {
        state: "ended",
        endedAt: at,
        heldAt: null,
        holdMs: call.holdMs + (call.state === "held" ? Math.max(0, at - (call.heldAt ?? at)) : 0),
        hangupCause: causeOf(event.code, answered),
        hangupBy: answered ? (event.by ?? "") : "",
      };
    }
    if (!set) return call;
    const [after] = await tx.update(c).set(set).where(eq(c.id, call.id)).returning();
    await touch(tx, call.ticketId, FROM_OUTSIDE, at);
    // an answered call was recorded by rtpengine: its file is made after hang-up (recording.server.ts)
    if (after.state === "ended" && after.answeredAt != null) {
      await queueRecording(tx, after.id, at);
      queued = true;
    }
    // a missed call: its agent hears of it (the host's notification model, in this transaction)
    if (isMissed(after)) {
      const t = schema.tickets;
      const [ticket] = await tx.select({ ticketNumber: t.ticketNumber, kind: t.kind, title: t.title }).from(t).where(eq(t.id, call.ticketId));
      await addNotification(
        tx,
        {
          userId: after.agentUserId!,
          type: "call_missed",
          channel: ticket.kind,
          ticketNumber: ticket.ticketNumber,
          title: ticket.title,
          body: after.fromNumber,
        },
        at,
      );
      missedBy = after.agentUserId;
    }
    return after;
  });
  if (missedBy != null) told(missedBy, "system");
  if (queued) wakeJobs();
  return row;
}

async function startCall(event: Extract<CallEvent, { event: "invite" }>, at: number) {
  const handle = getDb();
  const { schema } = handle;
  const [known] = await handle.db.select().from(schema.calls).where(eq(schema.calls.sipCallId, event.call_id));
  if (known) return known;
  const agents = await agentsOf([event.from, event.to]);
  const caller = agents.find((a) => a.sipNumber === event.from);
  const callee = agents.find((a) => a.sipNumber === event.to);
  const direction: Direction = caller && callee ? "internal" : callee ? "inbound" : "outbound";
  const agent = direction === "outbound" ? caller : callee;
  const from = normaliseNumber(event.from, Boolean(caller));
  const to = normaliseNumber(event.to, Boolean(callee));
  let row: CallRow | null = null;
  try {
    await receive({
      ticket: {
        channel: "CALL",
        title: `${from} → ${to}`,
        contactName: caller && direction !== "internal" ? "" : from,
        contactEmail: "",
        contactPhone: direction === "inbound" ? from : direction === "outbound" ? to : "",
        departmentId: agent?.departmentId ?? null,
        receiverEmail: "",
        channelAccountId: null,
        ref: event.call_id,
      },
      message: { body: `${from} → ${to}`, type: "text", senderName: from },
      files: [],
      at,
      inTransaction: async (tx, { ticket }) => {
        [row] = await tx
          .insert(schema.calls)
          .values({
            ticketId: ticket.id,
            sipCallId: event.call_id,
            direction,
            did: direction === "inbound" ? to : "",
            fromNumber: from,
            toNumber: to,
            agentUserId: agent?.userId ?? null,
            startedAt: at,
          })
          .returning();
        // the agents on the call read it (and its notes) whatever their department
        const people = [...new Map([caller, callee].filter((a): a is NonNullable<typeof a> => Boolean(a)).map((a) => [a.userId, a])).values()];
        if (people.length)
          await tx
            .insert(schema.participants)
            .values(
              people.map((p) => ({
                ticketId: ticket.id,
                userId: p.userId,
                assignee: p.userId === agent?.userId,
                unread: false,
                kind: ticket.kind,
                addedAt: at,
              })),
            )
            .onConflictDoNothing();
      },
    });
  } catch (error) {
    // the same INVITE reported twice at once: the unique Call-ID kept the first
    const [again] = await handle.db.select().from(schema.calls).where(eq(schema.calls.sipCallId, event.call_id));
    if (again) return again;
    throw error;
  }
  return row;
}

/** After-call work the agent's softphone reports for its own ended call (seconds, at most the workspace's acw_seconds). */
export async function recordAfterCallWork(userId: number, sipCallId: string, seconds: number) {
  const { acw_seconds } = await getSettings();
  const limit = Number(acw_seconds) || 0;
  const ms = Math.round(Math.min(Math.max(0, seconds), limit) * 1000);
  const handle = getDb();
  const c = handle.schema.calls;
  const done = await handle.db
    .update(c)
    .set({ acwMs: ms })
    .where(and(eq(c.sipCallId, sipCallId), eq(c.agentUserId, userId), eq(c.state, "ended"), isNull(c.acwMs)))
    .returning({ id: c.id });
  return done.length === 1;
}

/** Durations of a call in whole seconds (ring: until answered or given up; talk: answered to end, less hold). */
export function durations(call: Pick<CallRow, "startedAt" | "answeredAt" | "endedAt" | "holdMs" | "heldAt" | "acwMs">, now = Date.now()) {
  const end = call.endedAt ?? now;
  const heldNow = call.heldAt != null ? Math.max(0, end - call.heldAt) : 0;
  const hold = call.holdMs + heldNow;
  const ring = (call.answeredAt ?? end) - call.startedAt;
  const talk = call.answeredAt != null ? Math.max(0, end - call.answeredAt - hold) : 0;
  const s = (ms: number) => Math.max(0, Math.round(ms / 1000));
  return { ring: s(ring), talk: s(talk), hold: s(hold), acw: call.acwMs == null ? null : s(call.acwMs) };
}

export const callFilterSchema = z.object({
  direction: z.enum(DIRECTIONS).optional().catch(undefined),
  number: z
    .string()
    .trim()
    .max(32)
    .transform((v) => v.replace(/[^\d+*#]/g, ""))
    .optional()
    .catch(undefined),
  from: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .catch(undefined),
  to: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional()
    .catch(undefined),
  page: z.coerce.number().int().min(1).max(100000).optional().catch(undefined),
});
export type CallFilter = z.infer<typeof callFilterSchema>;

/** Midnight of a yyyy-mm-dd day in the workspace's time zone, as epoch ms (noon UTC lies in that day for offsets up to ±12 h). */
const dayStart = (day: string, timeZone: string) => startOfDay(Date.parse(`${day}T12:00:00Z`), timeZone);

/** The calls the reader may read (their tickets' access), newest first, paged by 30, with the spec's filters. */
export async function listCalls(reader: Reader, filter: CallFilter, timeZone: string, opts: { ongoing?: boolean } = {}) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const t = schema.tickets;
  const where: (SQL | undefined)[] = [readableBy(reader)];
  if (opts.ongoing) where.push(inArray(c.state, ["ringing", "talking", "held"]));
  if (filter.direction) where.push(eq(c.direction, filter.direction));
  if (filter.number) where.push(or(sql`${c.fromNumber} like ${`%${filter.number}%`}`, sql`${c.toNumber} like ${`%${filter.number}%`}`));
  if (filter.from) where.push(gte(c.startedAt, dayStart(filter.from, timeZone)));
  if (filter.to) where.push(lt(c.startedAt, dayStart(filter.to, timeZone) + 86_400_000));
  const cond = and(...where);
  const page = filter.page ?? 1;
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ call: c, ticketNumber: t.ticketNumber, agentName: schema.users.name })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .leftJoin(schema.users, eq(schema.users.id, c.agentUserId))
      .where(cond)
      .orderBy(desc(c.startedAt), desc(c.id))
      .limit(CALL_PAGE_SIZE)
      .offset((page - 1) * CALL_PAGE_SIZE),
    db
      .select({ total: sql<number>`count(*)` })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .where(cond),
  ]);
  const now = Date.now();
  return {
    page,
    pages: Math.max(1, Math.ceil(Number(total) / CALL_PAGE_SIZE)),
    total: Number(total),
    calls: rows.map((r) => ({
      ticketNumber: r.ticketNumber,
      sipCallId: r.call.sipCallId,
      direction: r.call.direction as Direction,
      did: r.call.did,
      from: r.call.fromNumber,
      to: r.call.toNumber,
      agent: r.agentName ?? "",
      state: r.call.state,
      startedAt: r.call.startedAt,
      cause: r.call.hangupCause,
      hangupBy: r.call.hangupBy,
      ...durations(r.call, now),
    })),
  };
}

/** The call behind a CALL ticket (the conversation page's panel). */
export async function callOfTicket(ticketId: number) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ call: schema.calls, agentName: schema.users.name })
    .from(schema.calls)
    .leftJoin(schema.users, eq(schema.users.id, schema.calls.agentUserId))
    .where(eq(schema.calls.ticketId, ticketId));
  return row ? { ...row.call, agentName: row.agentName ?? "", ...durations(row.call) } : null;
}

/**
 * Calls still open when the call server went away (a restart loses its dialogs): closed with the
 * cause server_restart, so no ticket is left half-written as ringing or talking forever.
 */
export async function closeOrphanedCalls(cause = "server_restart", at = Date.now()) {
  const handle = getDb();
  const c = handle.schema.calls;
  return handle.transaction(async (tx) => {
    const open = await tx
      .select()
      .from(c)
      .where(inArray(c.state, ["ringing", "talking", "held"]));
    for (const call of open)
      await tx
        .update(c)
        .set({ state: "ended", endedAt: at, heldAt: null, holdMs: call.holdMs + (call.heldAt != null ? Math.max(0, at - call.heldAt) : 0), hangupCause: cause })
        .where(eq(c.id, call.id));
    return open.length;
  });
}
