// Live chat (docs/decisions/011-live-chat.md). A visitor opens a widget link (/start/livechat/{key}),
// which makes a visit with its own unguessable token; the visit is the visitor's whole run:
// new -> queued -> active -> ended (then rated), or converted to a ticket, or sent (a message
// left while no agent was online). The chat itself is a conversation of kind "livechat", so agents
// reply to it with every message feature of tickets.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { and, asc, desc, eq, exists, inArray, isNull, lt, ne, notExists, or, sql } from "drizzle-orm";
import sanitizeHtml from "sanitize-html";
import { getDb, isUniqueViolation } from "@db/client";
import { closeVisitorRoom, onlineUserIds, publish, publishToVisitor, STAFF_ROOM } from "~/realtime.server";
import { AccessDenied, canRead, readableBy, type Reader } from "~/conversation/access.server";
import {
  checkKeyVersion,
  EncryptionRefused,
  insertTicket,
  systemMessage,
  touch,
  FROM_OUTSIDE,
  withUniqueNumber,
  NotFound,
  type TicketRow,
} from "~/conversation/model.server";
import { ENCRYPTED_MESSAGE_TYPE } from "~/conversation/encrypted";
import { isValidToken } from "~/accounts/public-tokens.server";
import { getSetting } from "~/models/settings.server";
import { announce, conversationCreated, newMessages } from "~/conversation/events.server";
import { recordEvents } from "~/conversation/sync.server";
import { queueLinkPreviews } from "~/conversation/link-preview.server";
import { wakeJobs } from "~/jobs/queue.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { rememberRequest } from "~/request-keys.server";
import { notifyLiveChatWaiting, notifyNewTicket, toldAll } from "~/conversation/notifications.server";

export type VisitState = "new" | "queued" | "active" | "ended" | "converted" | "sent";
type Actor = Reader & { name: string; username: string };

export class VisitConflict extends Error {}

const STALE_VISIT_MS = 24 * 60 * 60 * 1000;

const newToken = () => {
  // visit tokens share /livechat/{x} with ticket numbers: never all digits
  for (;;) {
    const token = randomBytes(18).toString("base64url");
    if (/\D/.test(token)) return token;
  }
};

export const isVisitToken = (value: string | undefined): value is string => !!value && /^[A-Za-z0-9_-]{10,64}$/.test(value) && /\D/.test(value);

/** The form token of a visit: bound to it by HMAC, so it works in third-party iframes without cookies. */
export function visitCsrf(token: string) {
  return createHmac("sha256", process.env.SESSION_SECRET || "dev-only-secret")
    .update(`livechat:${token}`)
    .digest("base64url");
}
export function validVisitCsrf(token: string, submitted: unknown) {
  if (typeof submitted !== "string") return false;
  const expected = Buffer.from(visitCsrf(token));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(expected, given);
}

/** Starts a visit from a widget link; undefined when the widget key is unknown or revoked. */
export async function startVisit(widgetKey: string | undefined) {
  if (!(await isValidToken("livechat", widgetKey))) return undefined;
  const { db, schema } = getDb();
  const v = schema.livechatVisits;
  const token = newToken();
  const now = Date.now();
  // visits nobody went on with (a crawler, a closed tab) are not kept past a day
  await db.delete(v).where(and(eq(v.state, "new"), lt(v.createdAt, now - STALE_VISIT_MS)));
  await db.insert(v).values({ token, widgetKey: widgetKey!, state: "new", createdAt: now });
  return token;
}

export async function findVisit(token: string | undefined) {
  if (!isVisitToken(token)) return undefined;
  const { db, schema } = getDb();
  const [row] = await db
    .select({ visit: schema.livechatVisits, ticket: schema.tickets })
    .from(schema.livechatVisits)
    .leftJoin(schema.tickets, eq(schema.tickets.id, schema.livechatVisits.ticketId))
    .where(eq(schema.livechatVisits.token, token));
  // (removing a chat removes its visit: the foreign key cascades)
  if (!row) return undefined;
  return { ...row.visit, state: row.visit.state as VisitState, ticket: row.ticket };
}
export type Visit = NonNullable<Awaited<ReturnType<typeof findVisit>>>;

/**
 * The chat a visitor's socket may listen to: only while it waits or runs. An ended, converted or
 * left ("sent") chat goes on without the visitor (agents' replies, a ticket's notes).
 */
