// The /sms page's model: an agent sends one SMS or the same SMS to many numbers (one per line).
// Each number's conversation on the chosen account takes the text as an agent's reply (the
// customer's latest, within the account's reopen window, else a new SMS ticket), queued on the
// outbound queue like any reply, so each recipient's state is that message's delivery state. All
// recipients are written in one transaction: a bulk send goes out whole or not at all.
import { and, asc, desc, eq, inArray, ne } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { enabledAccounts } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { claimThread, conversationFor, e164, ThreadTaken } from "@plugins/channels/messaging.server";
import { canRead, readableBy, type Reader } from "~/conversation/access.server";
import { queueDelivery } from "~/conversation/delivery.server";
import { conversationCreated, newMessages } from "~/conversation/events.server";
import { insertTicket, touch, withUniqueNumber } from "~/conversation/model.server";
import { formError, formResult, type FormResult } from "~/forms";
import { wakeJobs } from "~/jobs/queue.server";
import { rememberRequest } from "~/request-keys.server";
import { BODY_MAX, FIELDS, RECIPIENTS_MAX } from "./limits";

type Actor = Reader & { username: string };

/** The enabled SMS accounts a user may send from: admins any, agents those of their department or of none. */
export async function smsAccounts(user: Reader): Promise<ChannelAccount[]> {
  const accounts = await enabledAccounts("SMS");
  return user.type === "admin" ? accounts : accounts.filter((a) => a.departmentId == null || a.departmentId === user.departmentId);
}

/** The numbers as typed: one per line (commas and semicolons also part them). */
const recipientLines = (value: string) =>
  value
    .split(/[\n,;]+/)
    .map((l) => l.trim())
    .filter(Boolean);

export function smsSchema(accountIds: number[]) {
  return z.object({
    account: z
      .string()
      .trim()
      .refine((v) => accountIds.includes(Number(v)), "plugin_sms.errors.account")
      .transform(Number),
    to: z
      .string()
      .superRefine((value, ctx) => {
        const lines = recipientLines(value);
        if (!lines.length) return void ctx.addIssue({ code: "custom", message: "plugin_sms.errors.toRequired" });
        const bad = lines.find((line) => !e164(line));
        if (bad) return void ctx.addIssue({ code: "custom", message: "plugin_sms.errors.badNumber", params: { number: bad.slice(0, 40) } });
        if (new Set(lines.map(e164)).size > RECIPIENTS_MAX)
          ctx.addIssue({ code: "custom", message: "plugin_sms.errors.tooMany", params: { max: String(RECIPIENTS_MAX) } });
      })
      .transform((value) => [...new Set(recipientLines(value).map(e164))]),
    message: z.string().trim().min(1, "plugin_sms.errors.messageRequired").max(BODY_MAX, "plugin_sms.errors.messageTooLong"),
  });
}

export type SendOutcome = { ok: true; messageIds: number[] } | { ok: false; result: FormResult; status: number };

/**
 * Sends the page's form: checked, then every number's message written and queued in one
 * transaction (with the request's key, so the same form sent twice sends once).
 */
export async function sendSms(actor: Actor, values: Record<(typeof FIELDS)[number], string>): Promise<SendOutcome> {
  try {
    return await sendSmsOnce(actor, values);
  } catch (error) {
    // a customer's first message started that number's conversation meanwhile: look again, join it
    if (error instanceof ThreadTaken) return sendSmsOnce(actor, values);
    throw error;
  }
}

