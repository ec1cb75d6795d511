// report_facts: one narrow row per conversation with what the reports aggregate (first response,
// resolution, SLA, rating), so dashboards read one covering index instead of joining messages
// and labels over a million tickets. refreshFacts() brings it up to date incrementally before
// every report; see docs/decisions/030-report-facts.md.
import { sql, type SQL } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { KINDS } from "~/channels";

/**
 * The customer rating of a conversation (1-5), as SQL over the tickets row `t`. Live-chat ratings
 * are not stored yet: this is the one place to point at the rating column once they are.
 */
export function ratingSql(): SQL {
  return sql`cast(null as integer)`;
}

/** The rating's reason text (shown beside the rating for live chats in the summary report). */
export function ratingReasonSql(): SQL {
  return sql`cast(null as text)`;
}

/** Rows of a raw SELECT on either dialect (PostgreSQL returns bigints as strings: callers use Number). */
export async function rows<T = Record<string, unknown>>(query: SQL, handle: DbHandle = getDb()): Promise<T[]> {
  const { dialect, db } = handle;
  if (dialect === "sqlite") return db.all(query) as T[];
  const result = await (db as unknown as { execute(q: SQL): Promise<{ rows: T[] }> }).execute(query);
  return result.rows;
}

const BATCH = 5000;

/** Computes the facts of the tickets matching `where` (over tickets `t`) and upserts them. */
function upsertFacts(where: SQL) {
  return sql`
    insert into report_facts (ticket_id, kind, channel, status, created_at, updated_at, first_response_at, resolved_at, sla_minutes, rating)
    select t.id, t.kind, t.channel, t.status, t.created_at, t.updated_at,
      (select min(m.created_at) from messages m where m.ticket_id = t.id and m.sender_user_id is not null and m.type <> 'system'),
      case when t.status >= 2 then t.updated_at end,
      (select min(l.sla) from ticket_labels tl join labels l on l.id = tl.label_id where tl.ticket_id = t.id),
      ${ratingSql()}
    from tickets t
    where ${where}
    on conflict (ticket_id) do update set
      status = excluded.status, updated_at = excluded.updated_at, first_response_at = excluded.first_response_at,
      resolved_at = excluded.resolved_at, sla_minutes = excluded.sla_minutes, rating = excluded.rating`;
}

let running: Promise<number> | undefined;

/**
 * Brings report_facts up to date: tickets never seen (id above the highest fact) and tickets
 * whose updated_at moved past the newest fact of their kind. Each pass is a batch of 5,000, so a
 * first run over a million tickets never holds one long write; concurrent callers share one run.
 * Returns the number of facts written.
 */
export function refreshFacts(handle: DbHandle = getDb()): Promise<number> {
  running ??= doRefresh(handle).finally(() => (running = undefined));
  return running;
}

async function doRefresh(handle: DbHandle) {
  const { raw } = handle;
  const q = <T,>(query: SQL) => rows<T>(query, handle);
  let written = 0;
  // new tickets, in id order
  for (;;) {
    const [{ maxId }] = await q<{ maxId: number | null }>(sql`select max(ticket_id) as "maxId" from report_facts`);
    const from = Number(maxId ?? 0);
    const [{ upTo }] = await q<{ upTo: number | null }>(
      sql`select max(id) as "upTo" from (select id from tickets where id > ${from} order by id limit ${BATCH}) as batch`,
    );
    if (upTo == null) break;
    await raw(upsertFacts(sql`t.id > ${from} and t.id <= ${Number(upTo)}`));
    written += Number(upTo) - from;
  }
  // changed tickets, per kind along the (kind, updated_at) index
  for (const kind of KINDS) {
    for (;;) {
      const [mark] = await q<{ at: number; id: number }>(
        sql`select updated_at as "at", ticket_id as "id" from report_facts where kind = ${kind} order by updated_at desc, ticket_id desc limit 1`,
      );
      if (!mark) break;
      const at = Number(mark.at);
      const changed = await q<{ id: number }>(
        sql`select id from tickets where kind = ${kind} and updated_at >= ${at} and not (updated_at = ${at} and id <= ${Number(mark.id)}) limit ${BATCH}`,
      );
      if (changed.length === 0) break;
      const ids = changed.map((r) => Number(r.id));
      await raw(upsertFacts(sql`t.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`));
      written += ids.length;
      if (ids.length < BATCH) break;
    }
  }
  return written;
}

/**
 * Recomputes the facts of these tickets now. For writes that do not move tickets.updated_at
 * (label changes, label SLA edits, ratings): call it after them.
 */
export async function refreshFactsFor(ticketIds: number[]) {
  const { raw } = getDb();
  for (let i = 0; i < ticketIds.length; i += BATCH) {
    const ids = ticketIds.slice(i, i + BATCH);
    await raw(upsertFacts(sql`t.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`));
  }
}
