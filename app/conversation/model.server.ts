// One conversation (ticket, workspace chat, call or live chat): what it shows and every change
// an agent makes to it. Each write runs in a transaction and then publishes its event.
import { and, asc, desc, eq, gt, inArray, isNull, lt, lte, max, ne, not, or, sql, type SQL } from "drizzle-orm";
import { getDb, isUniqueViolation, type Tx } from "@db/client";
import { conversationPath, kindOf, type Kind } from "~/conversation/channels";
import { announce, conversationCreated, newMessages, participantChanged, revokeRoom, toOpenPages } from "./events.server";
import { addNotification, notifyMentions, told, toldAll } from "~/conversation/notifications.server";
import { AccessDenied, canRead, type Reader } from "~/conversation/access.server";
import { MESSAGE_PAGE_SIZE, REACTIONS, type Priority } from "~/conversation/constants";
import { SERVER_EVENTS } from "~/realtime-events";
import { wakeJobs } from "~/jobs/queue.server";
import { queueDelivery, queueReaction } from "~/conversation/delivery.server";
import { channelReactions } from "~/conversation/composer-hints.server";
import { decorateMessages, type SystemEvent } from "./message-view.server";
import { queueLinkPreviews } from "~/conversation/link-preview.server";
import { recordEvents } from "~/conversation/sync.server";
import { rememberRequest } from "~/request-keys.server";
import { CLIENT_ID_PATTERN, ENCRYPTED_FILE_NAME, ENCRYPTED_FILE_TYPE, ENCRYPTED_MESSAGE_TYPE, isEnvelope } from "~/conversation/encrypted";

export class NotFound extends Error {}
/** An encrypted message the conversation does not take (`message`: a translation key): not encrypted, an old key version, a replay. */
export class EncryptionRefused extends Error {}
/** The customer's channel does not take this reaction (Telegram's fixed list): message is the channel's reason, a translation key. */
export class ReactionRefused extends Error {
  constructor(
    message: string,
    readonly reaction: string,
  ) {
    super(message);
  }
}

type Actor = Reader & { name: string; username: string };

/** A conversation by its number (pages) or id (JSON twins), checked against the reader. */
async function openConversation(reader: Reader, where: SQL, kind?: Kind) {
  const { db, schema } = getDb();
  const [ticket] = await db.select().from(schema.tickets).where(where);
  if (!ticket || (kind && ticket.kind !== kind)) throw new NotFound();
  if (!(await canRead(reader, ticket.id))) throw new AccessDenied();
  return ticket;
}

export function findConversation(reader: Reader, ticketNumber: number, kind: Kind) {
  if (!Number.isSafeInteger(ticketNumber)) throw new NotFound();
  return openConversation(reader, eq(getDb().schema.tickets.ticketNumber, ticketNumber), kind);
}
export type TicketRow = Awaited<ReturnType<typeof findConversation>>;

export function conversationById(reader: Reader, ticketId: number) {
  if (!Number.isSafeInteger(ticketId)) throw new NotFound();
  return openConversation(reader, eq(getDb().schema.tickets.id, ticketId));
}

export async function conversationDetails(ticket: TicketRow) {
  const { db, schema } = getDb();
  const [labels, people, department] = await Promise.all([
    db
      .select({ id: schema.ticketLabels.labelId, name: schema.labels.name, color: schema.labels.color })
      .from(schema.ticketLabels)
      .leftJoin(schema.labels, eq(schema.labels.id, schema.ticketLabels.labelId))
      .where(eq(schema.ticketLabels.ticketId, ticket.id)),
    db
      .select({
        userId: schema.users.id,
        username: schema.users.username,
        name: schema.users.name,
        assignee: schema.participants.assignee,
        lastReadAt: schema.participants.lastReadAt,
      })
      .from(schema.participants)
      .innerJoin(schema.users, eq(schema.users.id, schema.participants.userId))
      .where(eq(schema.participants.ticketId, ticket.id))
      .orderBy(asc(schema.participants.addedAt)),
    ticket.departmentId ? db.select().from(schema.departments).where(eq(schema.departments.id, ticket.departmentId)) : Promise.resolve([]),
  ]);
  return { labels, participants: people, department: department[0] ?? null };
}

