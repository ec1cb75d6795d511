// Search at scale: index build time and size, then p50/p95 of the search model for a common word,
// a rare word, a word found nowhere, and Chinese/Japanese words, as an agent (not admin, so the
// access check runs in every query), on SQLite and on PostgreSQL.
//   npm run bench:search
//   BENCH_TICKETS=1000000 BENCH_MESSAGES=10000000 (defaults), BENCH_RUNS=20,
//   BENCH_DIALECTS=sqlite,pg, BENCH_WORDS=invoice,qwxzvy (a subset), BENCH_DATA_DIR (SQLite file), BENCH_PG_URL (else DATABASE_URL, else local)
//   BENCH_MODEL=plugins/tickets/other.server.ts  runs another search model on the same data (before/after)
// The data is generated once per size (a fast bulk load with the search index dropped, then the
// index built as the migration builds it) and reused by later runs of the same size.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import pg from "pg";
import { openDatabase, setDb, type DbHandle } from "../db/client";
import { seedDemo } from "../app/seed/seed";
import { findUserByUsername } from "../app/accounts/users.server";
import { stats, benchDataDir, PG_SEARCH_INDEXES } from "./support";

const TICKETS = Number(process.env.BENCH_TICKETS || 1_000_000);
const MESSAGES = Number(process.env.BENCH_MESSAGES || 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 20);
const WARM = Number(process.env.BENCH_WARM || 3);
const DIALECTS = (process.env.BENCH_DIALECTS || "sqlite,pg").split(",");
const SIZE = `${TICKETS}/${MESSAGES}`;
const PG_URL =
  process.env.BENCH_PG_URL ||
  (process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : "postgres://postgres@127.0.0.1:5432/omnidesk_bench_search");

const WORDS: [string, string][] = [
  ["common word", "invoice"],
  ["rare word", "zebracorn"],
  ["no match", "qwxzvy"],
  ["CJK 2 chars", "退款"],
  ["CJK 4 chars", "払い戻し"],
  ["Korean", "환불"],
];

// ---- data --------------------------------------------------------------------------------------

function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(16);
const SYLLABLES = ["ka", "lo", "mi", "ra", "to", "ne", "su", "vi", "de", "po", "ar", "en", "il", "or", "us", "ba", "ce", "fu", "ga", "hi"];
const FILLER = Array.from({ length: 3000 }, (_, i) => {
  let w = "";
  for (let n = i, k = 0; k < 2 + (i % 3); k++, n = Math.floor(n / SYLLABLES.length) + k * 7) w += SYLLABLES[n % SYLLABLES.length];
  return w;
});
const CJK = [
  "您好，我想申请退款，订单号是",
  "请问什么时候发货？谢谢",
  "注文した商品の払い戻しをお願いします",
  "配送状況を教えてください",
  "환불 요청합니다 주문 번호",
  "배송이 언제 되나요",
];
const TOPICS = ["Order status", "Invoice question", "Delivery delay", "Account access", "Refund request", "Product question", "退款问题", "配送について"];
const FIRST = ["Aisha", "Ben", "Chen", "Dewi", "Eko", "Farah", "Gopal", "Hana", "Ivan", "Jia"];
const LAST = ["Lee", "Tan", "Wong", "Rahman", "Kumar", "Sato", "Kim", "Lim", "Ng", "Ong"];
const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
// Zipf-like filler: low indexes far more often
const filler = () => FILLER[Math.floor(FILLER.length * rand() ** 3)]!;

function body(i: number) {
  if (rand() < 0.1) return `${pick(CJK)} ${1000 + (i % 9000)}`;
  const words: string[] = [];
  const n = 8 + Math.floor(rand() * 7);
  for (let k = 0; k < n; k++) words.push(filler());
  if (rand() < 0.25) words.splice(Math.floor(rand() * n), 0, "invoice");
  if (i % 20_000 === 7) words.splice(1, 0, "zebracorn");
  return words.join(" ");
}

const NOW = Date.UTC(2026, 10, 1);
function ticket(id: number) {
  const contact = `${pick(FIRST)} ${pick(LAST)}`;
  const title = `${pick(TOPICS)} ${id % 17 === 0 ? filler() : ""}`.trim();
  const createdAt = NOW - (TICKETS - id) * 60_000;
  return {
    id,
    number: 100000 + id,
    title,
    channel: id % 2 ? "EMAIL" : "WHATSAPP",
    departmentId: 1 + (id % 3),
    contactName: contact,
    contactEmail: `${contact.toLowerCase().replace(/ /g, ".")}${id % 1000}@example.com`,
    contactPhone: `+60 12 ${String(id).padStart(7, "0")}`,
    createdAt,
  };
}
/** Messages per ticket spread evenly: message i belongs to ticket ticketOf(i). */
const ticketOf = (i: number) => 1 + Math.floor(((i - 1) * TICKETS) / MESSAGES);