export function liveChatOf(visit: Pick<Visit, "state" | "ticketId">) {
  return (visit.state === "queued" || visit.state === "active") && visit.ticketId ? visit.ticketId : undefined;
}

/** Someone could answer now: an admin or an agent of the live chat department, connected and ONLINE. */
export async function agentsOnline() {
  const ids = [...(await onlineUserIds())];
  if (!ids.length) return false;
  const { db, schema } = getDb();
  const u = schema.users;
  const departmentId = Number(await getSetting("livechat_department")) || null;
  const canAnswer = departmentId ? or(eq(u.type, "admin"), eq(u.departmentId, departmentId)) : eq(u.type, "admin");
  const rows = await db
    .select({ id: u.id })
    .from(u)
    .where(and(inArray(u.id, ids), isNull(u.disabledAt), eq(u.status, "ONLINE"), canAnswer))
    .limit(1);
  return rows.length > 0;
}

/** The name and photo the visitor is "connecting to". */
export async function widgetIdentity(productTitle: string) {
  const [name, photo] = await Promise.all([getSetting("livechat_name"), getSetting("livechat_photo")]);
  return { name: name || productTitle, photo: photo || "/favicon.svg" };
}

export type InfoResult = "success" | "converted" | "rating" | "noAgent" | "closed";

/** What the visitor's page shows (spec section 4, public live chat flow). */
export function infoResult(visit: Visit, online: boolean): InfoResult {
  switch (visit.state) {
    case "new":
      return online ? "success" : "noAgent";
    case "queued":
    case "active":
      return "success";
    case "ended":
      return visit.ticket?.rating == null ? "rating" : "closed";
    case "converted":
      return "converted";
    default:
      return "closed";
  }
}

/** Position in the queue: 1 for the visitor who has waited longest. */
export async function queueNumber(visit: Pick<Visit, "token" | "queuedAt">) {
  const { db, schema } = getDb();
  const v = schema.livechatVisits;
  const [{ ahead }] = await db
    .select({ ahead: sql<number>`count(*)` })
    .from(v)
    .where(and(eq(v.state, "queued"), or(lt(v.queuedAt, visit.queuedAt ?? 0), and(eq(v.queuedAt, visit.queuedAt ?? 0), lt(v.token, visit.token)))));
  return Number(ahead) + 1;
}

/** Tells every waiting visitor their place, and agents that the queue changed. */
async function queueChanged() {
  const { db, schema } = getDb();
  const waiting = await db
    .select({ token: schema.livechatVisits.token, ticketId: schema.livechatVisits.ticketId })
    .from(schema.livechatVisits)
    .where(eq(schema.livechatVisits.state, "queued"))
    .orderBy(asc(schema.livechatVisits.queuedAt), asc(schema.livechatVisits.token));
  waiting.forEach((w, i) => w.ticketId && publishToVisitor(w.ticketId, SERVER_EVENTS.queueNumber, { number: i + 1 }));
  // no count: agents may read different parts of the queue; their pages ask (getLiveChatQueue)
  publish(STAFF_ROOM, SERVER_EVENTS.liveChatQueue, {});
}

export interface Registration {
  name: string;
  phone: string;
  email: string;
  message: string;
}

/**
 * The visitor's form: with agents online the chat joins the queue; otherwise the message is left
 * for later ("sent"). Both open a live chat in the live chat department, in the visitor's
 * session: the one of the same browser (`visitorKey`, the hash of its cookie's key), or a new
 * one. The email they type groups nothing: anyone can type anyone's address.
 */