/**
 * A page of messages, oldest first: the newest 30, or the 30 before `before`, or a window
 * around `around` (a message link from search or a notification).
 */
export async function loadMessages(ticket: TicketRow, opts: { before?: number; around?: number } = {}) {
  const { db, schema } = getDb();
  const m = schema.messages;
  let rows: (typeof m.$inferSelect)[];
  if (opts.around) {
    const [anchor] = await db
      .select()
      .from(m)
      .where(and(eq(m.id, opts.around), eq(m.ticketId, ticket.id)));
    if (!anchor) return loadMessages(ticket);
    const [older, newer] = await Promise.all([
      db
        .select()
        .from(m)
        .where(and(eq(m.ticketId, ticket.id), lte(m.id, anchor.id)))
        .orderBy(desc(m.id))
        .limit(MESSAGE_PAGE_SIZE / 2),
      db
        .select()
        .from(m)
        .where(and(eq(m.ticketId, ticket.id), gt(m.id, anchor.id)))
        .orderBy(asc(m.id))
        .limit(MESSAGE_PAGE_SIZE / 2),
    ]);
    rows = [...older.reverse(), ...newer];
  } else {
    rows = (
      await db
        .select()
        .from(m)
        .where(and(eq(m.ticketId, ticket.id), opts.before ? lt(m.id, opts.before) : undefined))
        .orderBy(desc(m.id))
        .limit(MESSAGE_PAGE_SIZE)
    ).reverse();
  }
  const oldest = rows[0]?.id;
  const [{ n: olderCount }] = oldest
    ? await db
        .select({ n: sql<number>`count(*)` })
        .from(m)
        .where(and(eq(m.ticketId, ticket.id), lt(m.id, oldest)))
    : [{ n: 0 }];
  return { messages: await decorateMessages(ticket, rows), hasOlder: Number(olderCount) > 0 };
}

export interface StoredFile {
  key: string;
  name: string;
  type: string;
  size: number;
}

/**
 * An agent's reply: the text (if any) and one message per attachment, written together; the
 * ticket's last message, activity time and "responded" flag follow. On a channel ticket the same
 * transaction queues it to go out (delivery.server.ts) to the customer and `recipients`.
 */
