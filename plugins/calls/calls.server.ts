// Calls as the SIP server reports them (POST /hooks/sip/event from Kamailio's routes, sip/kamailio.cfg):
// each call makes a CALL ticket in the shared conversation home (so notes, labels, participants,
// reports and search work on it unchanged) and one `calls` row beside it with what spec section 3
// asks of a call ticket: direction, DID, the caller's number, the agent, ring / talk / hold / ACW
// durations and the hang-up cause. An event is stored (in one transaction) before Kamailio gets its
// 200; every event is keyed by the SIP Call-ID and moves the call only forward, so a repeated or
// late event changes nothing. A call to an agent that ends unanswered (no answer, cancelled by the
// caller, busy) is a missed call: the agent gets a "call_missed" notification in the same transaction.
import { and, asc, desc, eq, exists, gte, inArray, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
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
import { didByNumber, didOf, roundRobinAnswered } from "./dids.server";

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
  z.object({
    event: z.literal("invite"),
    call_id: z.string().min(1).max(255),
    from: number,
    to: number,
    /** "trunk": a call from the SIP trunk to a DID (inbound, whoever the numbers are) */
    source: z.enum(["trunk", "agent"]).optional().default("agent"),
  }),
  z.object({
    event: z.literal("answer"),
    call_id: z.string().min(1).max(255),
    /** the extension that answered (the 200 OK's Contact user): a DID call's agent is the one who picks up */
    agent: z.string().trim().max(32).optional().default(""),
  }),
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
    let answeredBy: Awaited<ReturnType<typeof agentsOf>>[number] | undefined;
    if (event.event === "answer" && call.state === "ringing") {
      set = { state: "talking", answeredAt: at };
      // a call from the trunk rang a DID's queue: the agent who answered becomes the call's agent
      if (call.agentUserId == null && event.agent) {
        answeredBy = (await agentsOf([event.agent]))[0];
        if (answeredBy) set.agentUserId = answeredBy.userId;
        // a round robin DID's next call starts after the agent who answered this one
        if (answeredBy && call.did) await roundRobinAnswered(tx, call.did, answeredBy.sipNumber);
      }
    } else if (event.event === "hold" && call.state === "talking") set = { state: "held", heldAt: at };
    else if (event.event === "resume" && call.state === "held")
      set = { state: "talking", heldAt: null, holdMs: call.holdMs + Math.max(0, at - (call.heldAt ?? at)) };
    else if (event.event === "end") {
      const answered = call.answeredAt != null;
      set = {
        state: "ended",
        endedAt: at,
        heldAt: null,
        holdMs: call.holdMs + (call.state === "held" ? Math.max(0, at - (call.heldAt ?? at)) : 0),
        // nobody answered and the product's voicemail took the message (voicemail.server.ts)
        hangupCause: !answered && call.voicemail ? "voicemail" : causeOf(event.code, answered),
        // the number as the call keeps it (a "+" does not survive the event's form encoding)
        hangupBy: answered ? ([call.fromNumber, call.toNumber].find((n) => n === event.by || n === `+${event.by}`) ?? event.by ?? "") : "",
      };
    }
    if (!set) return call;
    const [after] = await tx.update(c).set(set).where(eq(c.id, call.id)).returning();
    await touch(tx, call.ticketId, FROM_OUTSIDE, at);
    if (answeredBy)
      await tx
        .insert(schema.participants)
        .values({ ticketId: call.ticketId, userId: answeredBy.userId, assignee: true, unread: false, kind: "call", addedAt: at })
        .onConflictDoNothing();
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
  const trunk = event.source === "trunk";
  // a call from the trunk: the caller is an outside number, the callee a DID whose agents ring
  const agents = trunk ? [] : await agentsOf([event.from, event.to]);
  const caller = agents.find((a) => a.sipNumber === event.from);
  const callee = agents.find((a) => a.sipNumber === event.to);
  const direction: Direction = trunk ? "inbound" : caller && callee ? "internal" : callee ? "inbound" : "outbound";
  const agent = direction === "outbound" ? caller : callee;
  const from = normaliseNumber(event.from, Boolean(caller));
  const to = trunk ? (didOf(event.to) ?? normaliseNumber(event.to, false)) : normaliseNumber(event.to, Boolean(callee));
  // the DID's department reads the call's ticket (its queue), as a callee's department does
  const did = trunk ? await didByNumber(event.to) : null;
  let row: CallRow | null = null;
  try {
    await receive({
      ticket: {
        channel: "CALL",
        title: `${from} → ${to}`,
        contactName: caller && direction !== "internal" ? "" : from,
        contactEmail: "",
        contactPhone: direction === "inbound" ? from : direction === "outbound" ? to : "",
        departmentId: agent?.departmentId ?? did?.departmentId ?? null,
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

/** Spec section 3 (ticket emotion), section 9 (voice levels) and the AI's personality types: what the call filters offer. */
export const EMOTIONS = ["anger", "fear", "happy", "love", "sad", "surprise", "curious"] as const;
export const PERSONALITIES = ["driver", "analytical", "amiable", "expressive"] as const;
export const VOICE_LEVELS = [0, 25, 50, 75, 100] as const;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const level = z.coerce.number().refine((n) => (VOICE_LEVELS as readonly number[]).includes(n));

/** Each call filter (spec section 3: emotion, energy, pace, personality, dates, number, assignee, DID, direction, label). */
const callFilterFields = {
  direction: z.enum(DIRECTIONS),
  number: z
    .string()
    .trim()
    .max(32)
    .regex(/^[\d+*#\s().-]+$/)
    .transform((v) => v.replace(/[^\d+*#]/g, "")),
  from: day,
  to: day,
  emotion: z.enum(EMOTIONS),
  energy: level,
  pace: level,
  personality: z.enum(PERSONALITIES),
  /** a username: the call's assignee */
  assignee: z.string().trim().min(1).max(100),
  did: z
    .string()
    .trim()
    .regex(/^\+?[\d*#]{1,32}$/),
  label: z.coerce.number().int().positive().max(2_147_483_647),
  page: z.coerce.number().int().min(1).max(100000),
};
export type CallFilterField = keyof typeof callFilterFields;
export const CALL_FILTER_FIELDS = Object.keys(callFilterFields) as CallFilterField[];
export type CallFilter = { [K in CallFilterField]?: z.infer<(typeof callFilterFields)[K]> };

/**
 * The call filters from a query: each field checked on its own, so one bad value does not drop the
 * others (the page keeps them and says which is wrong; the JSON twin answers 400). Empty is absent.
 */
export function parseCallFilter(raw: Record<string, string | undefined>) {
  return parseFilterFields<CallFilter, typeof callFilterFields>(raw, callFilterFields);
}

/** Each field of a GET filter checked on its own by its schema; empty is absent, the typed text kept (at most 100 characters). */
export function parseFilterFields<F, S extends Record<string, z.ZodTypeAny>>(raw: Record<string, string | undefined>, fields: S) {
  const filter: Record<string, unknown> = {};
  const invalid: (keyof S & string)[] = [];
  const values = {} as Record<keyof S & string, string>;
  for (const field of Object.keys(fields) as (keyof S & string)[]) {
    const value = (raw[field] ?? "").trim();
    values[field] = value.slice(0, 100);
    if (!value) continue;
    const parsed = fields[field].safeParse(value);
    if (parsed.success) filter[field] = parsed.data;
    else invalid.push(field);
  }
  return { filter: filter as F, invalid, values };
}

/** Midnight of a yyyy-mm-dd day in the workspace's time zone, as epoch ms (noon UTC lies in that day for offsets up to ±12 h). */
const dayStart = (day: string, timeZone: string) => startOfDay(Date.parse(`${day}T12:00:00Z`), timeZone);

/** The calls the reader may read (their tickets' access), newest first, paged by 30, with the spec's filters. */
export async function listCalls(reader: Reader, filter: CallFilter, timeZone: string, opts: { ongoing?: boolean; status?: number } = {}) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const t = schema.tickets;
  // the AI's reading of the call (read through the shared schema, never through plugins/ai)
  const ai = schema.aiTicketAnalysis;
  const where: (SQL | undefined)[] = [readableBy(reader)];
  if (opts.ongoing) where.push(inArray(c.state, ["ringing", "talking", "held"]));
  // a ticket status (0 open .. 3 closed) as the JSON twin's {status} asks; 4 or none: all
  if (opts.status != null && opts.status >= 0 && opts.status <= 3) where.push(eq(t.status, opts.status));
  if (filter.direction) where.push(eq(c.direction, filter.direction));
  if (filter.number) where.push(or(sql`${c.fromNumber} like ${`%${filter.number}%`}`, sql`${c.toNumber} like ${`%${filter.number}%`}`));
  if (filter.from) where.push(gte(c.startedAt, dayStart(filter.from, timeZone)));
  if (filter.to) where.push(lt(c.startedAt, dayStart(filter.to, timeZone) + 86_400_000));
  if (filter.did) where.push(eq(c.did, filter.did));
  if (filter.emotion) where.push(eq(t.emotion, filter.emotion));
  if (filter.energy != null) where.push(eq(ai.energy, filter.energy));
  if (filter.pace != null) where.push(eq(ai.pace, filter.pace));
  if (filter.personality) where.push(eq(ai.personality, filter.personality));
  if (filter.label) {
    const l = schema.ticketLabels;
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(l)
          .where(and(eq(l.ticketId, t.id), eq(l.labelId, filter.label))),
      ),
    );
  }
  if (filter.assignee) {
    const p = schema.participants;
    const u = schema.users;
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(p)
          .innerJoin(u, eq(u.id, p.userId))
          .where(and(eq(p.ticketId, t.id), eq(p.assignee, true), eq(u.username, filter.assignee))),
      ),
    );
  }
  const cond = and(...where);
  const page = filter.page ?? 1;
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        call: c,
        ticketId: t.id,
        ticketNumber: t.ticketNumber,
        title: t.title,
        status: t.status,
        emotion: t.emotion,
        updatedAt: t.updatedAt,
        agentName: schema.users.name,
        agentUsername: schema.users.username,
        energy: ai.energy,
        pace: ai.pace,
        personality: ai.personality,
      })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .leftJoin(schema.users, eq(schema.users.id, c.agentUserId))
      .leftJoin(ai, eq(ai.ticketId, t.id))
      .where(cond)
      .orderBy(desc(c.startedAt), desc(c.id))
      .limit(CALL_PAGE_SIZE)
      .offset((page - 1) * CALL_PAGE_SIZE),
    db
      .select({ total: sql<number>`count(*)` })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .leftJoin(ai, eq(ai.ticketId, t.id))
      .where(cond),
  ]);
  const ids = rows.map((r) => r.ticketId);
  const [labels, assignees] = await Promise.all([labelsOf(ids), assigneesOf(ids)]);
  const now = Date.now();
  return {
    page,
    pages: Math.max(1, Math.ceil(Number(total) / CALL_PAGE_SIZE)),
    total: Number(total),
    calls: rows.map((r) => ({
      ticketId: r.ticketId,
      ticketNumber: r.ticketNumber,
      title: r.title,
      status: r.status,
      updatedAt: r.updatedAt,
      sipCallId: r.call.sipCallId,
      direction: r.call.direction as Direction,
      did: r.call.did,
      from: r.call.fromNumber,
      to: r.call.toNumber,
      agent: r.agentName ?? "",
      agentUsername: r.agentUsername ?? "",
      state: r.call.state,
      startedAt: r.call.startedAt,
      cause: r.call.hangupCause,
      hangupBy: r.call.hangupBy,
      emotion: r.emotion,
      energy: r.energy,
      pace: r.pace,
      personality: r.personality ?? "",
      labels: labels.get(r.ticketId) ?? [],
      assignees: assignees.get(r.ticketId) ?? [],
      ...durations(r.call, now),
    })),
  };
}

/** The labels and assignees (usernames) of these tickets, two queries, by ticket id. */
async function labelsOf(ticketIds: number[]) {
  const byTicket = new Map<number, { id: number; name: string }[]>();
  if (!ticketIds.length) return byTicket;
  const { db, schema } = getDb();
  const l = schema.ticketLabels;
  const rows = await db
    .select({ ticketId: l.ticketId, id: l.labelId, name: schema.labels.name })
    .from(l)
    .leftJoin(schema.labels, eq(schema.labels.id, l.labelId))
    .where(inArray(l.ticketId, ticketIds));
  for (const r of rows) byTicket.set(r.ticketId, [...(byTicket.get(r.ticketId) ?? []), { id: r.id, name: r.name ?? "" }]);
  return byTicket;
}

async function assigneesOf(ticketIds: number[]) {
  const byTicket = new Map<number, string[]>();
  if (!ticketIds.length) return byTicket;
  const { db, schema } = getDb();
  const p = schema.participants;
  const rows = await db
    .select({ ticketId: p.ticketId, username: schema.users.username })
    .from(p)
    .innerJoin(schema.users, eq(schema.users.id, p.userId))
    .where(and(inArray(p.ticketId, ticketIds), eq(p.assignee, true)))
    .orderBy(asc(p.addedAt), asc(p.userId));
  for (const r of rows) byTicket.set(r.ticketId, [...(byTicket.get(r.ticketId) ?? []), r.username]);
  return byTicket;
}

/** The workspace's labels and the agents with an extension: the call filter form's choices. */
export async function callFilterChoices() {
  const { db, schema } = getDb();
  const [labels, agents, dids] = await Promise.all([
    db.select({ id: schema.labels.id, name: schema.labels.name }).from(schema.labels).orderBy(asc(schema.labels.name)),
    db
      .select({ username: schema.users.username, name: schema.users.name })
      .from(schema.sipAccounts)
      .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
      .orderBy(asc(schema.users.username)),
    knownDids(),
  ]);
  return { labels, agents, dids: dids.map((d) => d.did) };
}

/** The DIDs calls have come in on, with how many (the numbers the trunk delivers to the product). */
export async function knownDids() {
  const { db, schema } = getDb();
  const c = schema.calls;
  const rows = await db
    .select({ did: c.did, calls: sql<number>`count(*)` })
    .from(c)
    .where(and(eq(c.direction, "inbound"), ne(c.did, "")))
    .groupBy(c.did)
    .orderBy(asc(c.did))
    .limit(1000);
  return rows.map((r) => ({ did: r.did, calls: Number(r.calls) }));
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
