// The outbound job: an agent's reply queued by conversation.reply goes out through its ticket's
// account and adapter, and each step is recorded on the messages (app/conversation/delivery.server.ts),
// which tells the open pages. States: queued -> sending -> sent; "waiting" while no mail server (or
// account) is configured, without using up attempts; "queued" with the last error while retries
// remain; "failed" with the provider's reason once trying again cannot help. A provider's "too
// many" pauses the whole account (rate-limit.server.ts): its other sends wait too, unsent, with
// their attempts kept.
import { defineJobKind, isPermanentFailure, isWaitAndRetry, WaitAndRetry } from "~/jobs/queue.server";
import {
  NOT_CONFIGURED,
  REACT_JOB,
  SEND_JOB,
  deliveryMessages,
  deliveryTicket,
  setDeliveryState,
  type ReactPayload,
  type SendPayload,
} from "~/conversation/delivery.server";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { REACTIONS } from "~/conversation/constants";
import { DELIVERY_ERRORS } from "~/conversation/delivery";
import { customerMessageProviderId } from "./messaging.server";
import type { Channel } from "~/conversation/channels";
import type { ReactionRules } from "./adapter";
import { enabledAccounts, loadAccount } from "./accounts.server";
import { adapterFor as pluginAdapterFor } from "./adapters.server";
import type { ChannelAccount, ChannelAdapter } from "./adapter";
import { accountPauseLeft, isRateLimited, pauseAccount } from "./rate-limit.server";

export const SEND_MAX_ATTEMPTS = 8;
/** How often a reply waiting for a mail server looks again. */
export const NOT_CONFIGURED_WAIT_MS = 60_000;

export interface OutboundDeps {
  /** The adapter of a channel kind (tests hand in their own). */
  adapterFor?: (kind: string) => Promise<ChannelAdapter | undefined>;
}

const errorText = (error: unknown) => String((error as Error)?.message ?? error).slice(0, 1000);

/** Mail can go out through any mailbox of its kind; a message on WhatsApp, LINE... only from the number or bot the customer wrote to. */
const MAIL_KINDS: string[] = ["EMAIL", "GRAPH_EMAIL", "MANUAL"];

/** The account that answers: the ticket's own while enabled, else (mail only) the first enabled one of its kind. */
async function answeringAccount(ticket: { channel: string; channelAccountId: number | null }): Promise<ChannelAccount | null> {
  const own = await loadAccount(ticket.channelAccountId);
  if (own?.enabled) return own;
  if (!MAIL_KINDS.includes(own?.kind ?? ticket.channel)) return null;
  const kind: Channel = ticket.channel === "GRAPH_EMAIL" ? "GRAPH_EMAIL" : own && own.kind !== "EMAIL" ? own.kind : "EMAIL";
  return (await enabledAccounts(kind))[0] ?? null;
}

export function defineOutboundJob(deps: OutboundDeps = {}) {
  const adapterFor = deps.adapterFor ?? pluginAdapterFor;
  defineJobKind(SEND_JOB, {
    maxAttempts: SEND_MAX_ATTEMPTS,
    async run(raw, { lastAttempt, now }) {
      const payload = raw as SendPayload;
      const ticket = await deliveryTicket(payload.ticketId);
      if (!ticket) return;
      const messages = await deliveryMessages(payload);
      // deleted meanwhile, or sent before a crash kept the job from finishing: nothing to do
      const ids = messages.filter((m) => !["sent", "delivered", "read"].includes(m.deliveryState)).map((m) => m.id);
      if (!ids.length) return;
      const account = await answeringAccount(ticket);
      const adapter = account ? await adapterFor(account.kind) : undefined;
      if (!account || !adapter) {
        await setDeliveryState(ticket.id, ids, "waiting", NOT_CONFIGURED);
        throw new WaitAndRetry(NOT_CONFIGURED, NOT_CONFIGURED_WAIT_MS);
      }
      await waitForPause(account, now(), ticket.id, ids);
      await setDeliveryState(ticket.id, ids, "sending");
      try {
        await adapter.send({ ticketId: ticket.id, messageIds: ids, to: payload.to ?? [], cc: payload.cc ?? [] }, account);
      } catch (error) {
        if (isRateLimited(error)) await pauseAccount(account.id, now() + error.delayMs);
        if (isWaitAndRetry(error)) await setDeliveryState(ticket.id, ids, "waiting", errorText(error));
        // a final failure is recorded by `failed`, once the queue has given the job up
        else if (!isPermanentFailure(error) && !lastAttempt) await setDeliveryState(ticket.id, ids, "queued", errorText(error));
        throw error;
      }
      await setDeliveryState(ticket.id, ids, "sent");
    },
    async failed(raw, error) {
      const payload = raw as SendPayload;
      const messages = await deliveryMessages(payload);
      const ids = messages.filter((m) => !["sent", "delivered", "read"].includes(m.deliveryState)).map((m) => m.id);
      await setDeliveryState(payload.ticketId, ids, "failed", error);
    },
  });
  defineJobKind(REACT_JOB, {
    maxAttempts: SEND_MAX_ATTEMPTS,
    async run(raw, { now }) {
      const payload = raw as ReactPayload;
      const ticket = await deliveryTicket(payload.ticketId);
      const account = ticket ? await answeringAccount(ticket) : null;
      const adapter = account ? await adapterFor(account.kind) : undefined;
      // a channel without reactions, or an account switched off since: nothing to tell
      if (!ticket || !account || !adapter?.react) return;
      const providerMessageId = await customerMessageProviderId(payload.messageId);
      if (!providerMessageId) return;
      await waitForPause(account, now());
      try {
        await adapter.react(account, ticket.id, providerMessageId, await reactionNow(payload, adapter.reactions));
      } catch (error) {
        if (isRateLimited(error)) await pauseAccount(account.id, now() + error.delayMs);
        throw error;
      }
    },
  });
}

/**
 * While the account is paused (its provider said "too many" to any of its sends), nothing of it is
 * sent: the job waits for the pause's end without using an attempt, its messages shown as waiting.
 */
async function waitForPause(account: ChannelAccount, now: number, ticketId?: number, messageIds?: number[]) {
  const left = await accountPauseLeft(account.id, now);
  if (!left) return;
  if (ticketId !== undefined && messageIds) await setDeliveryState(ticketId, messageIds, "waiting", DELIVERY_ERRORS.rateLimited);
  throw new WaitAndRetry(DELIVERY_ERRORS.rateLimited, left);
}

/**
 * The agents' reaction on a message as it stands: the one just toggled while it is there, else
 * another agent's that is still there, else none. Providers keep one reaction of the business per message.
 */
async function reactionNow(payload: ReactPayload, rules?: ReactionRules) {
  const { db, schema } = getDb();
  const r = schema.messageReactions;
  const there = new Set((await db.select({ reaction: r.reaction }).from(r).where(eq(r.messageId, payload.messageId))).map((x) => x.reaction));
  // as the provider takes it; one it refuses (left from before, or another agent's) is passed over
  const sendable = (x: string) => (there.has(x) ? (rules ? rules.emoji(x) : x) : null);
  return sendable(payload.reaction) ?? REACTIONS.map(sendable).find((x) => x !== null) ?? null;
}
