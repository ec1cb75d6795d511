// conversation.receive: the one way a customer's message from outside (the public new-ticket form,
// a mail, later WhatsApp, LINE, ...) enters. The ticket (new or appended), its messages and files,
// and the channel's own rows (written by the channel's callback) go in one transaction, so nothing
// is half-written; the events follow once it has committed.
import { eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { SERVER_EVENTS } from "~/realtime-events";
import { PENDING, RESOLVED } from "./constants";
import { queueLinkPreviews } from "./link-preview.server";
import { wakeJobs } from "~/jobs/queue.server";
import { announce, conversationCreated, newMessages } from "./events.server";
import { fileMessage, insertTicket, senderPriority, systemMessage, touch, FROM_OUTSIDE, withUniqueNumber, type StoredFile } from "./model.server";
import { rememberRequest } from "~/request-keys.server";
import { notifyNewTicket, toldAll } from "./notifications.server";

type TicketRow = typeof import("@db/schema/sqlite").tickets.$inferSelect;

export interface NewChannelTicket {
  channel: string;
  title: string;
  contactName: string;
  contactEmail: string;
  departmentId: number | null;
  /** The address the customer wrote to (spec receiver_email). */
  receiverEmail: string;
  channelAccountId: number | null;
  /** Messaging channels: the customer's id at the provider, their phone (E.164) and what the thread hangs on. */
  customerId?: string;
  contactPhone?: string;
  ref?: string;
  /** PENDING: a bot answers first (plugins/wauchat); the department hears of it when it hands over. */
  status?: number;
}

export interface ReceiveInput {
  /** Append to this ticket, or start a new one. */
  ticket: { id: number } | NewChannelTicket;
  message: {
    body: string;
    type: "text" | "text/html";
    senderName: string;
    /** The list's preview (plain text). */
    preview?: string;
    /** The history the message quotes, kept apart (messages.quoted) and folded under it by the view. */
    quoted?: string;
  };
  /** Stored already (file I/O happens before the transaction): one message each, after the text. */
  files: StoredFile[];
  at?: number;
  /** The text's final form once the files' message ids are known (a mail's inline images link to their files). */
  finishBody?: (fileMessageIds: number[]) => string;
  /** The channel's own rows, in the same transaction; messageIds: the text first (unless empty beside files), then one per file. */
  inTransaction?: (tx: Tx, written: { ticket: TicketRow; messageIds: number[]; created: boolean }) => Promise<void>;
}

export interface Received {
  ticket: TicketRow;
  messageIds: number[];
  created: boolean;
  reopened: boolean;
}

export class TicketGone extends Error {}

export async function receive(input: ReceiveInput): Promise<Received> {
  const handle = getDb();
  const { schema } = handle;
  const at = input.at ?? Date.now();
  const preview = (input.message.preview ?? input.message.body).slice(0, 300);
  const fresh = "channel" in input.ticket ? input.ticket : null;
  const severity = fresh ? await senderPriority(fresh.contactEmail) : "";

  let previews = false;
  let newTicketFor: number[] = [];
  const write = () =>
    handle.transaction(async (tx) => {
      let ticket: TicketRow;
      let reopened = false;
      if (fresh) {
        ticket = await insertTicket(tx, { ...fresh, severity }, preview, at);
      } else {
        const [row] = await tx
          .select()
          .from(schema.tickets)
          .where(eq(schema.tickets.id, (input.ticket as { id: number }).id));
        if (!row) throw new TicketGone();
        ticket = row;
        // the customer wrote again: a resolved or closed ticket is open once more
        if (ticket.status >= RESOLVED) {
          await systemMessage(tx, ticket.id, { event: "status", by: input.message.senderName, status: 0 }, at);
          reopened = true;
        }
      }
      const text = {
        ticketId: ticket.id,
        type: input.message.type,
        body: input.message.body,
        quoted: input.message.quoted || null,
        senderName: input.message.senderName,
        createdAt: at,
      };
      // a photo sent without a caption is just the photo
      const hasText = !!input.message.body || !input.files.length;
      const rows = [...(hasText ? [text] : []), ...input.files.map((f) => fileMessage(ticket.id, f, { senderName: input.message.senderName }, at))];
      const inserted = await tx.insert(schema.messages).values(rows).returning({ id: schema.messages.id });
      const messageIds = inserted.map((r) => r.id);
      // a public form sent twice (its request key) makes one ticket
      await rememberRequest(tx, { ticketId: ticket.id });
      previews = (await queueLinkPreviews(tx, ticket.id, rows, at)) > 0;
      if (input.finishBody && hasText)
        await tx
          .update(schema.messages)
          .set({ body: input.finishBody(messageIds.slice(1)) })
          .where(eq(schema.messages.id, messageIds[0]));
      if (!fresh) await touch(tx, ticket.id, FROM_OUTSIDE, at, { lastMessage: preview, ...(reopened ? { status: 0 } : {}) });
      if (reopened) ticket = { ...ticket, status: 0 };
      await input.inTransaction?.(tx, { ticket, messageIds, created: !!fresh });
      // new work from outside: those who asked for it (their filters) hear of it, not while a bot holds it
      if (fresh && ticket.status !== PENDING) newTicketFor = await notifyNewTicket(tx, ticket, at);
      return { ticket, messageIds, created: !!fresh, reopened };
    });

  const result = fresh ? await withUniqueNumber(write) : await write();
  if (previews) wakeJobs();
  toldAll(newTicketFor);
  // a conversation a bot holds (Pending) is not agents' new work yet: announced when it hands over
  if (result.created) {
    if (result.ticket.status !== PENDING) await conversationCreated(result.ticket, { department: true });
  } else {
    await newMessages(result.ticket, result.messageIds, "");
    if (result.reopened) await announce(result.ticket, SERVER_EVENTS.ticketStatusChanged, { status: 0 });
  }
  return result;
}
