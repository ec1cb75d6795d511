// What every messaging channel (WhatsApp, Messenger, Instagram, X, LINE, Telegram, SMS) does the
// same way, so an adapter only speaks its provider's protocol: a stored webhook event becomes a
// customer's message on their conversation (or a receipt moves a sent message's state forward),
// and an agent's reply goes out message by message, each recorded as soon as the provider took it,
// so a send job run again after a crash sends nothing twice.
import { and, asc, desc, eq, inArray, lte, notInArray } from "drizzle-orm";
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { getDb, type Tx } from "@db/client";
import { PermanentFailure, wakeJobs } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { log } from "~/ops/log.server";
import { awaitMedia, fetchMedia, type MediaRef } from "./pending-media.server";
import { rateLimited, retryAfterHeader } from "./rate-limit.server";
import { receive } from "~/conversation/receive.server";
import { setDeliveryState } from "~/conversation/delivery.server";
import { DELIVERY_ERRORS } from "~/conversation/delivery";
import { PENDING, RESOLVED } from "~/conversation/constants";
import type { StoredFile } from "~/conversation/model.server";
import type { Channel } from "~/conversation/channels";
import type { ChannelAccount, ChannelAdapter, InboundEvent, OutboundMessage, ReceiveOutcome, SendResult } from "./adapter";
import { markEventProcessed } from "./inbound.server";
import { hasResponders, heldByResponder, tellResponders } from "./responders.server";

export type { MediaRef } from "./pending-media.server";

/** A customer's message, as the adapter read it from the provider's event. */
export interface CustomerMessage {
  type: "message";
  providerMessageId: string;
  /** The customer's stable id at the provider; phone when the provider gives one (any format: stored as E.164). */
  customer: { id: string; name: string; phone?: string };
  text: string;
  media: MediaRef[];
  /** What the conversation hangs on besides the customer: a post's comment thread, a tweet. */
  ref?: string;
  /** A new conversation's title, when not the text itself (a post's caption). */
  title?: string;
  /** A new conversation's channel when not the account's kind (X mentions on a TW_DM account, a Page's comments on its FB_PM account, an Instagram account's comments and mentions); default account.kind. */
  channel?: Channel;
  at: number;
}

/** A delivery or read receipt for a message an agent sent. */
export interface Receipt {
  type: "receipt";
  providerMessageId: string;
  state: "sent" | "delivered" | "read" | "failed";
  error?: string;
  at: number;
  /** A read receipt that names the last message read (X's last_read_event_id, Instagram's read.mid): every earlier one of the conversation is read too. */
  coversEarlier?: boolean;
}

export type ParsedEvent = CustomerMessage | Receipt | { type: "ignored"; reason: string };

/** An agent's message as a provider is handed it: text, or one file. */
export type OutgoingPart = { messageId: number; text: string } | { messageId: number; file: StoredFile & { bytes: () => Promise<Buffer> } };

/** Where a reply goes: the conversation's customer and thread. */
export interface Recipient {
  /** The conversation's channel (a Messenger account also answers its Page's comment threads). */
  channel: string;
  customerId: string;
  phone: string;
  ref: string;
  ticketId: number;
  /** When the customer last wrote (WhatsApp's 24-hour window, LINE's reply token). */
  lastCustomerMessageAt: number | null;
}

export interface MessagingParts {
  /**
   * Reads one stored event; throws only when the provider's JSON is not what it documents. May ask
   * the provider for what the event leaves out (LINE's display name), best effort: never throw for that.
   */
  parse(payload: unknown, account: ChannelAccount): ParsedEvent | Promise<ParsedEvent>;
  /** Fetches a customer's file from the provider. */
  downloadMedia?(account: ChannelAccount, media: MediaRef): Promise<{ bytes: Buffer; mime: string; name: string }>;
  /** Sends one part; the provider's id of the message it made. Throw providerError's result on a refusal. */
  sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart): Promise<string>;
  /** Refuses a file the provider would not take, before anything is sent (a translation key's code: see DELIVERY_ERRORS). */
  checkFile?(file: StoredFile, to: Recipient): string | null;
  /** A text longer than one of the provider's messages takes, as the messages it is sent as, in order. */
  textPieces?(text: string, to: Recipient): string[];
  /** Puts the business's reaction on a customer's message (emoji null: takes it back). */
  react?(account: ChannelAccount, to: Recipient, providerMessageId: string, emoji: string | null): Promise<void>;
}