export async function register(visit: Visit, input: Registration, online: boolean, visitorKey: string) {
  if (visit.state !== "new") throw new VisitConflict();
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const departmentId = Number(await getSetting("livechat_department")) || null;
  const name = input.name || input.email || "Visitor";
  const s = schema.livechatSessions;
  const mine = () =>
    visitorKey
      ? handle.db.select({ id: s.id }).from(s).where(eq(s.visitorKey, visitorKey)).orderBy(desc(s.id)).limit(1)
      : Promise.resolve([] as { id: number }[]);
  const [known] = await mine();
  const create = () =>
    handle.transaction(async (tx) => {
      let sessionId = known?.id;
      if (!sessionId) {
        const [session] = await tx.insert(s).values({ name, email: input.email.toLowerCase(), visitorKey, createdAt: now }).returning();
        sessionId = session.id;
      }
      const ticket = await insertTicket(
        tx,
        { title: name, channel: "LIVECHAT", departmentId, contactName: name, contactEmail: input.email, contactPhone: input.phone, sessionId },
        input.message,
        now,
      );
      await tx.insert(schema.messages).values({ ticketId: ticket.id, type: "text", body: input.message, senderName: name, createdAt: now });
      await queueLinkPreviews(tx, ticket.id, [{ type: "text", body: input.message }], now);
      const v = schema.livechatVisits;
      const claimed = await tx
        .update(v)
        .set({ ticketId: ticket.id, state: online ? "queued" : "sent", queuedAt: online ? now : null })
        .where(and(eq(v.token, visit.token), eq(v.state, "new")))
        .returning({ token: v.token });
      // a second submit of the same form (two tabs, a double click) changes nothing
      if (!claimed.length) throw new VisitConflict();
      // waiting in the queue: its department's agents hear of it; a message left: a new ticket
      notified = online ? await notifyLiveChatWaiting(tx, ticket, now) : await notifyNewTicket(tx, ticket, now);
      return ticket;
    });
  let notified: number[] = [];
  const ticket = await withUniqueNumber(create);
  toldAll(notified);
  if (online) await queueChanged();
  else await conversationCreated(ticket, { department: true });
  return ticket;
}

/** An agent takes a waiting chat; false when someone else took it first. */
export async function acceptLiveChat(actor: Actor, ticketId: number) {
  if (!(await canRead(actor, ticketId))) throw new AccessDenied();
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const accepted = await handle.transaction(async (tx) => {
    const v = schema.livechatVisits;
    const won = await tx
      .update(v)
      .set({ state: "active" })
      .where(and(eq(v.ticketId, ticketId), eq(v.state, "queued")))
      .returning({ token: v.token });
    if (!won.length) return false;
    const [ticket] = await tx.select().from(schema.tickets).where(eq(schema.tickets.id, ticketId));
    const p = schema.participants;
    await tx.delete(p).where(and(eq(p.ticketId, ticketId), eq(p.userId, actor.id)));
    await tx.insert(p).values({ ticketId, userId: actor.id, assignee: true, kind: ticket.kind, lastReadAt: now, addedAt: now });
    await systemMessage(tx, ticketId, { event: "livechat", by: actor.name, action: "accepted" }, now);
    await touch(tx, ticketId, actor.id, now);
    return ticket;
  });
  if (!accepted) return false;
  publishToVisitor(ticketId, SERVER_EVENTS.queueAccepted, { name: actor.name });
  // (not newMessage: the visitor's page opens the chat itself, 2 s after the accept sound)
  await announce(accepted, SERVER_EVENTS.updateTicket);
  await queueChanged();
  return accepted;
}

/** A visitor's message sealed in their browser (end-to-end encrypted chats): the envelope, its key version and client id. */
export interface SealedMessage {
  cipher: string;
  keyVersion: number;
  clientId: string;
}

/**
 * The visitor's message into their active chat. An end-to-end encrypted chat takes only a sealed
 * one of its current key version (EncryptionRefused otherwise, also for plain text: a visitor
 * without JavaScript cannot seal); it is stored as ciphertext, never indexed or previewed.
 */
export async function visitorMessage(visit: Visit, body: string, sealed?: SealedMessage) {
  if (visit.state !== "active" || !visit.ticket) throw new VisitConflict();
  const ticket = visit.ticket;
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  let previews = 0;
  const messageId = await handle.transaction(async (tx) => {
    const v = schema.livechatVisits;
    const [open] = await tx.select({ state: v.state }).from(v).where(eq(v.token, visit.token));
    if (open?.state !== "active") throw new VisitConflict();
    if (sealed) await checkKeyVersion(tx, ticket.id, sealed.keyVersion);
    else {
      const [current] = await tx.select({ encryption: schema.tickets.encryption }).from(schema.tickets).where(eq(schema.tickets.id, ticket.id));
      if (current?.encryption) throw new EncryptionRefused("livechat.encryptedNeedsScript");
    }
    let row: { id: number };
    try {
      [row] = await tx
        .insert(schema.messages)
        .values(
          sealed
            ? { ticketId: ticket.id, type: ENCRYPTED_MESSAGE_TYPE, body: "", ...sealed, senderName: ticket.contactName, createdAt: now }
            : { ticketId: ticket.id, type: "text", body, senderName: ticket.contactName, createdAt: now },
        )
        .returning({ id: schema.messages.id });
    } catch (error) {
      // the client id is unique per conversation: a replayed sealed message is refused
      if (sealed && isUniqueViolation(error)) throw new EncryptionRefused("conversation.encryption.replayed");
      throw error;
    }
    await rememberRequest(tx, { id: row.id });
    // nobody is the actor: every agent in the chat has something unread (a sealed one leaves no text: 'Encrypted message')
    await touch(tx, ticket.id, FROM_OUTSIDE, now, { lastMessage: sealed ? "" : body.slice(0, 300) });
    if (!sealed) previews = await queueLinkPreviews(tx, ticket.id, [{ type: "text", body }], now);
    return row.id;
  });
  await newMessages(ticket, [messageId], "");
  if (previews) wakeJobs();
}

