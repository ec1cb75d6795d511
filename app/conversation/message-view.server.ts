// A conversation's messages as readers see them: the stored rows with their senders, notes,
// reactions, mail envelope and read marks (decorateMessages), and as the page shows them
// (shownMessages: day, time, sanitised HTML, system events). The page, the newMessage event and
// the missed-message replay all use shownMessages, so a message looks the same however it arrives.
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import sanitizeHtml from "sanitize-html";
import { getDb } from "@db/client";
import { formatDate, formatTime } from "~/time";
import type { DeliveryState } from "./delivery";
import { MESSAGE_HTML } from "./html.server";
import { isBotUsername } from "~/accounts/bots";
import { ENCRYPTED_MESSAGE_TYPE } from "./encrypted";

type MessageRow = typeof import("@db/schema/sqlite").messages.$inferSelect;

export interface MessageView {
  id: number;
  type: string;
  body: string;
  sender: string;
  senderUserId: number | null;
  /** Written by one of the product's bots (the WAUCHAT chat bot): the page names it "Bot" in the reader's language. */
  bot: boolean;
  createdAt: number;
  pinned: boolean;
  file: { name: string; type: string; size: number } | null;
  /** A customer's message whose file the provider has not handed over yet ("pending": tried again), or never did ("failed"). */
  fileState: "pending" | "failed" | null;
  reply: { id: number; sender: string; body: string; encrypted: boolean } | null;
  /** A mail's envelope as the page shows it, and its warning (failed SPF/DKIM/DMARC, or claiming to be an agent). */
  email: EmailView | null;
  /** `encrypted`: a note of an end-to-end encrypted conversation, opened by the participants' browsers (body is ''). */
  notes: {
    id: number;
    body: string;
    author: string;
    userId: number;
    updatedAt: number;
    encrypted: { cipher: string; version: number; clientId: string } | null;
  }[];
  reactions: { reaction: string; usernames: string[] }[];
  readBy: string[];
  /** Agent messages on a channel: how far it got ('' when it does not go out), and the provider's reason. */
  deliveryState: DeliveryState;
  deliveryError: string | null;
  /** An end-to-end encrypted message: its envelope, key version and client id, for the participants' browsers to open (body is ''). */
  encrypted: { cipher: string; version: number; clientId: string } | null;
}

export async function decorateMessages(ticket: { id: number }, rows: MessageRow[]): Promise<MessageView[]> {
  if (!rows.length) return [];
  const { db, schema } = getDb();
  const ids = rows.map((r) => r.id);
  const replyIds = rows.map((r) => r.replyToId).filter((x): x is number => !!x);
  const [notes, reactions, replies, readers, mails] = await Promise.all([
    db.select().from(schema.messageNotes).where(inArray(schema.messageNotes.messageId, ids)).orderBy(asc(schema.messageNotes.id)),
    db.select().from(schema.messageReactions).where(inArray(schema.messageReactions.messageId, ids)),
    replyIds.length
      ? db
          .select()
          .from(schema.messages)
          .where(and(inArray(schema.messages.id, replyIds), eq(schema.messages.ticketId, ticket.id)))
      : Promise.resolve([]),
    db
      .select({ userId: schema.participants.userId, lastReadAt: schema.participants.lastReadAt })
      .from(schema.participants)
      .where(eq(schema.participants.ticketId, ticket.id)),
    db.select().from(schema.emailMessages).where(inArray(schema.emailMessages.messageId, ids)),
  ]);
  // only the people these messages name (not every user of the workspace, for each new message)
  const named = new Set<number>();
  for (const r of [...rows, ...replies]) if (r.senderUserId) named.add(r.senderUserId);
  for (const x of [...notes, ...reactions, ...readers]) named.add(x.userId);
  const users = named.size
    ? await db
        .select({ id: schema.users.id, name: schema.users.name, username: schema.users.username })
        .from(schema.users)
        .where(inArray(schema.users.id, [...named]))
    : [];
  const mailById = new Map(mails.map((e) => [e.messageId, e]));
  const userById = new Map(users.map((u) => [u.id, u]));
  const senderOf = (r: { senderUserId: number | null; senderName: string }) => (r.senderUserId ? (userById.get(r.senderUserId)?.name ?? "?") : r.senderName);
  return rows.map((r) => {
    const reply = replies.find((x) => x.id === r.replyToId);
    const byReaction = new Map<string, string[]>();
    for (const x of reactions.filter((x) => x.messageId === r.id))
      byReaction.set(x.reaction, [...(byReaction.get(x.reaction) ?? []), userById.get(x.userId)?.username ?? "?"]);
    return {
      id: r.id,
      type: r.type,
      body: r.body,
      sender: senderOf(r),
      senderUserId: r.senderUserId,
      bot: !!r.senderUserId && isBotUsername(userById.get(r.senderUserId)?.username),
      createdAt: r.createdAt,
      pinned: r.pinned,
      file: r.fileKey ? { name: r.fileName ?? "file", type: r.fileType ?? "application/octet-stream", size: r.fileSize ?? 0 } : null,
      fileState: r.fileState === "pending" || r.fileState === "failed" ? r.fileState : null,
      reply: reply ? { id: reply.id, sender: senderOf(reply), body: reply.body.slice(0, 200), encrypted: reply.type === ENCRYPTED_MESSAGE_TYPE } : null,
      email: emailView(mailById.get(r.id), r),
      notes: notes
        .filter((n) => n.messageId === r.id)
        .map((n) => ({
          id: n.id,
          body: n.body,
          author: userById.get(n.userId)?.name ?? "?",
          userId: n.userId,
          updatedAt: n.updatedAt,
          encrypted: n.cipher ? { cipher: n.cipher, version: n.keyVersion ?? 0, clientId: n.clientId ?? "" } : null,
        })),
      reactions: [...byReaction].map(([reaction, usernames]) => ({ reaction, usernames })),
      readBy: readers.filter((p) => p.userId !== r.senderUserId && p.lastReadAt >= r.createdAt).map((p) => userById.get(p.userId)?.name ?? "?"),
      deliveryState: r.deliveryState as DeliveryState,
      deliveryError: r.deliveryError,
      encrypted: r.type === ENCRYPTED_MESSAGE_TYPE ? { cipher: r.cipher ?? "", version: r.keyVersion ?? 0, clientId: r.clientId ?? "" } : null,
    };
  });
}