/** How long a receipt waits for the send it names to be recorded before it is set aside. */
const RECEIPT_PATIENCE_MS = 10 * 60_000;

/** How long after a conversation was resolved the customer's next message reopens it (else a new one starts). */
export const DEFAULT_REOPEN_HOURS = 24;

/** A phone number as E.164 (+60123456789), or "" when it is not one. Providers send digits without the plus. */
export function e164(phone: string | undefined) {
  if (!phone) return "";
  const digits = phone.trim().replace(/^00/, "+");
  const parsed = parsePhoneNumberFromString(digits.startsWith("+") ? digits : `+${digits}`);
  return parsed?.isValid() ? parsed.number : "";
}

const BIDI_EMBEDDINGS = "\u202a\u202b\u202d\u202e"; // LRE RLE LRO RLO, closed by PDF
const BIDI_ISOLATES = "\u2066\u2067\u2068"; // LRI RLI FSI, closed by PDI
const PDF = "\u202c";
const PDI = "\u2069";

/**
 * A name's direction controls closed within it: an override or isolate the name opens is closed at its
 * end (a customer's "Siti \u202eRahman" would otherwise turn the text after it backwards, wherever it is
 * shown or pasted), and a closer with nothing to close is dropped. What the name itself shows is kept.
 */
export function closeDirectionControls(name: string) {
  const open: string[] = [];
  let out = "";
  for (const ch of name) {
    if (BIDI_EMBEDDINGS.includes(ch) || BIDI_ISOLATES.includes(ch)) open.push(ch);
    else if (ch === PDF) {
      // closes the innermost embedding, only within the innermost isolate
      if (!open.length || BIDI_ISOLATES.includes(open[open.length - 1])) continue;
      open.pop();
    } else if (ch === PDI) {
      // closes the innermost isolate and any embedding opened inside it
      let at = open.length - 1;
      while (at >= 0 && !BIDI_ISOLATES.includes(open[at])) at--;
      if (at < 0) continue;
      open.length = at;
    }
    out += ch;
  }
  for (const ch of open.reverse()) out += BIDI_ISOLATES.includes(ch) ? PDI : PDF;
  return out;
}

/**
 * Names from providers may carry control, zero-width and direction characters: kept readable, never
 * empty. Zero-width joiners and non-joiners stay between letters (emoji sequences such as 👩‍💻, Persian
 * and Indic spelling); zero-width spaces, word joiners and byte-order marks go; direction controls are
 * closed within the name (closeDirectionControls).
 */
