// Shared by the benches: the large bench database and the timing of repeated runs.
import path from "node:path";
import { performance } from "node:perf_hooks";
import { sql, type SQL } from "drizzle-orm";
import { openDatabase } from "../db/client";
import { isEmpty, seedDemo, seedTickets } from "../app/seed/seed";

// seeding a million rows and rebuilding their indexes takes minutes: the benches' own connections
// have no statement timeout (the servers they start keep the product's)
process.env.PG_STATEMENT_TIMEOUT_MS ??= "0";

export const benchDataDir = path.resolve(process.env.BENCH_DATA_DIR || "/tmp/omnidesk-bench");
/** PostgreSQL when DATABASE_URL points at one, else the SQLite file in benchDataDir. */
export const benchPgUrl = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;

/** The bench database, migrated and holding at least `tickets` tickets (seeded on first use). */
export async function openBenchDatabase(tickets: number) {
  const handle = openDatabase(benchPgUrl ?? path.join(benchDataDir, "omnidesk.sqlite"));
  await handle.migrate();
  const started = Date.now();
  const log = (m: string) => console.log(`  seed: ${m} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const t = handle.schema.tickets;
  const short = async () =>
    (await isEmpty(handle)) ||
    !(
      await handle.db
        .select({ id: t.id })
        .from(t)
        .orderBy(t.id)
        .limit(1)
        .offset(tickets - 1)
    ).length;
  if (await short())
    await withoutSearchIndexes(handle, log, async () => {
      if (await isEmpty(handle)) await seedDemo(handle, { tickets, log });
      else await seedTickets(handle, { count: tickets, now: Date.now(), log });
    });
  // a freshly bulk-loaded PostgreSQL table has no visibility map yet (autovacuum sets it in a
  // running install), so index-only scans would still read the table
  if (handle.dialect === "pg") await handle.raw(sql`vacuum (analyze) tickets, participants, ticket_labels`);
  return handle;
}

/** On PostgreSQL, the search's GIN indexes (trigram and bigram) among pg_indexes. */
export const PG_SEARCH_INDEXES = String.raw`indexname like '%\_trgm\_idx' or indexname like '%\_bigram%\_idx'`;

/**
 * On PostgreSQL the search's trigram and bigram indexes (GIN) cost more than the rest of a bulk
 * seed together; they are dropped while seeding and built again after, in one pass each, as the
 * search bench loads its data. (SQLite's search tables follow their triggers; they are cheap.)
 */
async function withoutSearchIndexes(handle: Awaited<ReturnType<typeof openDatabase>>, log: (m: string) => void, seed: () => Promise<void>) {
  if (handle.dialect !== "pg") return seed();
  const pgDb = handle.db as unknown as { execute(query: SQL): Promise<{ rows: { indexname: string; indexdef: string }[] }> };
  const { rows } = await pgDb.execute(sql.raw(`select indexname, indexdef from pg_indexes where ${PG_SEARCH_INDEXES}`));
  for (const i of rows) await handle.raw(sql.raw(`drop index if exists ${i.indexname}`));
  try {
    await seed();
  } finally {
    for (const i of rows) await handle.raw(sql.raw(i.indexdef));
    log(`search indexes built again (${rows.length})`);
  }
}

export function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)] };
}

/** Median and p95 of `runs` calls after `warm` untimed ones (caches, JIT). */
export async function time(fn: () => Promise<unknown>, warm: number, runs: number) {
  for (let i = 0; i < warm; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return stats(xs);
}
