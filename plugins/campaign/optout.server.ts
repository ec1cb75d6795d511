// Opt-outs: a customer who writes STOP (or another stop word) on any messaging channel is sent no
// more campaigns there: the channel layer's responder seam tells us of every customer message in
// the transaction that stores it, so the opt-out commits with the message. An admin can also add
// one by hand (a phone or an email). The sending job skips an opted-out address (opted_out).
import { desc, eq, and } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { registerResponder } from "@plugins/channels/responders.server";
import { e164 } from "@plugins/channels/messaging.server";
import { normaliseEmail, normalisePhone } from "@plugins/contacts/identities";
import { OPTOUT_MAX } from "./limits";

/**
 * The words that opt a customer out when they are the whole message (case, spaces and a final
 * punctuation mark aside): the carriers' English keywords and their usual Malay, Chinese, Japanese
 * and Korean equivalents.
 */
export const STOP_WORDS = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "BERHENTI", "退订", "停止", "配信停止", "수신거부"]);

export const isStopMessage = (text: string) =>
  STOP_WORDS.has(
    text
      .trim()
      .replace(/[.!。！]+$/u, "")
      .trim()
      .toUpperCase(),
  );

export async function isOptedOut(tx: Tx, kind: string, value: string) {
  const { schema } = getDb();
  const o = schema.campaignOptouts;
  const [row] = await tx
    .select({ id: o.id })
    .from(o)
    .where(and(eq(o.kind, kind), eq(o.value, value)));
  return !!row;
}

async function addOptOut(tx: Tx, kind: string, value: string, channel: string, at: number) {
  const { schema } = getDb();
  await tx.insert(schema.campaignOptouts).values({ kind, value, channel, at }).onConflictDoNothing();
}

/** The customer's message on a messaging channel: a stop word opts their phone (or channel id) out. */
export function registerOptOutResponder() {
  return registerResponder("campaign", {
    async received(tx, call) {
      if (!isStopMessage(call.text)) return;
      const { schema } = getDb();
      const t = schema.tickets;
      const [ticket] = await tx.select({ channel: t.channel, phone: t.contactPhone, customerId: t.customerId }).from(t).where(eq(t.id, call.ticketId));
      if (!ticket) return;
      const phone = e164(ticket.phone) || (call.account.kind === "SMS" ? e164(ticket.customerId) : "");
      if (phone) await addOptOut(tx, "phone", phone, call.account.kind, Date.now());
      else if (ticket.customerId) await addOptOut(tx, "channel", `${ticket.channel.toUpperCase()}:${ticket.customerId.trim()}`, call.account.kind, Date.now());
    },
  });
}

/** An admin's opt-out: a phone (any usual form, kept E.164) or an email. */
export async function addManualOptOut(value: string, at = Date.now()) {
  const text = value.trim();
  if (!text) return { ok: false as const, error: "plugin_campaign.errors.optOutRequired" };
  if (text.length > OPTOUT_MAX) return { ok: false as const, error: "plugin_campaign.errors.optOutInvalid" };
  const email = text.includes("@") ? normaliseEmail(text) : "";
  const phone = email ? "" : normalisePhone(text);
  if (!email && !phone) return { ok: false as const, error: "plugin_campaign.errors.optOutInvalid" };
  await getDb().transaction((tx) => addOptOut(tx, email ? "email" : "phone", email || phone, "manual", at));
  return { ok: true as const, value: email || phone };
}

/** The latest opt-outs, newest first. */
export async function latestOptOuts(limit = 20) {
  const { db, schema } = getDb();
  const o = schema.campaignOptouts;
  const rows = await db.select().from(o).orderBy(desc(o.at), desc(o.id)).limit(limit);
  return rows.map((r) => ({ ...r, at: Number(r.at) }));
}