export async function reply(
  actor: Actor,
  ticket: TicketRow,
  input: {
    body: string;
    replyToId?: number;
    files: StoredFile[];
    html?: boolean;
    recipients?: { to: string[]; cc: string[] };
    /** Rows a channel keeps beside the reply (a WhatsApp template's name and values), written in the reply's own transaction. */
    attach?: (tx: Tx, messages: { id: number }[]) => Promise<void>;
    /** An end-to-end encrypted message (the browser's envelope, its key version and client id): one message, with at most one (encrypted) file. */
    encrypted?: { cipher: string; keyVersion: number; clientId: string };
  },
) {
  if (input.replyToId) await messageOf(ticket, input.replyToId);
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  let previews = 0;
  let mentioned: number[] = [];
  const created = await handle.transaction(async (tx) => {
    const rows: (typeof schema.messages.$inferInsert)[] = [];
    const sealed = input.encrypted;
    if (sealed) {
      await checkKeyVersion(tx, ticket.id, sealed.keyVersion);
      const file = input.files[0];
      rows.push({
        ticketId: ticket.id,
        type: ENCRYPTED_MESSAGE_TYPE,
        body: "",
        cipher: sealed.cipher,
        keyVersion: sealed.keyVersion,
        clientId: sealed.clientId,
        senderUserId: actor.id,
        replyToId: input.replyToId ?? null,
        createdAt: now,
        ...(file ? { fileKey: file.key, fileName: ENCRYPTED_FILE_NAME, fileType: ENCRYPTED_FILE_TYPE, fileSize: file.size } : {}),
      });
    } else if (input.body)
      rows.push({
        ticketId: ticket.id,
        type: input.html ? "text/html" : "text",
        body: input.body,
        senderUserId: actor.id,
        replyToId: input.replyToId ?? null,
        createdAt: now,
      });
    if (!sealed) for (const f of input.files) rows.push(fileMessage(ticket.id, f, { senderUserId: actor.id }, now));
    let inserted: (typeof schema.messages.$inferSelect)[];
    try {
      inserted = await tx.insert(schema.messages).values(rows).returning();
    } catch (error) {
      // the client id is unique per conversation: a replayed encrypted message is refused
      if (sealed && isUniqueViolation(error)) throw new EncryptionRefused("conversation.encryption.replayed");
      throw error;
    }
    // an encrypted message leaves no text for the lists (they say 'Encrypted message')
    const last = sealed ? "" : input.body || input.files.at(-1)?.name || "";
    await touch(tx, ticket.id, actor.id, now, { lastMessage: last.slice(0, 300), responded: true });
    const ids = inserted.map((m) => m.id);
    await input.attach?.(tx, inserted);
    await rememberRequest(tx, { ids });
    previews = await queueLinkPreviews(tx, ticket.id, inserted, now);
    // an @name in a workspace chat tells that person
    if (ticket.kind === "chat" && input.body) mentioned = await notifyMentions(tx, actor, ticket, input.body, now);
    if (await queueDelivery(tx, ticket, ids, input.recipients ?? { to: [], cc: [] }))
      return inserted.map((m) => ({ ...m, deliveryState: "queued", deliveryError: null }));
    return inserted;
  });
  await newMessages(
    ticket,
    created.map((m) => m.id),
    actor.username,
  );
  if (created[0]?.deliveryState === "queued" || previews) wakeJobs();
  toldAll(mentioned);
  return created;
}

/** Writes a system message; its id, for the event that shows it. */
export async function systemMessage(tx: Tx, ticketId: number, event: SystemEvent, at: number) {
  const { schema } = getDb();
  const [row] = await tx
    .insert(schema.messages)
    .values({ ticketId, type: "system", body: JSON.stringify(event), createdAt: at })
    .returning({ id: schema.messages.id });
  return row.id;
}

/** The actor of activity from outside (a customer's mail, a live chat visitor): nobody of the desk. */
export const FROM_OUTSIDE = -1;

/** New activity: the conversation moves up the lists and is unread for everyone but the actor (FROM_OUTSIDE: for everyone). */
export async function touch(tx: Tx, ticketId: number, actorId: number, at: number, set: Partial<typeof import("@db/schema/sqlite").tickets.$inferInsert> = {}) {
  const { schema } = getDb();
  const p = schema.participants;
  await tx
    .update(schema.tickets)
    .set({ ...set, updatedAt: at })
    .where(eq(schema.tickets.id, ticketId));
  // One statement over the rows that change (others not yet unread, and the actor): the
  // unread_counts triggers fire once per change, and on PostgreSQL this transaction takes the
  // counter rows of the conversation's people in one pass instead of others first, then its own,
  // the order that could deadlock against a reply by one of those people elsewhere.
  await tx
    .update(p)
    .set({ unread: sql`${p.userId} <> ${actorId}`, lastReadAt: sql`case when ${p.userId} = ${actorId} then ${at} else ${p.lastReadAt} end` })
    .where(and(eq(p.ticketId, ticketId), or(eq(p.userId, actorId), eq(p.unread, false))));
}

/**
 * A new status: its system message, the lists' news and the open pages' event. The row is changed
 * only where it is not in that status yet, in the same transaction as the message, so two people
 * setting it at once write one change each in turn (the later wins) and never a message for nothing
 * (the kanban board moves cards through here).
 */
export async function setStatus(actor: Actor, ticket: TicketRow, status: number) {
  if (![0, 1, 2, 3].includes(status)) return false;
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const changed = await handle.transaction(async (tx) => {
    const moved = await tx
      .update(schema.tickets)
      .set({ status })
      .where(and(eq(schema.tickets.id, ticket.id), ne(schema.tickets.status, status)))
      .returning({ id: schema.tickets.id });
    if (!moved.length) return false;
    await rememberRequest(tx);
    await systemMessage(tx, ticket.id, { event: "status", by: actor.name, status }, now);
    await touch(tx, ticket.id, actor.id, now, { status });
    return true;
  });
  if (!changed) return false;
  await announce(ticket, SERVER_EVENTS.ticketStatusChanged, { status });
  return true;
}