async function loadSqlite(file: string): Promise<{ build: number; size: number }> {
  const handle = openDatabase(file);
  await handle.migrate();
  await seedDemo(handle, { tickets: 0, now: NOW });
  await handle.close();
  const db = new Database(file);
  db.pragma("synchronous = OFF");
  const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%search%'`).all() as { name: string; sql: string }[];
  for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
  const insTicket = db.prepare(
    `INSERT INTO tickets (id, ticket_number, title, channel, kind, status, department_id, contact_name, contact_email, contact_phone, last_message, created_at, updated_at) VALUES (?, ?, ?, ?, 'ticket', ?, ?, ?, ?, ?, '', ?, ?)`,
  );
  const insMessage = db.prepare(`INSERT INTO messages (id, ticket_id, type, body, sender_user_id, sender_name, created_at) VALUES (?, ?, 'text', ?, ?, ?, ?)`);
  const insPart = db.prepare(`INSERT INTO participants (ticket_id, user_id, assignee, added_at) VALUES (?, 2, 1, ?)`);
  const started = performance.now();
  const chunk = db.transaction((from: number, to: number) => {
    for (let id = from; id <= to; id++) {
      const t = ticket(id);
      insTicket.run(t.id, t.number, t.title, t.channel, id % 4, t.departmentId, t.contactName, t.contactEmail, t.contactPhone, t.createdAt, t.createdAt);
      if (id % 50 === 0) insPart.run(id, t.createdAt);
    }
  });
  for (let from = 1; from <= TICKETS; from += 100_000) chunk(from, Math.min(TICKETS, from + 99_999));
  const messages = db.transaction((from: number, to: number) => {
    for (let i = from; i <= to; i++) {
      const agent = i % 2 === 0;
      insMessage.run(i, ticketOf(i), body(i), agent ? 2 : null, agent ? "" : "Customer", NOW - (MESSAGES - i) * 6_000);
    }
  });
  for (let from = 1; from <= MESSAGES; from += 200_000) {
    messages(from, Math.min(MESSAGES, from + 199_999));
    if (from % 2_000_001 === 1) console.log(`  sqlite load: ${from + 199_999} messages (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  console.log(`  sqlite load: ${TICKETS} tickets, ${MESSAGES} messages in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  // the index, built as migration 0014_search builds it, then merged
  const t0 = performance.now();
  db.exec(`INSERT INTO ticket_search (rowid, title, contact_name, contact_email, contact_phone)
    SELECT id, title || '  ', contact_name || '  ', contact_email || '  ', contact_phone || '  ' FROM tickets`);
  db.exec(`INSERT INTO message_search (rowid, body) SELECT id, body || '  ' FROM messages WHERE type NOT IN ('system', 'encrypted')`);
  db.exec(`INSERT INTO ticket_search (ticket_search) VALUES ('optimize'); INSERT INTO message_search (message_search) VALUES ('optimize')`);
  const build = performance.now() - t0;
  for (const t of triggers) db.exec(t.sql);
  db.exec(`INSERT INTO settings (key, value) VALUES ('bench_search_size', '${SIZE}')`);
  db.exec("ANALYZE");
  db.close();
  return { build, size: sqliteIndexSize(file) };
}

function sqliteIndexSize(file: string) {
  const db = new Database(file, { readonly: true });
  const row = db.prepare(`SELECT sum(pgsize) AS n FROM dbstat WHERE name LIKE 'ticket_search%' OR name LIKE 'message_search%'`).get() as { n: number };
  db.close();
  return row.n;
}

async function loadPg(url: string): Promise<{ build: number; size: number }> {
  const handle = openDatabase(url);
  await handle.migrate();
  await seedDemo(handle, { tickets: 0, now: NOW });
  await handle.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE ${PG_SEARCH_INDEXES}`,
  );
  for (const i of indexes) await client.query(`DROP INDEX ${i.indexname}`);
  const started = performance.now();
  for (let from = 1; from <= TICKETS; from += 10_000) {
    const cols: unknown[][] = Array.from({ length: 11 }, () => []);
    for (let id = from; id < Math.min(TICKETS + 1, from + 10_000); id++) {
      const t = ticket(id);
      [t.id, t.number, t.title, t.channel, id % 4, t.departmentId, t.contactName, t.contactEmail, t.contactPhone, t.createdAt, t.createdAt].forEach((v, k) =>
        cols[k]!.push(v),
      );
    }
    await client.query(
      `INSERT INTO tickets (id, ticket_number, title, channel, kind, status, department_id, contact_name, contact_email, contact_phone, last_message, created_at, updated_at)
       SELECT a, b, c, d, 'ticket', e, f, g, h, i, '', j, k FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[]) AS x(a, b, c, d, e, f, g, h, i, j, k)`,
      cols,
    );
  }
  await client.query(`INSERT INTO participants (ticket_id, user_id, assignee, added_at) SELECT id, 2, true, created_at FROM tickets WHERE id % 50 = 0`);
  for (let from = 1; from <= MESSAGES; from += 20_000) {
    const cols: unknown[][] = Array.from({ length: 6 }, () => []);
    for (let i = from; i < Math.min(MESSAGES + 1, from + 20_000); i++) {
      const agent = i % 2 === 0;
      [i, ticketOf(i), body(i), agent ? 2 : null, agent ? "" : "Customer", NOW - (MESSAGES - i) * 6_000].forEach((v, k) => cols[k]!.push(v));
    }
    await client.query(
      `INSERT INTO messages (id, ticket_id, type, body, sender_user_id, sender_name, created_at)
       SELECT a, b, 'text', c, d, e, f FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::text[], $6::bigint[]) AS x(a, b, c, d, e, f)`,
      cols,
    );
    if ((from - 1) % 2_000_000 === 0) console.log(`  pg load: ${from - 1} messages (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  for (const table of ["tickets", "messages"]) await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`);
  console.log(`  pg load: ${TICKETS} tickets, ${MESSAGES} messages in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const t0 = performance.now();
  await client.query(`SET maintenance_work_mem = '1GB'`);
  for (const i of indexes) await client.query(i.indexdef);
  const build = performance.now() - t0;
  await client.query(`INSERT INTO settings (key, value) VALUES ('bench_search_size', '${SIZE}')`);
  await client.query("ANALYZE");
  await client.end();
  return { build, size: await pgIndexSize(url) };
}

async function pgIndexSize(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query(`SELECT coalesce(sum(pg_relation_size(indexname::regclass)), 0) AS n FROM pg_indexes WHERE ${PG_SEARCH_INDEXES}`);
  await client.end();
  return Number(rows[0].n);
}

async function sizeOf(handle: DbHandle) {
  try {
    const s = handle.schema.settings;
    const rows = await handle.db.select().from(s);
    return rows.find((r) => r.key === "bench_search_size")?.value;
  } catch {
    return undefined;
  }
}

/** The bench database of this size: reused when it exists, else generated. Build figures when generated. */
async function prepare(dialect: string): Promise<{ url: string; build?: { build: number; size: number } }> {
  if (dialect === "sqlite") {
    const dir = path.join(benchDataDir, "search");
    const file = path.join(dir, `search-${TICKETS}-${MESSAGES}.sqlite`);
    if (fs.existsSync(file)) {
      const handle = openDatabase(file);
      const size = await sizeOf(handle);
      await handle.close();
      if (size === SIZE) return { url: file };
    }
    fs.mkdirSync(dir, { recursive: true });
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    return { url: file, build: await loadSqlite(file) };
  }
  const url = new URL(PG_URL);
  const name = url.pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(PG_URL), { pathname: "/postgres" }).toString() });
  await admin.connect();
  const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount;
  if (exists) {
    const handle = openDatabase(PG_URL);
    const size = await sizeOf(handle);
    await handle.close();
    if (size === SIZE) {
      await admin.end();
      return { url: PG_URL };
    }
    await admin.query(`DROP DATABASE ${name}`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return { url: PG_URL, build: await loadPg(PG_URL) };
}

// ---- timing ------------------------------------------------------------------------------------

async function main() {
  const cpus = os.cpus();
  console.log(
    `search bench: ${TICKETS.toLocaleString()} tickets, ${MESSAGES.toLocaleString()} messages, ${RUNS} runs per word; machine: ${cpus[0]?.model} x ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const model = process.env.BENCH_MODEL ? path.resolve(process.env.BENCH_MODEL) : "../plugins/tickets/search.server";
  const { search, parseSearch } = (await import(model)) as typeof import("../plugins/tickets/search.server");
  console.log(`model: ${process.env.BENCH_MODEL || "plugins/tickets/search.server.ts"}`);
  for (const dialect of DIALECTS) {
    const { url, build } = await prepare(dialect);
    if (build) console.log(`${dialect}: index build ${(build.build / 1000).toFixed(1)} s, index size ${(build.size / 2 ** 20).toFixed(0)} MB`);
    else
      console.log(
        `${dialect}: reusing the generated database (index size ${((dialect === "pg" ? await pgIndexSize(url) : sqliteIndexSize(url)) / 2 ** 20).toFixed(0)} MB)`,
      );
    const handle = openDatabase(url);
    setDb(handle);
    const agent = (await findUserByUsername("agent"))!;
    console.log(`${"word".padEnd(14)} ${"query".padEnd(10)} ${"p50".padStart(9)} ${"p95".padStart(9)}  hits (conversations / messages, capped at 1000)`);
    const only = process.env.BENCH_WORDS?.split(",");
    for (const [label, word] of WORDS.filter(([, w]) => !only || only.includes(w))) {
      const tokens = parseSearch(word);
      let last = await search(agent, tokens);
      for (let i = 1; i < WARM; i++) last = await search(agent, tokens);
      const xs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        last = await search(agent, tokens);
        xs.push(performance.now() - t0);
      }
      const s = stats(xs);
      console.log(
        `${label.padEnd(14)} ${word.padEnd(10)} ${s.median!.toFixed(1).padStart(6)} ms ${s.p95!.toFixed(1).padStart(6)} ms  ${last.postCount}${last.postCountCapped ? "+" : ""} / ${last.messageCount}${last.messageCountCapped ? "+" : ""}`,
      );
    }
    setDb(undefined);
    await handle.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
