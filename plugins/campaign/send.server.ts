// The sending job: a sending campaign's pending recipients, as many as its per-minute throttle
// allows, each in ONE transaction: the recipient row is taken (pending -> sent, only if still
// pending: the guard that sends nobody twice, whatever restarts or runs twice), a new conversation
// on the campaign's account is written with campaign_id and made the customer's thread (so their
// answer lands in it), the message is written and queued on the channel layer's outbound queue
// (its job key is per message). A crash before the commit leaves the recipient pending; after it,
// sent. The job then waits for the throttle's minute and goes on, until nobody is pending.
import { and, asc, count, eq, gt, min } from "drizzle-orm";
import { getDb } from "@db/client";
import { loadAccount } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { claimThread, conversationFor, ThreadTaken } from "@plugins/channels/messaging.server";
import { queueDelivery } from "~/conversation/delivery.server";
import { conversationCreated } from "~/conversation/events.server";
import { insertTicket, touch, withUniqueNumber } from "~/conversation/model.server";
import { defineJobKind, WaitAndRetry, wakeJobs } from "~/jobs/queue.server";
import { campaignRow, IDENTITY_OF, SEND_JOB } from "./campaign.server";
import { isOptedOut } from "./optout.server";

/** Recipients one run takes at most before it hands over (other jobs get their turn). */
const RUN_MAX = 200;
const MINUTE = 60_000;

type Campaign = NonNullable<Awaited<ReturnType<typeof campaignRow>>>;
type Recipient = { id: number; contactId: number; address: string; name: string; salutation: string };

/** The template for one contact: {{name}} and {{salutation}} filled in, spaces left by an empty one tidied. */
export function fillTemplate(template: string, contact: { name: string; salutation: string }) {
  return template
    .replace(/\{\{\s*name\s*\}\}/gi, contact.name.trim())
    .replace(/\{\{\s*salutation\s*\}\}/gi, contact.salutation.trim())
    .replace(/[ \t]{2,}/g, " ")
    .replace(/ ([,.!?])/g, "$1")
    .trim();
}

/** Sends one recipient; false when it was not pending any more (another run took it). */
async function sendOne(campaign: Campaign, account: ChannelAccount, recipient: Recipient, now: number): Promise<boolean> {
  const handle = getDb();
  const { schema } = handle;
  const r = schema.campaignRecipients;
  const kind = IDENTITY_OF[account.kind];
  const phone = kind === "phone" ? recipient.address : "";
  const email = kind === "email" ? recipient.address : "";
  // SMS threads hang on the phone (the adapter's customer id); mail threads on its own headers
  const customerId = phone;
  const text = fillTemplate(campaign.template, recipient);
  const thread = customerId ? await conversationFor(account, customerId, "", now) : null;
  const written = await withUniqueNumber(() =>
    handle.transaction(async (tx) => {
      const pending = and(eq(r.id, recipient.id), eq(r.state, "pending"));
      if (await isOptedOut(tx, kind, recipient.address)) {
        await tx.update(r).set({ state: "opted_out" }).where(pending);
        return null;
      }
      const [taken] = await tx.update(r).set({ state: "sent", sentAt: now }).where(pending).returning({ id: r.id });
      if (!taken) return null;
      const ticket = await insertTicket(
        tx,
        {
          channel: account.kind,
          title: campaign.name,
          departmentId: account.departmentId,
          contactName: recipient.name || recipient.address,
          contactEmail: email,
          contactPhone: phone,
          customerId,
          ref: "",
          receiverEmail: account.address,
          channelAccountId: account.id,
        },
        text,
        now,
      );
      await tx.update(schema.tickets).set({ campaignId: campaign.id }).where(eq(schema.tickets.id, ticket.id));
      // the customer's answer joins this conversation (the channel layer's thread rules)
      if (thread) await claimThread(tx, account, customerId, "", thread.ticketId, ticket.id);
      const [message] = await tx
        .insert(schema.messages)
        .values({ ticketId: ticket.id, type: "text", body: text, senderUserId: campaign.createdBy, createdAt: now })
        .returning({ id: schema.messages.id });
      if (campaign.createdBy != null) await touch(tx, ticket.id, campaign.createdBy, now, { lastMessage: text.slice(0, 300), responded: true });
      await queueDelivery(tx, ticket, [message.id], { to: [], cc: [] });
      await tx.update(r).set({ ticketId: ticket.id, messageId: message.id }).where(eq(r.id, recipient.id));
      return { ...ticket, campaignId: campaign.id };
    }),
  );
  if (written) await conversationCreated(written, { userIds: [] });
  return !!written;
}

