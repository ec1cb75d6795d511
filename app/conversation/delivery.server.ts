// Delivery states of agents' messages on a channel, in one place (docs: "agent reply -->
// conversation.reply --> outbox job --> adapter.send --> state sent / delivered / read / failed -->
// messageStateChanged"). The reply's transaction queues its job here; the channel layer's send job
// (plugins/channels/outbound.server.ts) reports each step through setDeliveryState.
import { randomUUID } from "node:crypto";
import { and, desc, eq, inArray, lte, notInArray } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { enqueue, retryJob, wakeJobs } from "~/jobs/queue.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { checkAddresses } from "./forms";
import { DELIVERY_ERRORS, type DeliveryState } from "./delivery";
import { toOpenPages } from "./events.server";

/** The job that sends one reply out on its ticket's channel. */
export const SEND_JOB = "conversation.send";
/** A WaitAndRetry with this message: no mail server (or account) is configured; the reply waits for one. */
export const NOT_CONFIGURED = DELIVERY_ERRORS.notConfigured;

/** The job that tells the customer's channel of an agent's reaction to their message (plugins/channels). */
export const REACT_JOB = "conversation.react";

/** What the reaction job gets: the message, and the reaction just toggled (the job sends what is there when it runs). */
export interface ReactPayload {
  ticketId: number;
  messageId: number;
  reaction: string;
}

/**
 * In the reaction's transaction: a reaction to a customer's message on an account's conversation
 * is queued for their channel. Each toggle has its own job; each sends the message's reaction as
 * it stands when it runs, so running one twice, or out of order, ends in the same state.
 */
export async function queueReaction(tx: Tx, ticket: TicketLike, message: { id: number; senderUserId: number | null }, reaction: string) {
  if (ticket.kind !== "ticket" || ticket.channelAccountId == null || message.senderUserId != null) return false;
  const payload: ReactPayload = { ticketId: ticket.id, messageId: message.id, reaction };
  await enqueue(tx, { kind: REACT_JOB, key: `react:${message.id}:${randomUUID()}`, payload, lane: conversationLane(ticket.id) });
  return true;
}

/** What the send job gets (the adapter's OutboundMessage). */
export interface SendPayload {
  ticketId: number;
  messageIds: number[];
  to: string[];
  cc: string[];
}

export const sendJobKey = (firstMessageId: number) => `send:${firstMessageId}`;

/**
 * The job lane of what goes out on one conversation (one customer on one channel): its replies and
 * reactions leave one at a time, in the order they were written, whichever worker runs them.
 */
export const conversationLane = (ticketId: number) => `out:${ticketId}`;

type TicketLike = {
  id: number;
  ticketNumber: number;
  departmentId: number | null;
  kind: string;
  channel: string;
  channelAccountId: number | null;
  contactEmail: string;
};

/** The reply form's address fields (already checked by sendReply) as recipients: email, toEmail and email2 are To, cc is Cc. */
export function replyRecipients(fields: { email?: string; email2?: string; toEmail?: string; cc?: string }) {
  const list = (...texts: (string | undefined)[]) => [...new Set(texts.flatMap((t) => checkAddresses(t ?? "").addresses).map((a) => a.toLowerCase()))];
  return { to: list(fields.email, fields.toEmail, fields.email2), cc: list(fields.cc) };
}

/**
 * Whether agents' replies on this ticket go out on a channel: mail tickets, tickets an account
 * answers, and manual tickets with someone to write to. Workspace chats, calls and live chats stay in the desk.
 */
export function deliversThroughChannel(ticket: TicketLike, to: string[] = []) {
  if (ticket.kind !== "ticket") return false;
  if (ticket.channel === "EMAIL" || ticket.channel === "GRAPH_EMAIL" || ticket.channelAccountId != null) return true;
  return ticket.channel === "MANUAL" && (!!ticket.contactEmail || to.length > 0);
}

/**
 * In the reply's transaction: its messages are "queued" and one job sends them, so a reply is
 * never stored without its way out (nor queued without being stored). Call wakeJobs() after commit.
 */
export async function queueDelivery(tx: Tx, ticket: TicketLike, messageIds: number[], recipients: { to: string[]; cc: string[] }) {
  if (!messageIds.length || !deliversThroughChannel(ticket, recipients.to)) return false;
  const { schema } = getDb();
  await tx.update(schema.messages).set({ deliveryState: "queued", deliveryError: null }).where(inArray(schema.messages.id, messageIds));
  const payload: SendPayload = { ticketId: ticket.id, messageIds, to: recipients.to, cc: recipients.cc };
  await enqueue(tx, { kind: SEND_JOB, key: sendJobKey(messageIds[0]), payload, lane: conversationLane(ticket.id) });
  return true;
}