async function sendSmsOnce(actor: Actor, values: Record<(typeof FIELDS)[number], string>): Promise<SendOutcome> {
  const accounts = await smsAccounts(actor);
  if (!accounts.length) return { ok: false, result: formResult({ message: "plugin_sms.noAccounts", values }), status: 409 };
  const parsed = smsSchema(accounts.map((a) => a.id)).safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values), status: 400 };
  const account = accounts.find((a) => a.id === parsed.data.account)!;
  const text = parsed.data.message;
  const now = Date.now();

  // each number's conversation to join; one the agent may not read is not theirs to write in
  const targets = await Promise.all(
    parsed.data.to.map(async (phone) => {
      const thread = await conversationFor(account, phone, "", now);
      return { phone, thread, existing: thread.joins ? { id: thread.ticketId! } : null };
    }),
  );
  const denied: string[] = [];
  for (const target of targets) if (target.existing && !(await canRead(actor, target.existing.id))) denied.push(target.phone);
  if (denied.length)
    return {
      ok: false,
      result: formResult({ errors: { to: "plugin_sms.errors.noAccess" }, values, messageValues: { numbers: denied.join(", ") } }),
      status: 403,
    };

  const handle = getDb();
  const { schema } = handle;
  const title = text.replace(/\s+/g, " ").slice(0, 120);
  const written = await withUniqueNumber(() =>
    handle.transaction(async (tx) => {
      const out: { ticket: typeof schema.tickets.$inferSelect; messageId: number; created: boolean }[] = [];
      for (const { phone, thread, existing } of targets) {
        let ticket: typeof schema.tickets.$inferSelect;
        if (existing) [ticket] = await tx.select().from(schema.tickets).where(eq(schema.tickets.id, existing.id));
        else {
          ticket = await insertTicket(
            tx,
            {
              channel: "SMS",
              title,
              departmentId: account.departmentId,
              contactName: phone,
              contactEmail: "",
              contactPhone: phone,
              customerId: phone,
              ref: "",
              receiverEmail: account.address,
              channelAccountId: account.id,
            },
            text,
            now,
          );
          // the customer's answer joins this conversation
          await claimThread(tx, account, phone, "", thread.ticketId, ticket.id);
          await tx
            .insert(schema.participants)
            .values({ ticketId: ticket.id, userId: actor.id, kind: ticket.kind, unread: false, lastReadAt: now, addedAt: now });
        }
        const [message] = await tx
          .insert(schema.messages)
          .values({ ticketId: ticket.id, type: "text", body: text, senderUserId: actor.id, createdAt: now })
          .returning({ id: schema.messages.id });
        await touch(tx, ticket.id, actor.id, now, { lastMessage: text.slice(0, 300), responded: true });
        await queueDelivery(tx, ticket, [message.id], { to: [], cc: [] });
        out.push({ ticket, messageId: message.id, created: !existing });
      }
      await rememberRequest(tx, { messageIds: out.map((o) => o.messageId) });
      return out;
    }),
  );
  for (const w of written) {
    if (w.created) await conversationCreated(w.ticket, { userIds: [actor.id] });
    else await newMessages(w.ticket, [w.messageId], actor.username);
  }
  wakeJobs();
  return { ok: true, messageIds: written.map((w) => w.messageId) };
}

export interface SmsState {
  messageId: number;
  ticketNumber: number;
  phone: string;
  text: string;
  state: string;
  error: string | null;
  at: number;
}

/**
 * SMS messages by id (a send's recipients, in the order sent), or the latest the reader sent out on
 * an SMS account (newest first), as far as the reader may read them.
 */
export async function smsStates(reader: Reader, query: { ids: number[] } | { sentBy: number; limit: number }): Promise<SmsState[]> {
  if ("ids" in query && !query.ids.length) return [];
  const { db, schema } = getDb();
  const m = schema.messages;
  const t = schema.tickets;
  const rows = await db
    .select({
      messageId: m.id,
      ticketNumber: t.ticketNumber,
      phone: t.contactPhone,
      customerId: t.customerId,
      text: m.body,
      state: m.deliveryState,
      error: m.deliveryError,
      at: m.createdAt,
    })
    .from(m)
    .innerJoin(t, eq(t.id, m.ticketId))
    .where(
      and(eq(t.channel, "SMS"), "ids" in query ? inArray(m.id, query.ids) : and(eq(m.senderUserId, query.sentBy), ne(m.deliveryState, "")), readableBy(reader)),
    )
    .orderBy("ids" in query ? asc(m.id) : desc(m.id))
    .limit("ids" in query ? RECIPIENTS_MAX : query.limit);
  return rows.map(({ customerId, phone, ...r }) => ({ ...r, phone: phone || customerId || "" }));
}