export function displayName(name: string | undefined, fallback: string) {
  // at most 120 characters, never half of one (an emoji is two UTF-16 units)
  const clean = Array.from((name ?? "").replace(/[\u0000-\u001f\u007f\u200b\u2060\ufeff]/g, "").replace(/^[\s\u200c\u200d]+|[\s\u200c\u200d]+$/g, ""))
    .slice(0, 120)
    .join("");
  // nothing a reader would see (only joiners and direction controls): the fallback
  if (!clean.replace(/[\s\u200c\u200d\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "")) return fallback;
  return closeDirectionControls(clean);
}

/**
 * The customer's current conversation on this account and thread, and whether their message joins it
 * (else a new one starts: none yet, or resolved longer ago than the window). Also where an agent's
 * first message to a customer goes (/sms).
 */
export async function conversationFor(account: ChannelAccount, customerId: string, ref: string, at: number) {
  const { db, schema } = getDb();
  const th = schema.channelThreads;
  const t = schema.tickets;
  const [thread] = await db
    .select({ ticketId: th.ticketId, status: t.status, updatedAt: t.updatedAt })
    .from(th)
    .innerJoin(t, eq(t.id, th.ticketId))
    .where(and(eq(th.accountId, account.id), eq(th.customerId, customerId), eq(th.ref, ref)));
  if (!thread) return { ticketId: null, joins: false };
  const hours = Number(account.config.reopenHours || DEFAULT_REOPEN_HOURS);
  const expired = thread.status >= RESOLVED && at - thread.updatedAt > hours * 3_600_000;
  return { ticketId: thread.ticketId, joins: !expired };
}

/** Another message of the same customer started their conversation first: look again and join it. */
export class ThreadTaken extends Error {}

/** Makes a new conversation the thread's current one, unless another message got there first. */
export async function claimThread(tx: Tx, account: ChannelAccount, customerId: string, ref: string, previous: number | null, ticketId: number) {
  const { schema } = getDb();
  const th = schema.channelThreads;
  const claimed =
    previous == null
      ? await tx.insert(th).values({ accountId: account.id, customerId, ref, ticketId }).onConflictDoNothing().returning({ ticketId: th.ticketId })
      : await tx
          .update(th)
          .set({ ticketId })
          .where(and(eq(th.accountId, account.id), eq(th.customerId, customerId), eq(th.ref, ref), eq(th.ticketId, previous)))
          .returning({ ticketId: th.ticketId });
  if (!claimed.length) throw new ThreadTaken();
}

async function recordProviderIds(
  tx: Tx,
  account: ChannelAccount,
  ticketId: number,
  direction: "in" | "out",
  ids: { messageId: number; providerMessageId: string }[],
) {
  if (!ids.length) return;
  const { schema } = getDb();
  await tx
    .insert(schema.channelMessages)
    .values(ids.map((i) => ({ ...i, ticketId, accountId: account.id, direction })))
    .onConflictDoNothing();
}

/** The conversation's sent messages up to this one that are not read yet (a failed one stays failed). */
async function unreadUpTo(ticketId: number, messageId: number) {
  const { db, schema } = getDb();
  const c = schema.channelMessages;
  const m = schema.messages;
  const rows = await db
    .select({ id: c.messageId })
    .from(c)
    .innerJoin(m, eq(m.id, c.messageId))
    .where(and(eq(c.ticketId, ticketId), eq(c.direction, "out"), lte(c.messageId, messageId), notInArray(m.deliveryState, ["read", "failed"])));
  return [...new Set([messageId, ...rows.map((r) => r.id)])];
}

async function applyReceipt(event: InboundEvent, account: ChannelAccount, receipt: Receipt): Promise<ReceiveOutcome> {
  const handle = getDb();
  const c = handle.schema.channelMessages;
  const [sent] = await handle.db
    .select({ messageId: c.messageId, ticketId: c.ticketId })
    .from(c)
    .where(and(eq(c.accountId, account.id), eq(c.providerMessageId, receipt.providerMessageId), eq(c.direction, "out")));
  if (!sent) {
    // a message sent by another tool on the same number: kept for inspection, not tried for hours
    if (Date.now() - event.receivedAt > RECEIPT_PATIENCE_MS)
      return { state: "quarantined", reason: `a receipt for ${receipt.providerMessageId}, not sent from here` };
    // the provider answered faster than the send job could note the id: the job tries again later
    throw new Error(`no sent message ${receipt.providerMessageId} yet`);
  }
  const messageIds = receipt.coversEarlier ? await unreadUpTo(sent.ticketId, sent.messageId) : [sent.messageId];
  await setDeliveryState(sent.ticketId, messageIds, receipt.state, receipt.state === "failed" ? receipt.error || "failed" : null);
  await handle.transaction((tx) => markEventProcessed(tx, event.id, { ticketId: sent.ticketId, messageId: sent.messageId }));
  return { state: "processed", ticketId: sent.ticketId, messageId: sent.messageId };
}

// One customer's messages are written one at a time on this node: two processed at once (the inbound
// worker runs several jobs together) would each find no conversation and start one each. On
// globalThis: server.ts and the Remix build are two bundles.
const g = globalThis as unknown as { __omnideskCustomerTurns?: Map<string, Promise<unknown>> };
const turns = (g.__omnideskCustomerTurns ??= new Map());

async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const mine = (turns.get(key) ?? Promise.resolve()).then(work);
  const tail = mine.catch(() => undefined);
  turns.set(key, tail);
  try {
    return await mine;
  } finally {
    if (turns.get(key) === tail) turns.delete(key);
  }
}

