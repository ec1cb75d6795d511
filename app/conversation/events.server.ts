// Who hears what of a conversation, in one place. The model calls these once its writes have
// committed; socket.io only relays. Rooms: ticket:<id> (pages that have the conversation open),
// user:<id> (a person's lists), department:<id> (its agents' lists), the live chat visitor's.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { findUserById } from "~/accounts/users.server";
import { pruneRoom, publish, publishToVisitor } from "~/realtime.server";
import { SERVER_EVENTS, VISITOR_EVENTS, type ServerEvent } from "~/realtime-events";
import { canRead } from "./access.server";
import { conversationPath } from "./channels";

type Conversation = { id: number; ticketNumber: number; departmentId: number | null; kind: string };
type Created = Conversation & { channel: string; severity: string; title: string };

const room = (ticketId: number) => `ticket:${ticketId}`;
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
  const people = await db.select({ userId: schema.participants.userId }).from(schema.participants).where(eq(schema.participants.ticketId, c.id));
  for (const p of people) publish(`user:${p.userId}`, SERVER_EVENTS.updateTicket, body);
  if (c.departmentId && c.kind !== "chat") publish(`department:${c.departmentId}`, SERVER_EVENTS.channelDataUpdated, body);
}

/** Someone was added to or removed from a conversation: their own pages follow. */
export function participantChanged(userId: number, c: Conversation, change: { added: true } | { added: false; canRead: boolean }) {
  const where = change.added ? { path: conversationPath(c.kind, c.ticketNumber) } : {};
  publish(`user:${userId}`, SERVER_EVENTS.participantChanged, { ...basics(c), ...change, ...where });
}

/**
 * A new conversation: the people named in it hear of it, or (from outside: a public form, a
 * live chat) its department's agents, with what their popups show (app/popups.ts).
 */
export function conversationCreated(c: Created, audience: { userIds: number[] } | { department: true }) {
  const body = { ...basics(c), path: conversationPath(c.kind, c.ticketNumber) };
  if ("userIds" in audience) for (const id of audience.userIds) publish(`user:${id}`, SERVER_EVENTS.createTicket, body);
  // only what comes from outside may pop up for the department's agents
  else if (c.departmentId && c.kind !== "chat")
    publish(`department:${c.departmentId}`, SERVER_EVENTS.createTicket, { ...body, channel: c.channel, severity: c.severity, title: c.title });
}

/** After access changed: sockets of users who may no longer read the conversation leave its room. */
export async function revokeRoom(ticketId: number) {
  await pruneRoom(room(ticketId), async (userId) => {
    const user = await findUserById(userId);
    return !!user && (await canRead(user, ticketId));
  });
}
