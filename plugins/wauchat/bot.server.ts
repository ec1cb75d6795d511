// The bot at work. A customer's message on an account the bot answers is stored by the channel
// layer, which tells our responder in the same transaction; the responder queues an answer job
// (wauchat.answer, one per message). The job decides (flow.ts) and writes, in one transaction,
// the bot's state (compare-and-set on the last message answered: a job run twice answers once),
// its answer as a message from the "chatbot" user, the answer's outbound job (the same queue as an
// agent's reply) and, at handover, the ticket Open with its language and product as labels.
import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, ne } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { WaitAndRetry, defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { queueDelivery } from "~/conversation/delivery.server";
import { systemMessage, touch } from "~/conversation/model.server";
import { announce, conversationCreated, newMessages } from "~/conversation/events.server";
import { PENDING } from "~/conversation/constants";
import { SERVER_EVENTS } from "~/realtime-events";
import { notifyNewTicket, toldAll } from "~/conversation/notifications.server";
import type { Responder } from "@plugins/channels/responders.server";
import { botOnFor, loadConfig } from "./config.server";
import { decide, LANGUAGE_LABELS, PRODUCT_LABELS, type BotLanguage, type Decision, type Product, type Stage } from "./flow";

export const ANSWER_JOB = "wauchat.answer";
/** The sender of the bot's messages: one of the spec's bot names (the profile card says it is a bot). */
export const BOT_USERNAME = "chatbot";

export interface AnswerPayload {
  ticketId: number;
  /** The customer's message (the first one it made: text, else its first file). */
  messageId: number;
  text: string;
}

/**
 * The user the bot writes as: made on first use, disabled (takes no seat, never offered for
 * assignment) with a password hash nothing matches (no sign-in, no invitation link), so its
 * messages are staff messages the page shows as "Bot".
 */
export async function botUserId(): Promise<number> {
  const { db, schema } = getDb();
  const u = schema.users;
  const find = async () => (await db.select({ id: u.id }).from(u).where(eq(u.username, BOT_USERNAME)))[0]?.id;
  const found = await find();
  if (found) return found;
  const now = Date.now();
  await db
    .insert(u)
    .values({ username: BOT_USERNAME, name: "Bot", type: "agent", passwordHash: "!bot", disabledAt: now, createdAt: now })
    .onConflictDoNothing();
  return (await find())!;
}

/** Starts the bot's hold on a new conversation and queues the answer to its message (in the message's transaction). */
export async function holdConversation(tx: Tx, ticketId: number, accountId: number | null) {
  const { schema } = getDb();
  await tx.insert(schema.wauchatConversations).values({ ticketId, accountId, updatedAt: Date.now() }).onConflictDoNothing();
}

/** Queues the answer to a customer's message, if the bot still holds the conversation. */
export async function queueAnswer(tx: Tx, payload: AnswerPayload) {
  const { schema } = getDb();
  const [state] = await tx
    .select({ stage: schema.wauchatConversations.stage })
    .from(schema.wauchatConversations)
    .where(eq(schema.wauchatConversations.ticketId, payload.ticketId));
  if (!state || state.stage === "human") return false;
  await enqueue(tx, { kind: ANSWER_JOB, key: `wauchat:${payload.messageId}`, payload });
  return true;
}

/** The channel layer's seam: the bot answers first on the accounts an admin switched it on for. */
export const responder: Responder = {
  holdsNew: (account) => botOnFor(account.id),
  async received(tx, call) {
    if (call.held) await holdConversation(tx, call.ticketId, call.account.id);
    if (call.messageIds.length) await queueAnswer(tx, { ticketId: call.ticketId, messageId: call.messageIds[0], text: call.text });
  },
};

/** Finds (or makes) the labels a handover sets: the language and product chosen. */
async function labelIds(tx: Tx, names: string[]) {
  const { schema } = getDb();
  const l = schema.labels;
  const ids: number[] = [];
  for (const name of names) {
    const [found] = await tx.select({ id: l.id }).from(l).where(eq(l.name, name)).orderBy(asc(l.id)).limit(1);
    ids.push(found?.id ?? (await tx.insert(l).values({ name }).returning({ id: l.id }))[0].id);
  }
  return ids;
}

export interface Answer {
  messageIds: number[];
  endedBy: Decision["endedBy"];
}

/**
 * The answer job: decides and writes once. Answers null when there was nothing to do (the bot let
 * go, or this message was answered already).
 */
export async function answer(payload: AnswerPayload): Promise<Answer | null> {
  // another message's answer moved the state on under this one: judge again against what it left
  for (let round = 0; round < 5; round++) {
    const outcome = await answerOnce(payload);
    if (outcome !== AGAIN) return outcome;
  }
  throw new Error("the conversation's bot state kept changing; tried again later");
}

const AGAIN = Symbol("again");
/** How long a customer's later message waits for the answer to their earlier one. */
export const EARLIER_WAIT_MS = 1000;

/**
 * An earlier message of the customer whose answer job has not finished: this one must wait for the
 * menu state that answer leaves (two quick messages are each judged in turn, never against the old menu).
 */
async function earlierUnanswered(ticketId: number, after: number, messageId: number) {
  const { db, schema } = getDb();
  const m = schema.messages;
  const earlier = await db
    .select({ id: m.id })
    .from(m)
    .where(and(eq(m.ticketId, ticketId), isNull(m.senderUserId), gt(m.id, after), lt(m.id, messageId)));
  if (!earlier.length) return false;
  const j = schema.jobs;
  const [pending] = await db
    .select({ id: j.id })
    .from(j)
    .where(
      and(
        inArray(
          j.key,
          earlier.map((e) => `wauchat:${e.id}`),
        ),
        inArray(j.state, ["queued", "running"]),
      ),
    )
    .limit(1);
  return !!pending;
}

async function answerOnce(payload: AnswerPayload): Promise<Answer | null | typeof AGAIN> {
  const handle = getDb();
  const { db, schema } = handle;
  const wc = schema.wauchatConversations;
  const m = schema.messages;
  const [state] = await db.select().from(wc).where(eq(wc.ticketId, payload.ticketId));
  if (!state || state.stage === "human" || state.lastMessageId >= payload.messageId) return null;
  // no attempt used: the earlier answer is on its way
  if (await earlierUnanswered(payload.ticketId, state.lastMessageId, payload.messageId))
    throw new WaitAndRetry("an earlier message is being answered", EARLIER_WAIT_MS);
  const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, payload.ticketId));
  if (!ticket) return null;
  const botId = await botUserId();
  // an agent wrote in the conversation: it is theirs, the bot says nothing more there
  const [agentMessage] = await db
    .select({ id: m.id })
    .from(m)
    .where(and(eq(m.ticketId, ticket.id), isNotNull(m.senderUserId), ne(m.senderUserId, botId)))
    .limit(1);
  const current = { stage: state.stage as Stage, language: state.language, product: state.product, misses: state.misses };
  const decision: Decision = agentMessage ? { ...current, stage: "human", reply: "", endedBy: "agent" } : decide(current, payload.text, await loadConfig());

  const now = Date.now();
  let newTicketFor: number[] = [];
  const written = await handle.transaction(async (tx) => {
    const [claimed] = await tx
      .update(wc)
      .set({
        stage: decision.stage,
        language: decision.language,
        product: decision.product,
        misses: decision.misses,
        endedBy: decision.endedBy,
        lastMessageId: payload.messageId,
        updatedAt: now,
      })
      .where(and(eq(wc.ticketId, ticket.id), eq(wc.lastMessageId, state.lastMessageId), ne(wc.stage, "human")))
      .returning({ ticketId: wc.ticketId });
    // another run of this job, or another message's answer, got there first: look again
    if (!claimed) return AGAIN;
    let ids: number[] = [];
    let queued = false;
    if (decision.reply) {
      ids = (
        await tx.insert(m).values({ ticketId: ticket.id, type: "text", body: decision.reply, senderUserId: botId, createdAt: now }).returning({ id: m.id })
      ).map((r) => r.id);
      await touch(tx, ticket.id, botId, now, { lastMessage: decision.reply.slice(0, 300) });
      // out through the same outbound queue as an agent's reply (nothing to send on WAUCHAT itself)
      queued = await queueDelivery(tx, ticket, ids, { to: [], cc: [] });
    }
    let opened = false;
    if (decision.stage === "human") {
      const names = [
        ...(decision.language ? [LANGUAGE_LABELS[decision.language as BotLanguage]] : []),
        ...(decision.product ? [PRODUCT_LABELS[decision.product as Product]] : []),
      ].filter(Boolean);
      if (names.length) {
        const ids = await labelIds(tx, names);
        await tx
          .insert(schema.ticketLabels)
          .values(ids.map((labelId) => ({ ticketId: ticket.id, labelId })))
          .onConflictDoNothing();
      }
      if (ticket.status === PENDING) {
        await systemMessage(tx, ticket.id, { event: "status", by: "Bot", status: 0 }, now + 1);
        await tx
          .update(schema.tickets)
          .set({ status: 0, updatedAt: now + 1 })
          .where(eq(schema.tickets.id, ticket.id));
        opened = true;
        // handed over: new work for those who asked of new tickets (their filters)
        newTicketFor = await notifyNewTicket(tx, ticket, now + 1);
      }
    }
    return { ids, queued, opened };
  });
  if (written === AGAIN) return AGAIN;
  if (written.ids.length) await newMessages(ticket, written.ids, BOT_USERNAME);
  if (written.opened) {
    // now it is the agents' work: the department hears of it as a new conversation
    await announce(ticket, SERVER_EVENTS.ticketStatusChanged, { status: 0 });
    await conversationCreated(ticket, { department: true });
    toldAll(newTicketFor);
  }
  if (written.queued) wakeJobs();
  return { messageIds: written.ids, endedBy: decision.endedBy };
}

export function defineAnswerJob() {
  defineJobKind(ANSWER_JOB, {
    maxAttempts: 5,
    run: async (payload) => void (await answer(payload as AnswerPayload)),
  });
}

/** The bot's hold on conversations (admins' view, tests). */
export async function botStates(ticketIds: number[]) {
  if (!ticketIds.length) return [];
  const { db, schema } = getDb();
  return db.select().from(schema.wauchatConversations).where(inArray(schema.wauchatConversations.ticketId, ticketIds));
}
