// Video meetings: a meeting is a row with an unguessable token (/meeting/{token}), started from a
// conversation (its agents may join) or from the shell (the host and the agents they invite).
// Customers without an account join through a one-time link: the first browser that uses it is
// bound to it (a secret in a cookie), any other browser is refused. Start and end (with who took
// part) are system messages in the conversation. Who is in a meeting right now lives in the
// socket layer (socket.server.ts, on every node through the socket.io adapter); this file is the
// database side, with how the meeting's media goes (meetings.media: mesh, then sfu for good).
import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import { getDb, type Tx } from "@db/client";
import { canRead, type Reader } from "~/conversation/access.server";
import { systemMessage } from "~/conversation/model.server";
import { newMessages } from "~/conversation/events.server";
import { rememberRequest } from "~/request-keys.server";

export type MeetingRow = typeof import("@db/schema/sqlite").meetings.$inferSelect;
type Actor = Reader & { name: string; username: string };

export const newToken = () => randomBytes(24).toString("base64url");
export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");
/** Tokens and keys are base64url of 24 bytes: anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
export const validToken = (token: unknown): token is string => typeof token === "string" && TOKEN.test(token);

export const startForm = z.object({
  title: z.string().trim().max(120, "plugin_meeting.errors.title").default(""),
  ticket: z
    .string()
    .trim()
    .regex(/^\d{0,10}$/, "plugin_meeting.errors.ticket")
    .default(""),
  inviteCustomer: z.preprocess((v) => v === "1" || v === "on", z.boolean()).default(false),
  agents: z.array(z.coerce.number().int().positive()).max(50, "plugin_meeting.errors.agents").default([]),
});
export type StartInput = z.infer<typeof startForm>;

export const guestForm = z.object({ name: z.string().trim().min(1, "plugin_meeting.errors.guestName").max(80, "plugin_meeting.errors.guestName") });

async function tell(tx: Tx, ticketId: number | null, by: string, text: string, values: Record<string, string>, at: number) {
  if (!ticketId) return null;
  return { ticketId, messageId: await systemMessage(tx, ticketId, { event: "plugin", by, text, values }, at) };
}

async function publish(told: { ticketId: number; messageId: number } | null, username: string) {
  if (!told) return;
  const { db, schema } = getDb();
  const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, told.ticketId));
  if (ticket) await newMessages(ticket, [told.messageId], username);
}

export type StartOutcome = { ok: true; token: string; guestKey: string | null } | { ok: false; errors: Record<string, string> };

/**
 * Starts a meeting. `ticketId`: the conversation it belongs to (checked against the actor);
 * `inviteCustomer`: a one-time link for the conversation's customer (its key, shown once).
 */
export async function startMeeting(
  actor: Actor,
  input: { ticketId: number | null; title: string; inviteCustomer: boolean; agentIds: number[] },
): Promise<StartOutcome> {
  const handle = getDb();
  const { schema } = handle;
  let contactName = "";
  if (input.ticketId) {
    if (!(await canRead(actor, input.ticketId))) return { ok: false, errors: { ticket: "plugin_meeting.errors.ticket" } };
    const [t] = await handle.db.select({ contactName: schema.tickets.contactName }).from(schema.tickets).where(eq(schema.tickets.id, input.ticketId));
    contactName = t?.contactName ?? "";
  } else if (input.inviteCustomer) return { ok: false, errors: { inviteCustomer: "plugin_meeting.errors.noCustomer" } };
  const agentIds = [...new Set(input.agentIds.filter((id) => id !== actor.id))];
  if (agentIds.length) {
    const found = await handle.db.select({ id: schema.users.id, disabledAt: schema.users.disabledAt }).from(schema.users);
    const live = new Set(found.filter((u) => !u.disabledAt).map((u) => u.id));
    if (agentIds.some((id) => !live.has(id))) return { ok: false, errors: { agents: "plugin_meeting.errors.agents" } };
  }
  const token = newToken();
  const guestKey = input.inviteCustomer ? newToken() : null;
  const now = Date.now();
  const told = await handle.transaction(async (tx) => {
    const [meeting] = await tx
      .insert(schema.meetings)
      .values({ token, ticketId: input.ticketId, hostUserId: actor.id, title: input.title, startedAt: now })
      .returning({ id: schema.meetings.id });
    const invites = [
      ...agentIds.map((userId) => ({ meetingId: meeting.id, userId, createdAt: now })),
      ...(guestKey ? [{ meetingId: meeting.id, name: contactName || "Guest", keyHash: hashKey(guestKey), createdAt: now }] : []),
    ];
    if (invites.length) await tx.insert(schema.meetingInvites).values(invites);
    // a resent form answers the same meeting (its customer link is shown once: not kept here)
    await rememberRequest(tx, { token, guestKey: null });
    return tell(tx, input.ticketId, actor.name, "plugin_meeting.system.started", { link: `/meeting/${token}` }, now);
  });
  await publish(told, actor.username);
  return { ok: true, token, guestKey };
}

