// report_facts: one narrow row per conversation with what the reports aggregate (first response,
// resolution, SLA, rating), so dashboards read one covering index instead of joining messages
// and labels over a million tickets. refreshFacts() brings it up to date incrementally before
// every report; see docs/decisions/030-report-facts.md.
import { sql, type SQL } from "drizzle-orm";
import { getDb, rows, type DbHandle } from "@db/client";
import { KINDS } from "~/conversation/channels";

/**
 * The customer rating of a conversation (1-5, the live chat visitor's stars), as SQL over the
 * tickets row `t`.
 */
export function ratingSql(): SQL {
  return sql`t.rating`;
}

/** The rating's reason text (shown beside the rating for live chats in the summary report). */
export function ratingReasonSql(): SQL {
  return sql`t.rating_reason`;
}

// rows() lives in db/client.ts (search reads raw SELECTs too); re-exported for the report models
export { rows };

const BATCH = 5000;
const QUARTER = 15 * 60 * 1000;
const DAY = 24 * 60 * 60 * 1000;

/** Time buckets of first-response and resolution times (upper bounds, ms); the last is open. */
export const DURATION_BOUNDS = [5 * 60 * 1000, 15 * 60 * 1000, 60 * 60 * 1000, 4 * 60 * 60 * 1000, DAY];

/** Bucket index 0..5 of a duration column, -1 when absent. */
export function durationBucketSql(column: SQL) {
  const d = sql`(${column} - created_at)`;
  const whens = DURATION_BOUNDS.map((below, i) => sql`when ${d} < ${below} then ${i}`);
  return sql`case when ${column} is null then -1 ${sql.join(whens, sql` `)} else ${DURATION_BOUNDS.length} end`;
}

/** SLA outcome that does not depend on the clock: open conversations are split at query time. */
export const slaStaticSql = sql`case when sla_minutes is null then 'none'
  when resolved_at is not null and resolved_at - created_at <= cast(sla_minutes as bigint) * 60000 then 'met'
  when resolved_at is not null then 'breached' else 'open' end`;

/**
 * What report_facts rows matching `where` add to each rollup dimension, as (dim, kind, at, key,
 * ms) rows. `at` is the UTC day (15 minutes for vol), or 0 when `byTime` is off.
 */
export function contributionsSql(where: SQL, opts: { byTime: boolean; volume: boolean }) {
  const day = opts.byTime ? sql`created_at - (created_at % ${DAY})` : sql`0`;
  const quarter = opts.byTime ? sql`created_at - (created_at % ${QUARTER})` : sql`0`;
  const parts = [
    opts.volume ? sql`select 'vol' as dim, kind, ${quarter} as at, '' as key, cast(null as bigint) as ms from report_facts where ${where}` : undefined,
    sql`select 'cs' as dim, kind, ${day} as at, channel || '|' || cast(status as text) as key, cast(null as bigint) as ms from report_facts where ${where}`,
    sql`select 'fr' as dim, kind, ${day} as at, cast(${durationBucketSql(sql`first_response_at`)} as text) as key, first_response_at - created_at as ms from report_facts where ${where}`,
    sql`select 'res' as dim, kind, ${day} as at, cast(${durationBucketSql(sql`resolved_at`)} as text) as key, resolved_at - created_at as ms from report_facts where ${where}`,
    sql`select 'sla' as dim, kind, ${day} as at, ${slaStaticSql} as key, cast(null as bigint) as ms from report_facts where ${where}`,
    sql`select 'rating' as dim, kind, ${day} as at, cast(rating as text) as key, cast(null as bigint) as ms from report_facts where ${where} and rating is not null`,
  ].filter((p): p is SQL => !!p);
  return sql.join(parts, sql` union all `);
}