/** The adapter's receive for a messaging channel. */
export function messagingReceive(parts: MessagingParts): ChannelAdapter["receive"] {
  return async (event, account) => {
    if (!account) return { state: "quarantined", reason: "no enabled channel account takes this event" };
    let parsed: ParsedEvent;
    try {
      parsed = await parts.parse(event.payload, account);
    } catch (error) {
      return { state: "quarantined", reason: `unreadable event: ${(error as Error).message}`.slice(0, 500) };
    }
    if (parsed.type === "ignored") return { state: "quarantined", reason: parsed.reason };
    if (parsed.type === "receipt") return applyReceipt(event, account, parsed);

    const message = parsed;
    // a file that will not download yet does not hold the message up: it follows (pending-media.server.ts)
    const { files, missing } = await fetchMedia(parts.downloadMedia, account, message.media);
    const phone = e164(message.customer.phone);
    const name = displayName(message.customer.name, phone || message.customer.id);
    const ref = message.ref ?? "";
    const title = (message.title || message.text || files[0]?.name || name).replace(/\s+/g, " ").trim().slice(0, 120);
    // a bot (responders.server.ts) answering this account holds a new conversation: Pending until it
    // hands over; only a private one on the account's own kind (never a public comment or mention thread)
    const ownKind = (message.channel ?? account.kind) === account.kind;
    const held = ownKind && hasResponders() && (await heldByResponder(account));
    const write = async () => {
      const thread = await conversationFor(account, message.customer.id, ref, message.at);
      return receive({
        ticket: thread.joins
          ? { id: thread.ticketId! }
          : {
              channel: message.channel ?? account.kind,
              title,
              contactName: name,
              contactEmail: "",
              contactPhone: phone,
              customerId: message.customer.id,
              ref,
              departmentId: account.departmentId,
              receiverEmail: account.address,
              channelAccountId: account.id,
              ...(held ? { status: PENDING } : {}),
            },
        message: { body: message.text, type: "text", senderName: name, preview: message.text || files[0]?.name || "" },
        files,
        at: message.at,
        inTransaction: async (tx, written) => {
          if (written.created) await claimThread(tx, account, message.customer.id, ref, thread.ticketId, written.ticket.id);
          // the provider's id on the first message the event made: a copy under another event key is still one message
          await recordProviderIds(tx, account, written.ticket.id, "in", [{ messageId: written.messageIds[0], providerMessageId: message.providerMessageId }]);
          await markEventProcessed(tx, event.id, { ticketId: written.ticket.id, messageId: written.messageIds[0] });
          if (missing.length) await awaitMedia(tx, account, written.messageIds[0], missing);
          await tellResponders(tx, {
            account,
            ticketId: written.ticket.id,
            messageIds: written.messageIds,
            text: message.text,
            created: written.created,
            held: written.created && held,
          });
        },
      });
    };
    // one customer's messages are written in turn on this node (their order), and the thread's key
    // keeps two nodes from starting two conversations for them
    return inTurn(`${account.id}\n${message.customer.id}\n${ref}`, async (): Promise<ReceiveOutcome> => {
      for (let attempt = 1; ; attempt++) {
        try {
          const received = await write();
          if (hasResponders()) wakeJobs();
          return { state: "processed", ticketId: received.ticket.id, messageId: received.messageIds[0] ?? null };
        } catch (error) {
          if (!(error instanceof ThreadTaken) || attempt >= 3) throw error;
        }
      }
    });
  };
}

async function recipientOf(ticketId: number): Promise<Recipient> {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [ticket] = await db.select({ channel: t.channel, customerId: t.customerId, phone: t.contactPhone, ref: t.ref }).from(t).where(eq(t.id, ticketId));
  if (!ticket?.customerId) throw new PermanentFailure(DELIVERY_ERRORS.noRecipient);
  return {
    channel: ticket.channel,
    customerId: ticket.customerId,
    phone: ticket.phone,
    ref: ticket.ref,
    ticketId,
    lastCustomerMessageAt: await lastCustomerMessageAt(ticketId),
  };
}

/** When the customer last wrote in this conversation on its channel (null: never). */
export async function lastCustomerMessageAt(ticketId: number) {
  const { db, schema } = getDb();
  const m = schema.messages;
  const c = schema.channelMessages;
  const [last] = await db
    .select({ at: m.createdAt })
    .from(c)
    .innerJoin(m, eq(m.id, c.messageId))
    .where(and(eq(c.ticketId, ticketId), eq(c.direction, "in")))
    .orderBy(desc(m.createdAt))
    .limit(1);
  return last?.at ?? null;
}

async function outgoingParts(message: OutboundMessage): Promise<OutgoingPart[]> {
  const { db, schema } = getDb();
  const m = schema.messages;
  const rows = await db
    .select()
    .from(m)
    .where(and(inArray(m.id, message.messageIds), eq(m.ticketId, message.ticketId)))
    .orderBy(asc(m.id));
  return rows.map((row) => {
    if (!row.fileKey) return { messageId: row.id, text: row.body };
    const key = row.fileKey;
    const file = { key, name: row.fileName ?? "file", type: row.fileType ?? "application/octet-stream", size: row.fileSize ?? 0 };
    return {
      messageId: row.id,
      file: {
        ...file,
        bytes: async () => {
          const stream = await fileStorage().get(key);
          if (!stream) throw new PermanentFailure(DELIVERY_ERRORS.attachmentMissing);
          return Buffer.from(await new Response(stream as ReadableStream).arrayBuffer());
        },
      },
    };
  });
}