export async function meetingByToken(token: string) {
  if (!validToken(token)) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.meetings).where(eq(schema.meetings.token, token));
  return row;
}

export async function meetingById(id: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.meetings).where(eq(schema.meetings.id, id));
  return row;
}

/**
 * The meeting goes through Janus from now on (it grew past the mesh limit). True only for the one
 * caller that made the change: with several nodes, two may try at once.
 */
export async function switchToSfu(meetingId: number) {
  const { db, schema } = getDb();
  const changed = await db
    .update(schema.meetings)
    .set({ media: "sfu" })
    .where(and(eq(schema.meetings.id, meetingId), eq(schema.meetings.media, "mesh"), isNull(schema.meetings.endedAt)))
    .returning({ id: schema.meetings.id });
  return changed.length > 0;
}

/** An agent of the meeting: its host, an invited agent, or (for a conversation's meeting) anyone who may read the conversation. */
export async function agentMayJoin(meeting: MeetingRow, user: Reader) {
  if (meeting.hostUserId === user.id) return true;
  if (meeting.ticketId && (await canRead(user, meeting.ticketId))) return true;
  const { db, schema } = getDb();
  const [invite] = await db
    .select({ id: schema.meetingInvites.id })
    .from(schema.meetingInvites)
    .where(and(eq(schema.meetingInvites.meetingId, meeting.id), eq(schema.meetingInvites.userId, user.id)));
  return Boolean(invite);
}

/** A new one-time link for a guest (by any agent of the meeting); its key, shown once. */
export async function inviteGuest(meeting: MeetingRow, name: string) {
  if (meeting.endedAt) return null;
  const key = newToken();
  const { db, schema } = getDb();
  await db.insert(schema.meetingInvites).values({ meetingId: meeting.id, name, keyHash: hashKey(key), createdAt: Date.now() });
  return key;
}

export type GuestRefusal = "ended" | "notInvited" | "used";

/** The guest invite a one-time key opens, without using it (the page asks "Join as ..."). */
export async function guestInvite(meeting: MeetingRow, key: string): Promise<{ ok: true; name: string; id: number } | { ok: false; reason: GuestRefusal }> {
  if (meeting.endedAt) return { ok: false, reason: "ended" };
  if (!validToken(key)) return { ok: false, reason: "notInvited" };
  const { db, schema } = getDb();
  const [invite] = await db
    .select()
    .from(schema.meetingInvites)
    .where(and(eq(schema.meetingInvites.meetingId, meeting.id), eq(schema.meetingInvites.keyHash, hashKey(key))));
  if (!invite) return { ok: false, reason: "notInvited" };
  if (invite.usedAt) return { ok: false, reason: "used" };
  return { ok: true, name: invite.name, id: invite.id };
}

/**
 * Uses a one-time key: the invite is bound to this browser's secret (answered, for its cookie).
 * One statement changes the row only while it is unused, so two browsers racing get one seat.
 */