export interface EmailView {
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  authWarning: "spoofedAgent" | "authFailed" | null;
  /** A plain-text mail's quoted history, shown folded. */
  quoted: string | null;
}

type Addresses = { address: string; name?: string }[];
const shownAddress = (a: { address: string; name?: string }) => (a.name ? `${a.name} <${a.address}>` : a.address);
const addressList = (json: string) => {
  try {
    return (JSON.parse(json) as Addresses).map(shownAddress);
  } catch {
    return [];
  }
};

/** The warning a mail's stored verdicts call for (plugins/email writes them). */
export function authWarning(authJson: string): EmailView["authWarning"] {
  let auth: { spoofedAgent?: boolean; spf?: string; dkim?: string; dmarc?: string };
  try {
    auth = JSON.parse(authJson || "{}");
  } catch {
    return null;
  }
  if (auth.spoofedAgent) return "spoofedAgent";
  return [auth.spf, auth.dkim, auth.dmarc].includes("fail") ? "authFailed" : null;
}

function emailView(e: typeof import("@db/schema/sqlite").emailMessages.$inferSelect | undefined, message: { quoted: string | null }): EmailView | null {
  if (!e) return null;
  return {
    from: shownAddress({ address: e.fromAddress, name: e.fromName }),
    to: addressList(e.to),
    cc: addressList(e.cc),
    subject: e.subject,
    authWarning: e.direction === "in" ? authWarning(e.auth) : null,
    quoted: message.quoted,
  };
}

/** A system message records who changed what; its text is localised when shown. */
export type SystemEvent =
  | { event: "status"; by: string; status: number }
  | { event: "assigned"; by: string; who: string }
  | { event: "unassigned"; by: string; who: string }
  | { event: "priority"; by: string; priority: string }
  | { event: "livechat"; by: string; action: "accepted" | "ended" | "converted" }
  /** A plugin's event (a case's status, a ticket put in a case): `text` is a key of the plugin's locales, a value "t:key" is translated too. */
  | { event: "plugin"; by: string; text: string; values: Record<string, string> };

/** A link's preview as stored by link-preview.server.ts (its image is kept, not shown). */
export interface LinkPreview {
  url: string;
  title: string;
  description: string;
  image: string;
}

/**
 * Messages as the conversation page shows them, in the workspace's time zone; `previews`: the
 * link previews already fetched (the page passes them when the rich-links cookie is on; a live
 * message has none yet, its previews arrive with the job's updateTicket).
 */
export function shownMessages(messages: MessageView[], timeZone: string, previews?: Map<number, LinkPreview[]>) {
  return messages.map((m) => ({
    ...m,
    day: formatDate(m.createdAt, timeZone),
    time: formatTime(m.createdAt, timeZone),
    html: m.type === "text/html" ? sanitizeHtml(m.body, MESSAGE_HTML) : null,
    system: m.type === "system" ? (JSON.parse(m.body) as SystemEvent) : null,
    previews: (previews?.get(m.id) ?? []).map((p) => ({ ...p, host: new URL(p.url).host })),
  }));
}
export type ShownMessage = ReturnType<typeof shownMessages>[number];

/** The most messages one replay answer carries; the client asks again from the last one. */
export const REPLAY_LIMIT = 100;

/** Messages of a conversation after `afterId`, oldest first (ids only grow), at most `limit`. */
export async function messagesAfter(ticket: { id: number }, afterId: number, limit = REPLAY_LIMIT) {
  const { db, schema } = getDb();
  const m = schema.messages;
  const rows = await db
    .select()
    .from(m)
    .where(and(eq(m.ticketId, ticket.id), gt(m.id, afterId)))
    .orderBy(asc(m.id))
    .limit(limit + 1);
  return { messages: await decorateMessages(ticket, rows.slice(0, limit)), more: rows.length > limit };
}

/** Messages of a conversation by id (those a write just committed), oldest first. */
export async function messagesById(ticket: { id: number }, ids: number[]) {
  if (!ids.length) return [];
  const { db, schema } = getDb();
  const m = schema.messages;
  const rows = await db
    .select()
    .from(m)
    .where(and(eq(m.ticketId, ticket.id), inArray(m.id, ids)))
    .orderBy(asc(m.id));
  return decorateMessages(ticket, rows);
}