export async function setPriority(ticket: TicketRow, priority: Priority) {
  const { db, schema } = getDb();
  // activity, as a label change is: the SLA engine follows updated_at and a policy may be per priority
  await db.update(schema.tickets).set({ severity: priority, updatedAt: Date.now() }).where(eq(schema.tickets.id, ticket.id));
  await announce(ticket, SERVER_EVENTS.updateTicket, { severity: priority });
}

export async function setLabels(ticket: TicketRow, labelIds: number[]) {
  const handle = getDb();
  const { schema } = handle;
  const known = (await handle.db.select({ id: schema.labels.id }).from(schema.labels)).map((l) => l.id);
  const ids = [...new Set(labelIds)].filter((id) => known.includes(id));
  await handle.transaction(async (tx) => {
    await tx.delete(schema.ticketLabels).where(eq(schema.ticketLabels.ticketId, ticket.id));
    if (ids.length) await tx.insert(schema.ticketLabels).values(ids.map((labelId) => ({ ticketId: ticket.id, labelId })));
    // activity: lists show it, and reports pick up the labels' SLA
    await tx.update(schema.tickets).set({ updatedAt: Date.now() }).where(eq(schema.tickets.id, ticket.id));
  });
  await announce(ticket, SERVER_EVENTS.updateTicket, { labels: ids });
}

export async function setDepartment(ticket: TicketRow, departmentId: number | null) {
  const { db, schema } = getDb();
  if (departmentId !== null) {
    const [dep] = await db.select().from(schema.departments).where(eq(schema.departments.id, departmentId));
    if (!dep) return false;
  }
  await db.update(schema.tickets).set({ departmentId }).where(eq(schema.tickets.id, ticket.id));
  await revokeRoom(ticket.id);
  await announce({ ...ticket, departmentId }, SERVER_EVENTS.updateTicket, { departmentId });
  return true;
}

export async function addParticipant(actor: Actor, ticket: TicketRow, username: string, assignee: boolean) {
  const handle = getDb();
  const { schema } = handle;
  const [user] = await handle.db.select().from(schema.users).where(eq(schema.users.username, username));
  // a disabled account is not offered and cannot be brought in
  if (!user || user.disabledAt) return false;
  const now = Date.now();
  await handle.transaction(async (tx) => {
    const added = await tx
      .insert(schema.participants)
      .values({ ticketId: ticket.id, userId: user.id, assignee, unread: user.id !== actor.id, kind: ticket.kind, addedAt: now })
      .onConflictDoNothing()
      .returning({ userId: schema.participants.userId });
    if (added.length) await needsNewKey(tx, ticket.id);
    else
      await tx
        .update(schema.participants)
        .set({ assignee })
        .where(and(eq(schema.participants.ticketId, ticket.id), eq(schema.participants.userId, user.id)));
    if (assignee) {
      await systemMessage(tx, ticket.id, { event: "assigned", by: actor.name, who: user.name }, now);
      await touch(tx, ticket.id, actor.id, now);
    }
    if (user.id !== actor.id)
      await addNotification(
        tx,
        {
          userId: user.id,
          type: assignee ? "assigned" : "added",
          channel: ticket.kind,
          ticketNumber: ticket.ticketNumber,
          title: ticket.title,
          body: actor.name,
        },
        now,
      );
  });
  participantChanged(user.id, ticket, { added: true });
  if (user.id !== actor.id) told(user.id);
  return true;
}