/** The ticket a send job works for (undefined once deleted). */
export async function deliveryTicket(ticketId: number) {
  const { db, schema } = getDb();
  const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, ticketId));
  return ticket;
}

/** The job's messages that still exist, with their states (an agent may have deleted some meanwhile). */
export async function deliveryMessages(payload: SendPayload) {
  if (!payload.messageIds.length) return [];
  const { db, schema } = getDb();
  const m = schema.messages;
  return db
    .select({ id: m.id, deliveryState: m.deliveryState })
    .from(m)
    .where(and(inArray(m.id, payload.messageIds), eq(m.ticketId, payload.ticketId)));
}

/**
 * The states a step may not overwrite: receipts come late, early or twice, and a message the
 * customer has read is never "delivered" or "sent" again (nor "failed" once it arrived).
 */
const GONE_OUT: DeliveryState[] = ["sent", "delivered", "read"];
const LATER_THAN: Partial<Record<DeliveryState, DeliveryState[]>> = {
  // a reply's later part failing (or waiting) does not take back the parts that went out
  queued: GONE_OUT,
  sending: GONE_OUT,
  waiting: GONE_OUT,
  // a failure receipt is not undone by a "sent" that arrives after it (Twilio's callbacks may cross)
  sent: ["delivered", "read", "failed"],
  delivered: ["read"],
  read: [],
};
const AFTER_ARRIVAL: DeliveryState[] = ["delivered", "read"];

/** Records a step of the messages' delivery and tells the conversation's open pages. */
export async function setDeliveryState(ticketId: number, messageIds: number[], state: DeliveryState, error: string | null = null) {
  if (!messageIds.length) return;
  const { db, schema } = getDb();
  const m = schema.messages;
  const keep = LATER_THAN[state] ?? (state === "failed" ? AFTER_ARRIVAL : []);
  const changed = await db
    .update(m)
    .set({ deliveryState: state, deliveryError: error ? error.slice(0, 1000) : null })
    .where(and(inArray(m.id, messageIds), eq(m.ticketId, ticketId), keep.length ? notInArray(m.deliveryState, keep) : undefined))
    .returning({ id: m.id });
  const ticket = changed.length ? await deliveryTicket(ticketId) : undefined;
  if (ticket) toOpenPages(ticket, SERVER_EVENTS.messageStateChanged, { messageIds: changed.map((r) => r.id), state, error });
}

export class NotRetryable extends Error {}

/**
 * The agent's Retry on a failed message: its reply's job runs again (from the first attempt) and
 * the reply's messages are "queued". Only a failed message of this ticket can be retried.
 */
export async function retryDelivery(ticket: TicketLike, messageId: number) {
  const handle = getDb();
  const { schema } = handle;
  const m = schema.messages;
  const [message] = await handle.db
    .select()
    .from(m)
    .where(and(eq(m.id, messageId), eq(m.ticketId, ticket.id)));
  if (!message || !message.deliveryState) throw new NotRetryable();
  // a double click: the first one already put it back
  if (message.deliveryState !== "failed") return false;
  // the job is keyed by its reply's first message: this one or a failed one just before it
  const candidates = await handle.db
    .select({ id: m.id })
    .from(m)
    .where(and(eq(m.ticketId, ticket.id), lte(m.id, messageId), eq(m.deliveryState, "failed")))
    .orderBy(desc(m.id))
    .limit(50);
  const jobs = await handle.db
    .select()
    .from(schema.jobs)
    .where(
      and(
        eq(schema.jobs.kind, SEND_JOB),
        inArray(
          schema.jobs.key,
          candidates.map((c) => sendJobKey(c.id)),
        ),
      ),
    );
  const job = jobs.find((j) => (JSON.parse(j.payload) as SendPayload).messageIds.includes(messageId));
  if (!job) throw new NotRetryable();
  const ids = (JSON.parse(job.payload) as SendPayload).messageIds;
  const retried = await handle.transaction(async (tx) => {
    if (!(await retryJob(job.key, tx))) return false;
    await tx
      .update(m)
      .set({ deliveryState: "queued", deliveryError: null })
      .where(and(inArray(m.id, ids), eq(m.ticketId, ticket.id)));
    return true;
  });
  if (!retried) return false;
  toOpenPages(ticket, SERVER_EVENTS.messageStateChanged, { messageIds: ids, state: "queued", error: null });
  wakeJobs();
  return true;
}