/** Ends a waiting or running chat, by an agent or by the visitor (actor undefined). */
export async function endLiveChat(ticket: Pick<TicketRow, "id" | "ticketNumber" | "departmentId" | "kind" | "contactName">, actor?: Actor) {
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const ended = await handle.transaction(async (tx) => {
    const v = schema.livechatVisits;
    const done = await tx
      .update(v)
      .set({ state: "ended" })
      .where(and(eq(v.ticketId, ticket.id), inArray(v.state, ["queued", "active"])))
      .returning({ token: v.token });
    if (!done.length) return false;
    await systemMessage(tx, ticket.id, { event: "livechat", by: actor?.name ?? ticket.contactName, action: "ended" }, now);
    await touch(tx, ticket.id, actor?.id ?? FROM_OUTSIDE, now, { status: 2 });
    return true;
  });
  if (!ended) return false;
  await announce(ticket, SERVER_EVENTS.liveChatEnded);
  closeVisitorRoom(ticket.id);
  await queueChanged();
  return true;
}

/** Why a rating was refused: the chat is not over (yet), or it was rated already. */
export class RatingRefused extends VisitConflict {
  constructor(readonly reason: "notEnded" | "alreadyRated") {
    super(reason);
  }
}

/** Stars 1-5 and, under 5, a reason: once per chat, once it has ended. */
export async function rateLiveChat(visit: Visit, rating: number, reason: string) {
  if (!visit.ticket) throw new RatingRefused("notEnded");
  const { db, schema } = getDb();
  const t = schema.tickets;
  const v = schema.livechatVisits;
  // the visit's state as it is now, not as the request read it (an End may have landed since)
  const ended = db
    .select({ one: sql`1` })
    .from(v)
    .where(and(eq(v.token, visit.token), eq(v.state, "ended")));
  // (the activity time moves too: lists and reports pick the rating up)
  const rated = await db
    .update(t)
    .set({ rating, ratingReason: reason, updatedAt: Date.now() })
    .where(and(eq(t.id, visit.ticket.id), isNull(t.rating), exists(ended)))
    .returning({ id: t.id });
  if (!rated.length) {
    const [now] = await db.select({ rating: t.rating }).from(t).where(eq(t.id, visit.ticket.id));
    throw new RatingRefused(now && now.rating !== null ? "alreadyRated" : "notEnded");
  }
  await announce(visit.ticket, SERVER_EVENTS.updateTicket);
}

/** The chat goes on as a ticket (kind "ticket"; the channel still says where it came from). */
export async function convertToTicket(actor: Actor, ticket: TicketRow) {
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const converted = await handle.transaction(async (tx) => {
    const v = schema.livechatVisits;
    const done = await tx
      .update(v)
      .set({ state: "converted" })
      .where(and(eq(v.ticketId, ticket.id), inArray(v.state, ["queued", "active", "ended"])))
      .returning({ token: v.token });
    if (!done.length) return false;
    await tx.update(schema.participants).set({ kind: "ticket" }).where(eq(schema.participants.ticketId, ticket.id));
    await systemMessage(tx, ticket.id, { event: "livechat", by: actor.name, action: "converted" }, now);
    await touch(tx, ticket.id, actor.id, now, { kind: "ticket", status: 0 });
    return true;
  });
  if (!converted) throw new VisitConflict();
  publishToVisitor(ticket.id, SERVER_EVENTS.liveChatEnded, { converted: true });
  // what agents write on the ticket from now on is not the visitor's to hear of
  closeVisitorRoom(ticket.id);
  await announce({ ...ticket, kind: "ticket" }, SERVER_EVENTS.updateTicket);
  await queueChanged();
}

/**
 * Moves every chat of one session into another (the same visitor came back under a new name).
 * The actor must be able to read every chat of both sessions: a merge moves whole sessions, and
 * must not carry (or pull in) chats of departments and people the actor does not see.
 */