export async function removeParticipant(actor: Actor, ticket: TicketRow, userId: number) {
  const handle = getDb();
  const { schema } = handle;
  const [user] = await handle.db.select().from(schema.users).where(eq(schema.users.id, userId));
  if (!user) return false;
  const now = Date.now();
  await handle.transaction(async (tx) => {
    const removed = await tx
      .delete(schema.participants)
      .where(and(eq(schema.participants.ticketId, ticket.id), eq(schema.participants.userId, userId)))
      .returning();
    if (removed.length) await needsNewKey(tx, ticket.id);
    if (removed[0]?.assignee) {
      await systemMessage(tx, ticket.id, { event: "unassigned", by: actor.name, who: user.name }, now);
      await touch(tx, ticket.id, actor.id, now);
    }
  });
  const stillReads = await canRead(user, ticket.id);
  // a removed agent's open pages stop hearing about the conversation at once
  if (!stillReads) await revokeRoom(ticket.id);
  participantChanged(userId, ticket, { added: false, canRead: stillReads });
  return true;
}

/**
 * Participants changed: an encrypted conversation needs a new key version, which the next sender's
 * browser makes (wrapped for the participants from now on only); until then ciphertext is refused.
 * Not with `encryption_method` 'aes': its key comes from a passphrase shared out of band, which
 * the participants' set does not change.
 */
export async function needsNewKey(tx: Tx, ticketId: number) {
  const t = getDb().schema.tickets;
  await tx
    .update(t)
    .set({ encryptionRekey: true })
    .where(and(eq(t.id, ticketId), eq(t.encryption, true), eq(t.encryptionMethod, "rsa")));
}

/**
 * An encrypted message or note is taken only sealed with the conversation's current key version,
 * checked in the write's transaction: a new version or a participant change may have come in between.
 */
export async function checkKeyVersion(tx: Tx, ticketId: number, keyVersion: number) {
  const t = getDb().schema.tickets;
  const [current] = await tx.select({ encryption: t.encryption, version: t.encryptionVersion, rekey: t.encryptionRekey }).from(t).where(eq(t.id, ticketId));
  if (!current?.encryption) throw new EncryptionRefused("conversation.encryption.notEncrypted");
  if (current.rekey || current.version !== keyVersion) throw new EncryptionRefused("conversation.encryption.oldKey");
}

/** Only messages of this ticket can be touched through it. */
async function messageOf(ticket: TicketRow, messageId: number) {
  const { db, schema } = getDb();
  const [message] = await db
    .select()
    .from(schema.messages)
    .where(and(eq(schema.messages.id, messageId), eq(schema.messages.ticketId, ticket.id)));
  if (!message) throw new NotFound();
  return message;
}

/** Messages of this ticket by id, oldest first (a replayed send's answer). */
export async function messagesOfTicket(ticket: Pick<TicketRow, "id">, ids: number[]) {
  if (!ids.length) return [];
  const { db, schema } = getDb();
  const m = schema.messages;
  return db
    .select()
    .from(m)
    .where(and(eq(m.ticketId, ticket.id), inArray(m.id, ids)))
    .orderBy(asc(m.id));
}

/**
 * A private note on a message. In an end-to-end encrypted conversation only a sealed one (the
 * browser's envelope of the current key version, bound to this message, under a fresh client id):
 * a plain note there would be stored readable.
 */
export async function addNote(
  actor: Actor,
  ticket: TicketRow,
  messageId: number,
  body: string,
  encrypted?: { cipher: string; keyVersion: number; clientId: string },
) {
  if (ticket.encryption && !encrypted) throw new EncryptionRefused("conversation.encryption.noNotes");
  if (encrypted && !(isEnvelope(encrypted.cipher) && CLIENT_ID_PATTERN.test(encrypted.clientId) && Number.isSafeInteger(encrypted.keyVersion)))
    throw new EncryptionRefused("conversation.encryption.malformed");
  await messageOf(ticket, messageId);
  const handle = getDb();
  const now = Date.now();
  let mentioned: number[] = [];
  const note = await handle.transaction(async (tx) => {
    await rememberRequest(tx);
    if (encrypted) await checkKeyVersion(tx, ticket.id, encrypted.keyVersion);
    const values = encrypted
      ? { body: "", cipher: encrypted.cipher, keyVersion: encrypted.keyVersion, clientId: encrypted.clientId }
      : { body: body.slice(0, 2000) };
    let row: typeof handle.schema.messageNotes.$inferSelect;
    try {
      [row] = await tx
        .insert(handle.schema.messageNotes)
        .values({ messageId, userId: actor.id, ...values, createdAt: now, updatedAt: now })
        .returning();
    } catch (error) {
      if (encrypted && isUniqueViolation(error)) throw new EncryptionRefused("conversation.encryption.replayed");
      throw error;
    }
    if (!encrypted) mentioned = await notifyMentions(tx, actor, ticket, row.body, now);
    return row;
  });
  toOpenPages(ticket, SERVER_EVENTS.receiveNote, { messageId, noteId: note.id });
  toldAll(mentioned);
}