/**
 * The adapter's send for a messaging channel: every file is checked against the provider's limits
 * first (nothing goes out when one cannot), then each part goes out and its provider id and "sent"
 * are recorded at once, so a retry after a crash or a refusal halfway sends only the rest.
 */
export function messagingSend(parts: MessagingParts): ChannelAdapter["send"] {
  return async (message, account): Promise<SendResult> => {
    const to = await recipientOf(message.ticketId);
    const outgoing = await outgoingParts(message);
    for (const part of outgoing) {
      const refused = "file" in part && parts.checkFile?.(part.file, to);
      if (refused) throw new PermanentFailure(refused);
    }
    const handle = getDb();
    const c = handle.schema.channelMessages;
    // parts a run before this one sent (it stopped at a refusal, a rate limit or a crash) stay sent
    const done = new Set(
      (
        await handle.db
          .select({ messageId: c.messageId })
          .from(c)
          .where(and(inArray(c.messageId, message.messageIds), eq(c.direction, "out")))
      ).map((r) => r.messageId),
    );
    const sent: SendResult["sent"] = [];
    for (const part of outgoing) {
      if (done.has(part.messageId)) continue;
      const providerMessageId = "text" in part && parts.textPieces ? await sendInPieces(parts, account, to, part) : await parts.sendPart(account, to, part);
      await handle.transaction((tx) => recordProviderIds(tx, account, message.ticketId, "out", [{ messageId: part.messageId, providerMessageId }]));
      await setDeliveryState(message.ticketId, [part.messageId], "sent");
      sent.push({ messageId: part.messageId, providerMessageId });
    }
    return { providerRef: sent.map((s) => s.providerMessageId).join(" "), sent };
  };
}

/** The adapter's react for a messaging channel whose provider takes reactions. */
export function messagingReact(parts: MessagingParts): ChannelAdapter["react"] {
  const react = parts.react;
  if (!react) return undefined;
  return async (account, ticketId, providerMessageId, emoji) => react(account, await recipientOf(ticketId), providerMessageId, emoji);
}

/** The provider's id of a customer's message (null: it did not come from a provider, or not yet). */
export async function customerMessageProviderId(messageId: number) {
  const { db, schema } = getDb();
  const c = schema.channelMessages;
  const [row] = await db
    .select({ id: c.providerMessageId })
    .from(c)
    .where(and(eq(c.messageId, messageId), eq(c.direction, "in")));
  return row?.id ?? null;
}

/**
 * A long text as the provider's several messages, each piece recorded as soon as it is sent, so a
 * retry after a rate limit or a crash sends only the pieces that did not go. The first piece's id
 * stands for the message.
 */
async function sendInPieces(parts: MessagingParts, account: ChannelAccount, to: Recipient, part: { messageId: number; text: string }) {
  const pieces = parts.textPieces!(part.text, to);
  if (pieces.length <= 1) return parts.sendPart(account, to, part);
  const { db, schema } = getDb();
  const p = schema.channelMessagePieces;
  const sent = new Map(
    (await db.select({ piece: p.piece, id: p.providerMessageId }).from(p).where(eq(p.messageId, part.messageId))).map((r) => [r.piece, r.id]),
  );
  for (const [piece, text] of pieces.entries()) {
    if (sent.has(piece)) continue;
    const providerMessageId = await parts.sendPart(account, to, { messageId: part.messageId, text });
    await db.insert(p).values({ messageId: part.messageId, piece, providerMessageId }).onConflictDoNothing();
    sent.set(piece, providerMessageId);
  }
  return sent.get(0)!;
}

/**
 * A provider's HTTP answer as the queue needs it: 429 pauses the account for Retry-After (no attempt used), other
 * 4xx refusals cannot get better by trying again, 5xx and network trouble are tried again with backoff.
 * The error's text is the provider's own words, shown to the agent.
 */
export async function providerError(response: Response, describe: (body: unknown, text: string) => string) {
  const text = await response.text().catch(() => "");
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const words = (describe(body, text) || `HTTP ${response.status}`).slice(0, 500);
  if (response.status === 429) return rateLimited(words, retryAfterHeader(response.headers));
  if (response.status >= 400 && response.status < 500 && response.status !== 408) return new PermanentFailure(words);
  return new Error(words);
}