export async function claimGuestLink(
  meeting: MeetingRow,
  key: string,
): Promise<{ ok: true; inviteId: number; secret: string } | { ok: false; reason: GuestRefusal }> {
  const found = await guestInvite(meeting, key);
  if (!found.ok) return found;
  const secret = newToken();
  const { db, schema } = getDb();
  const claimed = await db
    .update(schema.meetingInvites)
    .set({ usedAt: Date.now(), boundHash: hashKey(secret) })
    .where(and(eq(schema.meetingInvites.id, found.id), isNull(schema.meetingInvites.usedAt)))
    .returning({ id: schema.meetingInvites.id });
  return claimed.length ? { ok: true, inviteId: found.id, secret } : { ok: false, reason: "used" };
}

/** The guest a browser's cookie (invite id and secret) stands for, while the meeting runs. */
export async function guestOf(meeting: MeetingRow, inviteId: number, secret: string) {
  if (meeting.endedAt || !Number.isInteger(inviteId) || !validToken(secret)) return undefined;
  const { db, schema } = getDb();
  const [invite] = await db
    .select()
    .from(schema.meetingInvites)
    .where(and(eq(schema.meetingInvites.id, inviteId), eq(schema.meetingInvites.meetingId, meeting.id)));
  return invite?.boundHash === hashKey(secret) ? { id: invite.id, name: invite.name } : undefined;
}

/** Remembers who took part (once per name), for the end's system message. */
export async function recordAttendee(meetingId: number, name: string) {
  const handle = getDb();
  const { schema } = handle;
  await handle.transaction(async (tx) => {
    const [row] = await tx.select({ attendees: schema.meetings.attendees }).from(schema.meetings).where(eq(schema.meetings.id, meetingId));
    if (!row) return;
    const names = JSON.parse(row.attendees) as string[];
    if (names.includes(name)) return;
    await tx
      .update(schema.meetings)
      .set({ attendees: JSON.stringify([...names, name]) })
      .where(eq(schema.meetings.id, meetingId));
  });
}

/** Ends a meeting once (false when it had ended); the conversation is told who took part and for how long. */
export async function endMeeting(meetingId: number, by: { name: string; username: string }) {
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const outcome = await handle.transaction(async (tx) => {
    const [row] = await tx
      .update(schema.meetings)
      .set({ endedAt: now })
      .where(and(eq(schema.meetings.id, meetingId), isNull(schema.meetings.endedAt)))
      .returning();
    if (!row) return null;
    const names = JSON.parse(row.attendees) as string[];
    const minutes = String(Math.max(1, Math.round((now - row.startedAt) / 60_000)));
    return tell(tx, row.ticketId, by.name, "plugin_meeting.system.ended", { people: names.join(", ") || "-", minutes }, now);
  });
  if (outcome === null) return false;
  await publish(outcome, by.username);
  return true;
}

/** The meetings of a conversation still running (its panel offers to join them). */
export async function runningMeetingsOf(ticketId: number) {
  const { db, schema } = getDb();
  return db
    .select()
    .from(schema.meetings)
    .where(and(eq(schema.meetings.ticketId, ticketId), isNull(schema.meetings.endedAt)))
    .orderBy(desc(schema.meetings.startedAt))
    .limit(5);
}

/** The shell's running meetings this user may join (host or invited; conversation meetings through their conversations). */
export async function myRunningMeetings(user: Reader) {
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.meetings).where(isNull(schema.meetings.endedAt)).orderBy(desc(schema.meetings.startedAt)).limit(50);
  const mine: MeetingRow[] = [];
  for (const m of rows) if (await agentMayJoin(m, user)) mine.push(m);
  return mine;
}

/** The number of the meeting's conversation (its page's link), if it has one. */
export async function ticketNumberOf(meeting: MeetingRow) {
  if (!meeting.ticketId) return null;
  const { db, schema } = getDb();
  const [t] = await db.select({ n: schema.tickets.ticketNumber }).from(schema.tickets).where(eq(schema.tickets.id, meeting.ticketId));
  return t?.n ?? null;
}
