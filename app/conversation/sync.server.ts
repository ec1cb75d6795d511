// What a client that was away catches up on (spec section 7: GET /ticket/data/sync and GET /event/{id}).
//
// Sync reads what the database keeps anyway: every change to a conversation moves its
// tickets.updated_at (touch(), status, labels, ...), and messages have increasing ids and their
// time. So "what changed since ts" is the readable conversations updated after ts, oldest change
// first, a page at a time with a (updated_at, id) cursor, the ids of their messages written after
// ts, and the reader's unread counts. What leaves no row behind (a deleted message) or moves rows
// (merged live chat sessions) is written to conversation_events in the change's transaction and
// replayed by id.
import { and, asc, eq, gt, inArray, or, sql } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { KINDS } from "~/conversation/channels";
import { readableBy, type Reader } from "~/conversation/access.server";
import { unreadCounts } from "~/conversation/unread.server";
import { listColumns } from "~/conversation/list-columns.server";

export const SYNC_PAGE = 50;
/** Message ids per sync page: a conversation with more than this since ts is reloaded instead. */
export const SYNC_MESSAGES = 500;
export const EVENT_PAGE = 100;

export type EventAction = "delete_message" | "merge_session";

/** Records events in the caller's transaction (one per conversation touched). */
export async function recordEvents(
  tx: Tx,
  events: { action: EventAction; ticketId: number; refId?: number | null; sessionId?: number | null }[],
  at = Date.now(),
) {
  if (!events.length) return;
  const { schema } = getDb();
  await tx
    .insert(schema.conversationEvents)
    .values(events.map((e) => ({ action: e.action, ticketId: e.ticketId, refId: e.refId ?? null, sessionId: e.sessionId ?? null, createdAt: at })));
}

/** The newest event id (the auth check's event_id: where a client starts replaying from). */
export async function latestEventId() {
  const { db, schema } = getDb();
  const [row] = await db.select({ id: sql<number>`max(${schema.conversationEvents.id})` }).from(schema.conversationEvents);
  return Number(row?.id ?? 0);
}

/** Events after `afterId` on conversations the reader may read, oldest first, a page at a time. */
export async function eventsAfter(reader: Reader, afterId: number, limit = EVENT_PAGE) {
  const { db, schema } = getDb();
  const e = schema.conversationEvents;
  const rows = await db
    .select({ id: e.id, action: e.action, ticketId: e.ticketId, refId: e.refId, sessionId: e.sessionId, createdAt: e.createdAt })
    .from(e)
    .innerJoin(schema.tickets, eq(schema.tickets.id, e.ticketId))
    .where(and(gt(e.id, afterId), readableBy(reader)))
    .orderBy(asc(e.id))
    .limit(limit + 1);
  return { events: rows.slice(0, limit), more: rows.length > limit };
}

export interface SyncCursor {
  /** unix ms: changes after this time */
  ts: number;
  /** among changes at exactly ts, those of tickets with a greater id (the page was cut there) */
  after: number;
}

/** Readable conversations changed after the cursor (oldest change first), their new message ids, and the unread counts. */
export async function syncSince(reader: Reader, cursor: SyncCursor, limit = SYNC_PAGE) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const p = schema.participants;
  const changed = or(gt(t.updatedAt, cursor.ts), and(eq(t.updatedAt, cursor.ts), gt(t.id, cursor.after)));
  const rows = await db
    .select({ ...listColumns(), unread: p.unread })
    .from(t)
    .leftJoin(p, and(eq(p.ticketId, t.id), eq(p.userId, reader.id)))
    // every kind named: the (kind, updated_at) index then serves the range instead of a scan
    .where(and(inArray(t.kind, [...KINDS]), changed, readableBy(reader)))
    .orderBy(asc(t.updatedAt), asc(t.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  const m = schema.messages;
  const [messages, unread] = await Promise.all([
    page.length
      ? db
          .select({ id: m.id, ticketId: m.ticketId })
          .from(m)
          .where(
            and(
              inArray(
                m.ticketId,
                page.map((r) => r.id),
              ),
              gt(m.createdAt, cursor.ts),
            ),
          )
          .orderBy(asc(m.id))
          .limit(SYNC_MESSAGES + 1)
      : [],
    unreadCounts(reader.id),
  ]);
  const last = page.at(-1);
  return {
    tickets: page,
    messages: messages.slice(0, SYNC_MESSAGES),
    messagesCut: messages.length > SYNC_MESSAGES,
    unread,
    more,
    // where the next call starts: past the last change seen (the same cursor when nothing changed)
    next: last ? { ts: last.updatedAt, after: last.id } : cursor,
  };
}