export async function deleteNote(actor: Actor, ticket: TicketRow, noteId: number) {
  const { db, schema } = getDb();
  const [note] = await db.select().from(schema.messageNotes).where(eq(schema.messageNotes.id, noteId));
  if (!note) throw new NotFound();
  await messageOf(ticket, note.messageId);
  if (note.userId !== actor.id && actor.type !== "admin") throw new AccessDenied();
  await db.delete(schema.messageNotes).where(eq(schema.messageNotes.id, noteId));
  toOpenPages(ticket, SERVER_EVENTS.deleteNote, { noteId });
}

export async function toggleReaction(actor: Actor, ticket: TicketRow, messageId: number, reaction: string) {
  if (!(REACTIONS as readonly string[]).includes(reaction)) return;
  const message = await messageOf(ticket, messageId);
  const handle = getDb();
  const r = handle.schema.messageReactions;
  const where = and(eq(r.messageId, messageId), eq(r.userId, actor.id), eq(r.reaction, reaction));
  // a reaction the customer's channel cannot carry is refused with its reason rather than shown as sent (taking one back always works)
  if (message.senderUserId == null && ticket.kind === "ticket") {
    const rules = await channelReactions(ticket);
    if (rules?.reason && (rules.refused as string[]).includes(reaction) && !(await handle.db.select().from(r).where(where)).length)
      throw new ReactionRefused(rules.reason, reaction);
  }
  // two different toggles never fail on the primary key (a resent one is stopped by its request key)
  let toChannel = false;
  const removed = await handle.transaction(async (tx) => {
    await rememberRequest(tx);
    const gone = await tx.delete(r).where(where).returning();
    if (!gone.length) await tx.insert(r).values({ messageId, userId: actor.id, reaction }).onConflictDoNothing();
    // an agent's reaction to a customer's message reaches the customer on their channel
    toChannel = await queueReaction(tx, ticket, message, reaction);
    return gone;
  });
  if (toChannel) wakeJobs();
  toOpenPages(ticket, removed.length ? SERVER_EVENTS.removeReaction : SERVER_EVENTS.addReaction, { messageId, reaction, username: actor.username });
}

export async function togglePin(ticket: TicketRow, messageId: number) {
  await messageOf(ticket, messageId);
  const handle = getDb();
  const m = handle.schema.messages;
  // flipped in the statement itself, so two toggles at once cannot overwrite each other
  const row = await handle.transaction(async (tx) => {
    await rememberRequest(tx);
    const [flipped] = await tx
      .update(m)
      .set({ pinned: not(m.pinned) })
      .where(eq(m.id, messageId))
      .returning({ pinned: m.pinned });
    return flipped;
  });
  toOpenPages(ticket, row.pinned ? SERVER_EVENTS.addPin : SERVER_EVENTS.removePin, { messageId });
}

/** Agents delete their own messages; admins any. Returns the deleted message's file key. */
export async function deleteMessage(actor: Actor, ticket: TicketRow, messageId: number) {
  const message = await messageOf(ticket, messageId);
  if (message.senderUserId !== actor.id && actor.type !== "admin") throw new AccessDenied();
  const handle = getDb();
  await handle.transaction(async (tx) => {
    await tx.delete(handle.schema.messages).where(eq(handle.schema.messages.id, messageId));
    // a deleted message leaves no row: clients that were away learn of it from the event feed
    await recordEvents(tx, [{ action: "delete_message", ticketId: ticket.id, refId: messageId }]);
  });
  toOpenPages(ticket, SERVER_EVENTS.syncDelete, { messageId });
  return message.fileKey;
}