async function pendingBatch(campaignId: number, limit: number): Promise<Recipient[]> {
  const { db, schema } = getDb();
  const r = schema.campaignRecipients;
  const ct = schema.contacts;
  return db
    .select({ id: r.id, contactId: r.contactId, address: r.address, name: ct.name, salutation: ct.salutation })
    .from(r)
    .innerJoin(ct, eq(ct.id, r.contactId))
    .where(and(eq(r.campaignId, campaignId), eq(r.state, "pending")))
    .orderBy(asc(r.id))
    .limit(limit);
}

/** Sent in the minute before `now`, and when the earliest of them was. */
async function sentInLastMinute(campaignId: number, now: number) {
  const { db, schema } = getDb();
  const r = schema.campaignRecipients;
  const [row] = await db
    .select({ n: count(), first: min(r.sentAt) })
    .from(r)
    .where(and(eq(r.campaignId, campaignId), gt(r.sentAt, now - MINUTE)));
  return { n: Number(row?.n ?? 0), first: row?.first == null ? now : Number(row.first) };
}

async function markDone(campaignId: number, now: number) {
  const { db, schema } = getDb();
  const c = schema.campaigns;
  const r = schema.campaignRecipients;
  const [left] = await db
    .select({ n: count() })
    .from(r)
    .where(and(eq(r.campaignId, campaignId), eq(r.state, "pending")));
  if (Number(left.n)) return;
  await db
    .update(c)
    .set({ state: "done", updatedAt: now })
    .where(and(eq(c.id, campaignId), eq(c.state, "sending")));
}

export interface SendJobDeps {
  /** The clock the throttle and the schedule read (tests move it). */
  now?: () => number;
}

export function defineSendJob(deps: SendJobDeps = {}) {
  const clock = deps.now ?? Date.now;
  defineJobKind(SEND_JOB, {
    maxAttempts: 20,
    async run(payload) {
      const id = Number((payload as { campaignId?: number })?.campaignId);
      let campaign = await campaignRow(id);
      // paused (resume queues a new job) or finished: nothing to do
      if (!campaign || !["scheduled", "sending"].includes(campaign.state)) return;
      let now = clock();
      if (campaign.startsAt != null && campaign.startsAt > now) throw new WaitAndRetry("the campaign starts later", campaign.startsAt - now);
      const { db, schema } = getDb();
      if (campaign.state === "scheduled")
        await db
          .update(schema.campaigns)
          .set({ state: "sending", updatedAt: now })
          .where(and(eq(schema.campaigns.id, id), eq(schema.campaigns.state, "scheduled")));
      const account = await loadAccount(campaign.channelAccountId);
      if (!account?.enabled || !IDENTITY_OF[account.kind]) throw new WaitAndRetry("the campaign's channel account is not enabled", MINUTE);
      let sent = 0;
      for (;;) {
        now = clock();
        const window = await sentInLastMinute(id, now);
        const allowance = Math.min(campaign.perMinute - window.n, RUN_MAX - sent);
        if (allowance <= 0) break;
        const batch = await pendingBatch(id, Math.min(allowance, 50));
        if (!batch.length) return markDone(id, now);
        for (const recipient of batch) {
          try {
            if (await sendOne(campaign, account, recipient, now)) sent++;
          } catch (error) {
            // a customer's first message started their conversation meanwhile: the next pass takes them again
            if (!(error instanceof ThreadTaken)) throw error;
          }
        }
        wakeJobs();
        // paused meanwhile: stop before the next batch
        campaign = await campaignRow(id);
        if (!campaign || campaign.state !== "sending") return;
      }
      const window = await sentInLastMinute(id, clock());
      const wait = window.n >= campaign.perMinute ? window.first + MINUTE - clock() : 0;
      throw new WaitAndRetry(`throttled: ${campaign.perMinute} a minute`, Math.max(1, wait));
    },
  });
}
