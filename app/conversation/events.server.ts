// Who hears what of a conversation, in one place. The model calls these once its writes have
// committed; socket.io only relays. Rooms: ticket:<id> (pages that have the conversation open),
// user:<id> (a person's lists), department:<id> (its agents' lists), the live chat visitor's.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { findUserById } from "~/accounts/users.server";
import { pruneRoom, publish, publishToVisitor } from "~/realtime.server";
import { SERVER_EVENTS, VISITOR_EVENTS, type ServerEvent } from "~/realtime-events";
import { canRead } from "./access.server";
import { publishToFiltered } from "./notice-filter.server";
import { conversationPath } from "./channels";
import { messagesById, shownMessages } from "./message-view.server";
import { getWorkspace } from "~/models/settings.server";
import { deltaCoalescer } from "./delta-coalescer";

type Conversation = { id: number; ticketNumber: number; departmentId: number | null; kind: string };
type Created = Conversation & { channel: string; severity: string; title: string; campaignId?: number | null };

const room = (ticketId: number) => `ticket:${ticketId}`;

/**
 * Sockets of pages that follow every ticket's status (the kanban board): they hear each
 * ticketStatusChanged wherever it was made. A plugin puts a socket in only for readers of every
 * ticket (the board is for admins).
 */
export const STATUS_WATCH_ROOM = "status-watch";
const basics = (c: Conversation) => ({ ticketId: c.id, ticketNumber: c.ticketNumber });

/** Pages with the conversation open, and its live chat visitor for the events they hear of. */
export function toOpenPages(c: Conversation, event: ServerEvent, payload: Record<string, unknown> = {}) {
  publish(room(c.id), event, { ...basics(c), ...payload });
  if (c.kind === "livechat" && VISITOR_EVENTS.includes(event)) publishToVisitor(c.id, event);
}

/**
 * The conversation changed where lists show it: its open pages, its participants' lists
 * (updateTicket) and its department's agents' lists (channelDataUpdated: applied by agents,
 * ignored by admins, who are not in department rooms; workspace chats are for participants only).
 */
export async function announce(c: Conversation, event: ServerEvent, payload: Record<string, unknown> = {}) {
  const { db, schema } = getDb();
  const body = { ...basics(c), ...payload };
  toOpenPages(c, event, payload);
  if (event === SERVER_EVENTS.ticketStatusChanged && c.kind === "ticket") publish(STATUS_WATCH_ROOM, event, body);
  const people = await db.select({ userId: schema.participants.userId }).from(schema.participants).where(eq(schema.participants.ticketId, c.id));
  for (const p of people) publish(`user:${p.userId}`, SERVER_EVENTS.updateTicket, body);
  if (c.departmentId && c.kind !== "chat") publish(`department:${c.departmentId}`, SERVER_EVENTS.channelDataUpdated, body);
}

/**
 * New messages in a conversation. Its open pages (the room: only readers get in, see joinRoom)
 * get the messages as the page shows them and append them; lists get a small delta (last message,
 * time, who wrote it: unread for everyone else) instead of reloading. `by`: the writer's username,
 * "" for a customer.
 */
export async function newMessages(c: Conversation, messageIds: number[], by: string) {
  const { db, schema } = getDb();
  const [shown, [row]] = await Promise.all([
    messagesById(c, messageIds),
    db.select({ lastMessage: schema.tickets.lastMessage, updatedAt: schema.tickets.updatedAt }).from(schema.tickets).where(eq(schema.tickets.id, c.id)),
  ]);
  const { timeZone } = await getWorkspace();
  toOpenPages(c, SERVER_EVENTS.newMessage, { messageIds, messages: shownMessages(shown, timeZone) });
  const people = await db.select({ userId: schema.participants.userId }).from(schema.participants).where(eq(schema.participants.ticketId, c.id));
  listAudience.set(c.id, { c, people: people.map((p) => p.userId) });
  listNews(c.id, { messageIds, lastMessage: row?.lastMessage ?? "", updatedAt: row?.updatedAt ?? Date.now(), by });
}

/** Who a conversation's list delta goes to, as its latest message found them. */
const listAudience = new Map<number, { c: Conversation; people: number[] }>();
/** Lists hear of a busy conversation at most twice a second (the open pages get every message above). */
const listNews = deltaCoalescer((ticketId, delta) => {
  const audience = listAudience.get(ticketId);
  if (!audience) return;
  listAudience.delete(ticketId);
  const { c, people } = audience;
  const body = { ...basics(c), ...delta };
  for (const userId of people) publish(`user:${userId}`, SERVER_EVENTS.updateTicket, body);
  if (c.departmentId && c.kind !== "chat") publish(`department:${c.departmentId}`, SERVER_EVENTS.channelDataUpdated, body);
}, 500);

/** Someone was added to or removed from a conversation: their own pages follow. */
export function participantChanged(userId: number, c: Conversation, change: { added: true } | { added: false; canRead: boolean }) {
  const where = change.added ? { path: conversationPath(c.kind, c.ticketNumber) } : {};
  publish(`user:${userId}`, SERVER_EVENTS.participantChanged, { ...basics(c), ...change, ...where });
}

/**
 * A new conversation: the people named in it hear of it, or (from outside: a public form, a
 * live chat) its department's agents, with what their popups show (app/popups.ts).
 */
export async function conversationCreated(c: Created, audience: { userIds: number[] } | { department: true }) {
  const body = { ...basics(c), path: conversationPath(c.kind, c.ticketNumber) };
  // each page hears of it only when it passes the list filters that page shows (spec section 4)
  if ("userIds" in audience) await Promise.all(audience.userIds.map((id) => publishToFiltered(`user:${id}`, SERVER_EVENTS.createTicket, body, c)));
  // only what comes from outside may pop up for the department's agents
  else if (c.departmentId && c.kind !== "chat")
    await publishToFiltered(
      `department:${c.departmentId}`,
      SERVER_EVENTS.createTicket,
      { ...body, channel: c.channel, severity: c.severity, title: c.title },
      c,
    );
}

/** After access changed: sockets of users who may no longer read the conversation leave its room. */
export async function revokeRoom(ticketId: number) {
  await pruneRoom(room(ticketId), async (userId) => {
    const user = await findUserById(userId);
    return !!user && (await canRead(user, ticketId));
  });
}