/** Marks the conversation read for the reader; true when it was unread. */
export async function markConversationRead(reader: Reader, ticket: TicketRow) {
  const { db, schema } = getDb();
  const p = schema.participants;
  const changed = await db
    .update(p)
    .set({ lastReadAt: Date.now(), unread: false })
    .where(and(eq(p.ticketId, ticket.id), eq(p.userId, reader.id), lt(p.lastReadAt, ticket.updatedAt)))
    .returning({ userId: p.userId });
  return changed.length > 0;
}

// the shell's and the list panel's loaders run in parallel and each waits for the mark before it
// reads: one request marks once, whichever asks first
const viewedIn = new WeakMap<object, Promise<void>>();

/**
 * Opening a conversation page marks it read, once per request (`loadContext` is Remix's per
 * request); the shell waits for it before it counts unread, the list panel before it lists.
 */
export function markViewed(reader: Reader, pathname: string, loadContext: object): Promise<void> {
  let marked = viewedIn.get(loadContext);
  if (!marked) viewedIn.set(loadContext, (marked = markPathRead(reader, pathname)));
  return marked;
}

async function markPathRead(reader: Reader, pathname: string) {
  const m = /^\/(ticket|chat|call|livechat)\/(\d+)$/.exec(pathname);
  if (!m) return;
  try {
    await markConversationRead(reader, await findConversation(reader, Number(m[2]), m[1] as Kind));
  } catch (error) {
    // unknown or forbidden: the page itself answers 404 or 403
    if (!(error instanceof NotFound || error instanceof AccessDenied)) throw error;
  }
}

/**
 * Starts a conversation (a workspace chat, or a ticket entered by hand) with its first message;
 * the creator takes part, and so do the people named.
 */
export async function createConversation(
  actor: Actor,
  input: { channel: string; title: string; body: string; departmentId?: number | null; usernames?: string[] },
) {
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const others = input.usernames?.length
    ? await handle.db
        .select()
        .from(schema.users)
        .where(and(inArray(schema.users.username, input.usernames), isNull(schema.users.disabledAt)))
    : [];
  let previews = false;
  const create = () =>
    handle.transaction(async (tx) => {
      const created = await insertTicket(tx, { title: input.title, channel: input.channel, departmentId: input.departmentId ?? null }, input.body, now);
      await rememberRequest(tx, { ticketNumber: created.ticketNumber, kind: created.kind });
      // in user order, so concurrent transactions take the unread_counts rows (PostgreSQL row
      // locks) in the same order
      const people = [{ id: actor.id }, ...others.filter((u) => u.id !== actor.id)].sort((a, b) => a.id - b.id);
      await tx.insert(schema.participants).values(
        people.map((u) => ({
          ticketId: created.id,
          userId: u.id,
          kind: created.kind,
          unread: u.id !== actor.id,
          lastReadAt: u.id === actor.id ? now : 0,
          addedAt: now,
        })),
      );
      if (input.body) await tx.insert(schema.messages).values({ ticketId: created.id, type: "text", body: input.body, senderUserId: actor.id, createdAt: now });
      if (await queueLinkPreviews(tx, created.id, [{ type: "text", body: input.body }], now)) previews = true;
      return created;
    });
  const ticket = await withUniqueNumber(create);
  await conversationCreated(ticket, { userIds: others.map((u) => u.id) });
  if (previews) wakeJobs();
  return ticket;
}