export async function mergeSessions(actor: Actor, fromId: number, intoId: number) {
  if (fromId === intoId) throw new VisitConflict();
  const handle = getDb();
  const { schema } = handle;
  const t = schema.tickets;
  const [from, into] = await Promise.all(
    [fromId, intoId].map(async (id) => {
      const [all, readable] = await Promise.all([
        handle.db.select({ id: t.id }).from(t).where(eq(t.sessionId, id)),
        handle.db
          .select({ id: t.id })
          .from(t)
          .where(and(eq(t.sessionId, id), readableBy(actor))),
      ]);
      return { all: all.map((r) => r.id), readable: readable.length };
    }),
  );
  // a session with nothing the actor reads is not theirs to see at all
  if (!from.readable || !into.readable) throw new NotFound();
  if (from.readable < from.all.length || into.readable < into.all.length) throw new AccessDenied();
  await handle.transaction(async (tx) => {
    // only the chats checked above: one that joined the session meanwhile stays where it is
    await tx
      .update(t)
      .set({ sessionId: intoId })
      .where(and(eq(t.sessionId, fromId), inArray(t.id, from.all)));
    await recordEvents(
      tx,
      from.all.map((ticketId) => ({ action: "merge_session" as const, ticketId, refId: fromId, sessionId: intoId })),
    );
    const [left] = await tx.select({ id: t.id }).from(t).where(eq(t.sessionId, fromId)).limit(1);
    if (!left) await tx.delete(schema.livechatSessions).where(eq(schema.livechatSessions.id, fromId));
  });
  publish(STAFF_ROOM, SERVER_EVENTS.liveChatMergeChanged, { from: fromId, into: intoId });
}

/** Removes a live chat and everything in it (admins, or its assignee). */
export async function removeLiveChat(actor: Actor, ticket: TicketRow) {
  const { db, schema } = getDb();
  if (actor.type !== "admin") {
    const p = schema.participants;
    const mine = await db
      .select({ a: p.assignee })
      .from(p)
      .where(and(eq(p.ticketId, ticket.id), eq(p.userId, actor.id), eq(p.assignee, true)));
    if (!mine.length) throw new AccessDenied();
  }
  const files = await db.select({ key: schema.messages.fileKey }).from(schema.messages).where(eq(schema.messages.ticketId, ticket.id));
  await db.delete(schema.tickets).where(eq(schema.tickets.id, ticket.id));
  publishToVisitor(ticket.id, SERVER_EVENTS.liveChatEnded, {});
  closeVisitorRoom(ticket.id);
  // every staff page: the lists drop it, and a page that has it open goes home
  publish(STAFF_ROOM, SERVER_EVENTS.removeLiveChat, { ticketId: ticket.id, ticketNumber: ticket.ticketNumber });
  await queueChanged();
  return files.map((f) => f.key).filter((k): k is string => !!k);
}

/** The visit of a live chat, for the agent's view. */
export async function visitOfTicket(ticketId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.livechatVisits).where(eq(schema.livechatVisits.ticketId, ticketId));
  return row ? { ...row, state: row.state as VisitState } : undefined;
}

/**
 * What the visitor sees of their chat while it runs: everyone's messages, not agents' notes or
 * system lines; rich text as plain text. Nothing once it is over (a converted chat goes on as a
 * ticket the visitor does not read here).
 */
export async function visitorMessages(visit: Visit) {
  if (!visit.ticket || (visit.state !== "queued" && visit.state !== "active")) return [];
  const { db, schema } = getDb();
  const m = schema.messages;
  const rows = await db
    .select({
      id: m.id,
      type: m.type,
      body: m.body,
      senderName: m.senderName,
      senderUserId: m.senderUserId,
      agentName: schema.users.name,
      fileName: m.fileName,
      createdAt: m.createdAt,
      cipher: m.cipher,
      keyVersion: m.keyVersion,
      clientId: m.clientId,
    })
    .from(m)
    .leftJoin(schema.users, eq(schema.users.id, m.senderUserId))
    .where(and(eq(m.ticketId, visit.ticket.id), ne(m.type, "system")))
    .orderBy(desc(m.createdAt), desc(m.id))
    .limit(200);
  return rows.reverse().map((r) => {
    // the visitor's own messages carry their name and no user (an agent's keeps the user, or
    // loses it when the agent is deleted, and has no sender name)
    const mine = r.senderUserId === null && r.senderName !== "";
    return {
      id: r.id,
      type: r.type,
      body: r.type === "text/html" ? sanitizeHtml(r.body, { allowedTags: [], allowedAttributes: {} }) : r.body,
      mine,
      sender: mine ? r.senderName : (r.agentName ?? ""),
      fileName: r.fileName,
      createdAt: r.createdAt,
      // end-to-end encrypted: the visitor's browser opens it (body stays '')
      sealed: r.type === ENCRYPTED_MESSAGE_TYPE ? { cipher: r.cipher ?? "", version: r.keyVersion ?? 0, clientId: r.clientId ?? "" } : null,
    };
  });
}

