// The threading lookup (threading.ts ThreadingLookup) against the database. Every query is bounded:
// a mail with 10,000 references or recipients costs a handful of indexed queries.
import { and, desc, eq, inArray, or, sql } from "drizzle-orm";
import { getDb } from "@db/client";
import { RESOLVED } from "~/conversation/constants";
import { MAX_LOOKED_UP_IDS, normalizeAddress, type StoredMessage, type ThreadingLookup, type TicketRef } from "./threading";

/** Rows of one Message-ID considered at most (a newsletter id may be stored on thousands of tickets). */
const MAX_ROWS = 400;

async function ticketRefs(ids: number[]): Promise<Map<number, TicketRef>> {
  const out = new Map<number, TicketRef>();
  const unique = [...new Set(ids)];
  if (!unique.length) return out;
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [tickets, people] = await Promise.all([
    db
      .select({
        id: t.id,
        number: t.ticketNumber,
        contactEmail: t.contactEmail,
        status: t.status,
        receiverEmail: t.receiverEmail,
        account: schema.channelAccounts.address,
      })
      .from(t)
      .leftJoin(schema.channelAccounts, eq(schema.channelAccounts.id, t.channelAccountId))
      .where(inArray(t.id, unique)),
    db
      .select({ ticketId: schema.emailParticipants.ticketId, address: schema.emailParticipants.address })
      .from(schema.emailParticipants)
      .where(inArray(schema.emailParticipants.ticketId, unique)),
  ]);
  for (const r of tickets)
    out.set(r.id, {
      id: r.id,
      number: r.number,
      customerAddresses: r.contactEmail ? [normalizeAddress(r.contactEmail)] : [],
      participantAddresses: people.filter((p) => p.ticketId === r.id).map((p) => p.address),
      closed: r.status >= RESOLVED,
      mailboxAddress: normalizeAddress(r.account || r.receiverEmail),
    });
  return out;
}

async function oneTicket(id: number | undefined): Promise<TicketRef | null> {
  if (id == null) return null;
  return (await ticketRefs([id])).get(id) ?? null;
}

/** sender: the mail's From, so the sender's own tickets are among the rows of an id stored on very many tickets. */
export function databaseLookup(sender: string): ThreadingLookup {
  const from = normalizeAddress(sender);
  return {
    async ticketByReplyToken(token) {
      const { db, schema } = getDb();
      const [row] = await db
        .select({ ticketId: schema.emailThreads.ticketId })
        .from(schema.emailThreads)
        .where(eq(schema.emailThreads.replyToken, token.toLowerCase()))
        .limit(1);
      return oneTicket(row?.ticketId);
    },

    async ticketsByMessageIds(ids) {
      const wanted = ids.slice(0, MAX_LOOKED_UP_IDS);
      if (!wanted.length) return [];
      const { db, schema } = getDb();
      const e = schema.emailMessages;
      const t = schema.tickets;
      const columns = { messageId: e.internetMessageId, ticketId: e.ticketId, direction: e.direction, recipientCount: e.recipientCount, bulk: e.bulk };
      const [any, mine] = await Promise.all([
        db.select(columns).from(e).where(inArray(e.internetMessageId, wanted)).orderBy(desc(e.createdAt)).limit(MAX_ROWS),
        from
          ? db
              .select(columns)
              .from(e)
              .innerJoin(t, eq(t.id, e.ticketId))
              .where(
                and(
                  inArray(e.internetMessageId, wanted),
                  or(eq(t.contactEmail, from), sql`exists (select 1 from ${schema.emailParticipants} p where p.ticket_id = ${t.id} and p.address = ${from})`),
                ),
              )
              .limit(MAX_ROWS)
          : Promise.resolve([]),
      ]);
      const seen = new Set<string>();
      const rows = [...mine, ...any].filter((r) => {
        const k = `${r.messageId} ${r.ticketId}`;
        return seen.has(k) ? false : (seen.add(k), true);
      });
      const refs = await ticketRefs(rows.map((r) => r.ticketId));
      return rows.flatMap((r): StoredMessage[] => {
        const ticket = refs.get(r.ticketId);
        return ticket
          ? [{ messageId: r.messageId, ticket, direction: r.direction === "out" ? "out" : "in", recipientCount: r.recipientCount, bulk: r.bulk }]
          : [];
      });
    },

    async ticketByThreadIndex(root) {
      const { db, schema } = getDb();
      const e = schema.emailMessages;
      // the conversation's latest ticket: a root reused after a forward-to-new-ticket points at the newer one
      const [row] = await db.select({ ticketId: e.ticketId }).from(e).where(eq(e.threadIndexRoot, root)).orderBy(desc(e.createdAt)).limit(1);
      return oneTicket(row?.ticketId);
    },

    async ticketByNumber(n) {
      const number = Number(n);
      if (!Number.isSafeInteger(number)) return null;
      const { db, schema } = getDb();
      const [row] = await db.select({ id: schema.tickets.id }).from(schema.tickets).where(eq(schema.tickets.ticketNumber, number)).limit(1);
      return oneTicket(row?.id);
    },

    async isAgentAddress(address) {
      const a = normalizeAddress(address);
      if (!a) return false;
      const { db, schema } = getDb();
      const [row] = await db.select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.email, a)).limit(1);
      return !!row;
    },
  };
}