/** The stored file of a message the reader may read. */
export async function messageFile(reader: Reader, messageId: number) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ message: schema.messages, kind: schema.tickets.kind, ticketNumber: schema.tickets.ticketNumber })
    .from(schema.messages)
    .innerJoin(schema.tickets, eq(schema.tickets.id, schema.messages.ticketId))
    .where(eq(schema.messages.id, messageId));
  const message = row?.message;
  if (!message?.fileKey) throw new NotFound();
  if (!(await canRead(reader, message.ticketId))) throw new AccessDenied();
  // the conversation's page, whose plugin gate the file follows
  const page = conversationPath(row.kind, row.ticketNumber);
  return { key: message.fileKey, name: message.fileName ?? "file", type: message.fileType ?? "application/octet-stream", page };
}

export async function staffList() {
  const { db, schema } = getDb();
  // the people one may assign or bring in: disabled accounts are left out (their tickets stay)
  return db
    .select({ id: schema.users.id, username: schema.users.username, name: schema.users.name })
    .from(schema.users)
    .where(isNull(schema.users.disabledAt))
    .orderBy(asc(schema.users.name));
}

/** "Marked this sender as H priority": a sender's new tickets take the priority last marked on theirs. */
export async function senderPriority(contactEmail: string) {
  if (!contactEmail) return "";
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [last] = await db
    .select({ severity: t.severity })
    .from(t)
    .where(and(eq(t.contactEmail, contactEmail), ne(t.severity, "")))
    .orderBy(desc(t.updatedAt))
    .limit(1);
  return last?.severity ?? "";
}

type NewTicket = Pick<
  typeof import("@db/schema/sqlite").tickets.$inferInsert,
  | "title"
  | "channel"
  | "departmentId"
  | "contactName"
  | "contactEmail"
  | "contactPhone"
  | "sessionId"
  | "severity"
  | "receiverEmail"
  | "channelAccountId"
  | "customerId"
  | "ref"
  | "status"
>;

/**
 * The next ticket number. SQLite has one writer, so the largest number plus one is free. PostgreSQL
 * takes it from a sequence (migration ticket_number_seq): creators at once had read the same max and
 * all but one were refused by the unique index (bench:channels: 454 of 742 new conversations, each
 * retried a minute later); a lock until commit made them queue holding their connections instead.
 * A number given outside this (the seed, a restore) moves the sequence past it.
 */
async function nextTicketNumber(tx: Tx) {
  const { schema, dialect } = getDb();
  const [{ top }] = await tx.select({ top: max(schema.tickets.ticketNumber) }).from(schema.tickets);
  const floor = Math.max(100000, Number(top ?? 0));
  if (dialect === "sqlite") return floor + 1;
  const exec = (q: SQL) => (tx as unknown as { execute(q: SQL): Promise<{ rows: { n: string }[] }> }).execute(q);
  const { rows } = await exec(sql`select nextval('ticket_number_seq') as n`);
  if (Number(rows[0].n) > floor) return Number(rows[0].n);
  // behind a number given by hand: on from there (two at once may still meet: withUniqueNumber)
  await exec(sql`select setval('ticket_number_seq', ${floor})`);
  return Number((await exec(sql`select nextval('ticket_number_seq') as n`)).rows[0].n);
}

/** A new conversation row: the next number (from 100001), its kind from the channel, the first message as the list's preview. */
export async function insertTicket(tx: Tx, fields: NewTicket, firstMessage: string, now: number) {
  const { schema } = getDb();
  const [created] = await tx
    .insert(schema.tickets)
    .values({
      ...fields,
      ticketNumber: await nextTicketNumber(tx),
      kind: kindOf(fields.channel),
      lastMessage: firstMessage.slice(0, 300),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return created;
}

/** A message carrying one stored file: an image, or a file of its own mime type. */
export function fileMessage(ticketId: number, f: StoredFile, sender: { senderUserId?: number; senderName?: string }, at: number) {
  return {
    ticketId,
    type: f.type.startsWith("image/") ? "image" : f.type,
    body: f.name,
    ...sender,
    fileKey: f.key,
    fileName: f.name,
    fileType: f.type,
    fileSize: f.size,
    createdAt: at,
  };
}

/** Two creators at once (PostgreSQL) can pick the same next number; the unique index refuses one, which tries again. */
export async function withUniqueNumber<T>(create: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      if (attempt >= 5 || !isUniqueViolation(error)) throw error;
    }
  }
}
