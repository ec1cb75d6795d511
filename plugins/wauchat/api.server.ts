// WAUCHAT as a channel of its own: GET /api/wauchat ?type, message, _token lets a client (a mobile
// app, a kiosk) talk to the bot. The caller is the token's user; `type` names one of their
// conversations (default "default"), so a kiosk and a phone signed in as the same user keep two.
// Their conversation is a WAUCHAT ticket, started on first use (Pending while the bot holds it),
// joined until resolved longer than a day ago. A message is stored as the customer's (through
// conversation.receive, with the bot's answer job in the same transaction) and answered at once;
// the answer lists the messages after it. Without a message the call fetches what was written
// since `after` (a message id): after a handover, the agents' replies.
import { and, asc, desc, eq, gt, ne } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { receive } from "~/conversation/receive.server";
import { PENDING, RESOLVED } from "~/conversation/constants";
import { getSetting } from "~/models/settings.server";
import { answer, BOT_USERNAME, holdConversation, queueAnswer } from "./bot.server";

/** How long after a resolve the caller's next message still reopens their conversation. */
const REOPEN_MS = 24 * 3_600_000;
/** Messages a fetch answers at most. */
export const FETCH_LIMIT = 50;

type Caller = { id: number; name: string; username: string };

class CallerTaken extends Error {}

/** The caller's current conversation, and whether a new message joins it. */
async function callerConversation(caller: string, at: number) {
  const { db, schema } = getDb();
  const c = schema.wauchatCallers;
  const t = schema.tickets;
  const [row] = await db
    .select({ ticketId: c.ticketId, status: t.status, updatedAt: t.updatedAt })
    .from(c)
    .innerJoin(t, eq(t.id, c.ticketId))
    .where(eq(c.caller, caller));
  if (!row) return { ticketId: null, joins: false };
  return { ticketId: row.ticketId, joins: !(row.status >= RESOLVED && at - row.updatedAt > REOPEN_MS) };
}

/** The new conversation is the caller's current one, unless another call got there first. */
async function claimCaller(tx: Tx, caller: string, previous: number | null, ticketId: number) {
  const { schema } = getDb();
  const c = schema.wauchatCallers;
  const claimed =
    previous == null
      ? await tx.insert(c).values({ caller, ticketId }).onConflictDoNothing().returning({ ticketId: c.ticketId })
      : await tx
          .update(c)
          .set({ ticketId })
          .where(and(eq(c.caller, caller), eq(c.ticketId, previous)))
          .returning({ ticketId: c.ticketId });
  if (!claimed.length) throw new CallerTaken();
}

export interface ApiMessage {
  id: number;
  /** customer (the caller), bot, or agent */
  from: "customer" | "bot" | "agent";
  name: string;
  text: string;
  createdAt: number;
}

async function messagesSince(ticketId: number, after: number): Promise<ApiMessage[]> {
  const { db, schema } = getDb();
  const m = schema.messages;
  const u = schema.users;
  const rows = await db
    .select({ id: m.id, body: m.body, senderUserId: m.senderUserId, senderName: m.senderName, createdAt: m.createdAt, username: u.username, name: u.name })
    .from(m)
    .leftJoin(u, eq(u.id, m.senderUserId))
    .where(and(eq(m.ticketId, ticketId), gt(m.id, after), ne(m.type, "system")))
    .orderBy(after ? asc(m.id) : desc(m.id))
    .limit(FETCH_LIMIT);
  if (!after) rows.reverse();
  return rows.map((r) => ({
    id: r.id,
    from: !r.senderUserId ? "customer" : r.username === BOT_USERNAME ? "bot" : "agent",
    name: !r.senderUserId ? r.senderName : r.username === BOT_USERNAME ? "Bot" : (r.name ?? ""),
    text: r.body,
    createdAt: r.createdAt,
  }));
}

async function conversationState(ticketId: number) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ ticketNumber: schema.tickets.ticketNumber, status: schema.tickets.status, stage: schema.wauchatConversations.stage })
    .from(schema.tickets)
    .leftJoin(schema.wauchatConversations, eq(schema.wauchatConversations.ticketId, schema.tickets.id))
    .where(eq(schema.tickets.id, ticketId));
  return { ticket: row.ticketNumber, status: row.status, with: row.stage && row.stage !== "human" ? ("bot" as const) : ("agent" as const) };
}

/** A message from the caller: stored, answered by the bot (or left for the agents after a handover). */
export async function talk(user: Caller, type: string, text: string) {
  const caller = `${user.id}:${type}`;
  const at = Date.now();
  const departmentId = Number(await getSetting("new_ticket_department")) || null;
  const write = async () => {
    const current = await callerConversation(caller, at);
    let messageId = 0;
    const received = await receive({
      ticket: current.joins
        ? { id: current.ticketId! }
        : {
            channel: "WAUCHAT",
            title: text.replace(/\s+/g, " ").slice(0, 120),
            contactName: user.name,
            contactEmail: "",
            customerId: caller,
            ref: type,
            departmentId,
            receiverEmail: "",
            channelAccountId: null,
            status: PENDING,
          },
      message: { body: text, type: "text", senderName: user.name },
      files: [],
      at,
      inTransaction: async (tx, written) => {
        messageId = written.messageIds[0];
        if (written.created) {
          await claimCaller(tx, caller, current.ticketId, written.ticket.id);
          await holdConversation(tx, written.ticket.id, null);
        }
        // queued with the message: a crash before the answer below still gets it answered
        await queueAnswer(tx, { ticketId: written.ticket.id, messageId, text });
      },
    });
    return { ticketId: received.ticket.id, messageId };
  };
  let written: { ticketId: number; messageId: number } | undefined;
  for (let attempt = 1; !written; attempt++) {
    try {
      written = await write();
    } catch (error) {
      if (!(error instanceof CallerTaken) || attempt >= 3) throw error;
    }
  }
  // answered now, so the caller gets it in this response; the queued job then finds it done
  await answer({ ticketId: written.ticketId, messageId: written.messageId, text });
  return { ...(await conversationState(written.ticketId)), messages: await messagesSince(written.ticketId, written.messageId) };
}

/** What was written in the caller's conversation after `after` (the latest messages when 0). */
export async function fetchMessages(user: Caller, type: string, after: number) {
  const current = await callerConversation(`${user.id}:${type}`, Date.now());
  if (!current.ticketId) return null;
  return { ...(await conversationState(current.ticketId)), messages: await messagesSince(current.ticketId, after) };
}
