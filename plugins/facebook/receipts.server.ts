// Messenger's delivery and read receipts name no message: a watermark says every message the Page
// sent the customer before that moment was delivered (or read). Each of ours sent up to it moves
// forward; setDeliveryState never moves one back, so late and repeated receipts change nothing.
import { and, eq, lte, notInArray } from "drizzle-orm";
import { getDb } from "@db/client";
import { setDeliveryState } from "~/conversation/delivery.server";
import type { ChannelAccount, InboundEvent, ReceiveOutcome } from "@plugins/channels/adapter";
import { markEventProcessed } from "@plugins/channels/inbound.server";
import type { Watermark } from "./events";

/** How long a receipt waits for the send it covers to be recorded before it is set aside. */
const RECEIPT_PATIENCE_MS = 10 * 60_000;

export async function applyWatermark(event: InboundEvent, account: ChannelAccount, receipt: Watermark): Promise<ReceiveOutcome> {
  const handle = getDb();
  const { db, schema } = handle;
  const c = schema.channelMessages;
  const m = schema.messages;
  const t = schema.tickets;
  const covered = (states: string[]) =>
    db
      .select({ messageId: c.messageId, ticketId: c.ticketId })
      .from(c)
      .innerJoin(m, eq(m.id, c.messageId))
      .innerJoin(t, eq(t.id, c.ticketId))
      .where(
        and(
          eq(c.accountId, account.id),
          eq(c.direction, "out"),
          eq(t.channel, "FB_PM"),
          eq(t.customerId, receipt.customerId),
          lte(m.createdAt, receipt.watermark),
          states.length ? notInArray(m.deliveryState, states) : undefined,
        ),
      );
  // only those not there yet (a long conversation is not announced again at every receipt)
  const moving = await covered(receipt.state === "read" ? ["read"] : ["delivered", "read"]);
  const [any] = moving.length ? moving : await covered([]).limit(1);
  if (!any) {
    // the Page's answers from elsewhere (its inbox): kept for inspection, not tried for hours
    if (Date.now() - event.receivedAt > RECEIPT_PATIENCE_MS)
      return { state: "quarantined", reason: `a ${receipt.state} receipt up to ${new Date(receipt.watermark).toISOString()}, for nothing sent from here` };
    // the customer's app answered faster than the send job could note what it sent: tried again later
    throw new Error(`no message sent to ${receipt.customerId} before ${receipt.watermark} yet`);
  }
  const byTicket = new Map<number, number[]>();
  for (const row of moving) byTicket.set(row.ticketId, [...(byTicket.get(row.ticketId) ?? []), row.messageId]);
  for (const [ticketId, ids] of byTicket) await setDeliveryState(ticketId, ids, receipt.state);
  await handle.transaction((tx) => markEventProcessed(tx, event.id, { ticketId: any.ticketId, messageId: any.messageId }));
  return { state: "processed", ticketId: any.ticketId, messageId: any.messageId };
}

/** The customer's name as their Messenger conversation with this Page has it ("" when none yet, or only their id). */
export async function knownCustomerName(account: ChannelAccount, customerId: string) {
  const { db, schema } = getDb();
  const th = schema.channelThreads;
  const t = schema.tickets;
  const [row] = await db
    .select({ name: t.contactName })
    .from(th)
    .innerJoin(t, eq(t.id, th.ticketId))
    .where(and(eq(th.accountId, account.id), eq(th.customerId, customerId), eq(th.ref, "")));
  return row?.name && row.name !== customerId ? row.name : "";
}