/** Adds (sign 1) or takes away (sign -1) the contribution of these facts to report_rollup. */
function rollupSql(where: SQL, sign: 1 | -1) {
  return sql`
    insert into report_rollup (dim, kind, at, key, n, sum_ms, n_ms)
    select dim, kind, at, key, ${sign} * count(*), ${sign} * coalesce(sum(ms), 0), ${sign} * count(ms)
    from (${contributionsSql(where, { byTime: true, volume: true })}) c
    where true
    group by dim, kind, at, key
    on conflict (dim, kind, at, key) do update set
      n = report_rollup.n + excluded.n, sum_ms = report_rollup.sum_ms + excluded.sum_ms, n_ms = report_rollup.n_ms + excluded.n_ms`;
}

/** Runs a statement inside a transaction on either dialect. */
async function exec(handle: DbHandle, tx: unknown, query: SQL) {
  if (handle.dialect === "sqlite") (tx as { run(q: SQL): unknown }).run(query);
  else await (tx as { execute(q: SQL): Promise<unknown> }).execute(query);
}

/** Any fixed number: the PostgreSQL advisory lock that lets one node at a time move the rollup. */
const ROLLUP_LOCK = 731_004;

/**
 * Recomputes the facts of `tickets` (a condition over tickets t) and moves their rollup share:
 * the old share out, the new one in, so applying the same tickets twice (two nodes) counts once.
 */
function applyFacts(handle: DbHandle, tickets: SQL) {
  const facts = sql`ticket_id in (select t.id from tickets t where ${tickets})`;
  return handle.transaction(async (tx) => {
    if (handle.dialect === "pg") await exec(handle, tx, sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`);
    await exec(handle, tx, rollupSql(facts, -1));
    await exec(handle, tx, upsertFacts(tickets));
    await exec(handle, tx, rollupSql(facts, 1));
  });
}

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
      kind = excluded.kind, status = excluded.status, updated_at = excluded.updated_at, first_response_at = excluded.first_response_at,
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
  const q = <T>(query: SQL) => rows<T>(query, handle);
  let written = 0;
  // where the changed-tickets pass starts: taken before the new tickets' facts move the marks
  const [{ seen }] = await q<{ seen: number | null }>(sql`select max(ticket_id) as "seen" from report_facts`);
  const marks = new Map<string, { at: number; id: number }>();
  for (const kind of KINDS) {
    const [mark] = await q<{ at: number; id: number }>(
      sql`select updated_at as "at", ticket_id as "id" from report_facts where kind = ${kind} order by updated_at desc, ticket_id desc limit 1`,
    );
    if (mark) marks.set(kind, { at: Number(mark.at), id: Number(mark.id) });
  }
  // new tickets, in id order
  for (;;) {
    const [{ maxId }] = await q<{ maxId: number | null }>(sql`select max(ticket_id) as "maxId" from report_facts`);
    const from = Number(maxId ?? 0);
    const [{ upTo }] = await q<{ upTo: number | null }>(
      sql`select max(id) as "upTo" from (select id from tickets where id > ${from} order by id limit ${BATCH}) as batch`,
    );
    if (upTo == null) break;
    await applyFacts(handle, sql`t.id > ${from} and t.id <= ${Number(upTo)}`);
    written += Number(upTo) - from;
  }
  // changed tickets (already seen, activity past their kind's mark), per kind along the
  // (kind, updated_at) index, in activity order so each batch's last row is the next mark
  for (const kind of KINDS) {
    let mark = marks.get(kind);
    while (mark) {
      const { at, id } = mark;
      const changed = await q<{ id: number; at: number }>(sql`
        select id, updated_at as "at" from tickets
        where kind = ${kind} and id <= ${Number(seen ?? 0)} and (updated_at > ${at} or (updated_at = ${at} and id > ${id}))
        order by updated_at, id limit ${BATCH}`);
      if (changed.length === 0) break;
      const ids = changed.map((r) => Number(r.id));
      await applyFacts(
        handle,
        sql`t.id in (${sql.join(
          ids.map((n) => sql`${n}`),
          sql`, `,
        )})`,
      );
      written += ids.length;
      const last = changed[changed.length - 1];
      mark = changed.length < BATCH ? undefined : { at: Number(last.at), id: Number(last.id) };
    }
  }
  return written;
}