export interface DeskChat {
  id: number;
  ticketNumber: number;
  title: string;
  lastMessage: string;
  updatedAt: number;
  unread: boolean;
  state: VisitState | null;
  rating: number | null;
}
export interface DeskSession {
  id: number | null;
  name: string;
  updatedAt: number;
  chats: DeskChat[];
}

/** Chats waiting for an agent that the reader may take, longest waiting first. */
export async function waitingChats(reader: Reader, limit = 100) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const v = schema.livechatVisits;
  const rows = await db
    .select({ id: t.id, ticketNumber: t.ticketNumber, title: t.title, lastMessage: t.lastMessage, queuedAt: v.queuedAt })
    .from(v)
    .innerJoin(t, eq(t.id, v.ticketId))
    .where(and(eq(v.state, "queued"), readableBy(reader)))
    .orderBy(asc(v.queuedAt), asc(v.token))
    .limit(limit);
  return rows.map((r) => ({ ...r, queuedAt: r.queuedAt ?? 0 }));
}

/** The agent's live chat desk: waiting chats, then the others grouped by session, newest first. */
export async function liveChatDesk(reader: Reader, limit = 100) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const v = schema.livechatVisits;
  const p = schema.participants;
  const [queue, rows] = await Promise.all([
    waitingChats(reader),
    db
      .select({
        id: t.id,
        ticketNumber: t.ticketNumber,
        title: t.title,
        lastMessage: t.lastMessage,
        updatedAt: t.updatedAt,
        sessionId: t.sessionId,
        sessionName: schema.livechatSessions.name,
        rating: t.rating,
        state: v.state,
        unread: p.unread,
      })
      .from(t)
      .leftJoin(v, eq(v.ticketId, t.id))
      .leftJoin(schema.livechatSessions, eq(schema.livechatSessions.id, t.sessionId))
      .leftJoin(p, and(eq(p.ticketId, t.id), eq(p.userId, reader.id)))
      .where(and(eq(t.kind, "livechat"), or(isNull(v.state), ne(v.state, "queued")), readableBy(reader)))
      .orderBy(desc(t.updatedAt), desc(t.id))
      .limit(limit),
  ]);
  const sessions = new Map<string, DeskSession>();
  for (const r of rows) {
    const key = r.sessionId === null ? `t${r.id}` : `s${r.sessionId}`;
    let group = sessions.get(key);
    if (!group) sessions.set(key, (group = { id: r.sessionId, name: r.sessionName ?? r.title, updatedAt: r.updatedAt, chats: [] }));
    group.chats.push({
      id: r.id,
      ticketNumber: r.ticketNumber,
      title: r.title,
      lastMessage: r.lastMessage,
      updatedAt: r.updatedAt,
      unread: !!r.unread,
      state: (r.state as VisitState | null) ?? null,
      rating: r.rating,
    });
  }
  return { queue, sessions: [...sessions.values()] };
}
export type LiveChatDesk = Awaited<ReturnType<typeof liveChatDesk>>;

/** Sessions a chat's session may be merged into: others whose every chat the reader may read (as mergeSessions asks). */
export async function mergeTargets(reader: Reader, sessionId: number) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const s = schema.livechatSessions;
  const rule = readableBy(reader);
  const readable = db
    .select({ one: sql`1` })
    .from(t)
    .where(and(eq(t.sessionId, s.id), rule));
  // (coalesce: a NULL department makes the rule NULL, which is "not readable" too)
  const hidden =
    rule &&
    db
      .select({ one: sql`1` })
      .from(t)
      .where(and(eq(t.sessionId, s.id), sql`not coalesce(${rule}, false)`));
  return db
    .select({ id: s.id, name: s.name })
    .from(s)
    .where(and(ne(s.id, sessionId), exists(readable), hidden && notExists(hidden)))
    .orderBy(desc(s.id))
    .limit(100);
}
