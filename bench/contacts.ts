// Contacts at scale: the contacts list (/contacts: newest first, a later page, searches by name,
// email and phone), a contact's page data (/contacts/{uid}) and the contact match (the identity
// lookup that links a conversation to its contact, and that /contacts/{email} resolves by), as
// p50/p95 of the plugin's own models, on SQLite and on PostgreSQL; and the global search's contact
// hits (quickFindContacts: indexes only).
//   npm run bench:contacts
//   BENCH_CONTACTS=1000000 (default), BENCH_RUNS=20, BENCH_WARM=3, BENCH_DIALECTS=sqlite,pg, BENCH_ONLY (a label's part),
//   BENCH_DATA_DIR (SQLite file), BENCH_PG_URL (else postgres://postgres@127.0.0.1:5432/omnidesk_bench_contacts)
// The contacts (each with an email and a phone) are bulk-loaded once per size and reused by later runs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import pg from "pg";
import { openDatabase, setDb, type DbHandle } from "../db/client";
import { seedDemo } from "../app/seed/seed";
import { benchDataDir, time } from "./support";

const CONTACTS = Number(process.env.BENCH_CONTACTS || 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 20);
const WARM = Number(process.env.BENCH_WARM || 3);
const DIALECTS = (process.env.BENCH_DIALECTS || "sqlite,pg").split(",");
const PG_URL = process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/omnidesk_bench_contacts";
const NOW = Date.UTC(2026, 0, 1);
/** Only the measurements whose label contains this (BENCH_ONLY="global search"). */
const ONLY = process.env.BENCH_ONLY || "";
const BATCH = 10_000;

const FIRST = ["Aisha", "Ben", "Chen", "Dewi", "Eko", "Farah", "Gopal", "Hana", "Ivan", "Jia", "Kavitha", "Lina", "Musa", "Nurul", "Omar", "Priya"];
const LAST = ["Lee", "Tan", "Wong", "Rahman", "Kumar", "Sato", "Kim", "Lim", "Ng", "Ong", "Abdullah", "Raj", "Yusof", "Chua", "Goh", "Ismail"];
const CJK = ["王芳", "李娜", "張偉", "佐藤花子", "김민준"];
// one contact in 100,000 has a rare name, so a rare-name search has ~10 hits at a million; one in
// 1,000 a Chinese, Japanese or Korean one (王芳: ~200 at a million)
const nameOf = (i: number) =>
  i % 100_000 === 7
    ? `Zubaidah Quek ${i}`
    : i % 1000 === 3
      ? CJK[Math.floor(i / 1000) % CJK.length]!
      : `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
const contact = (i: number) => ({
  uid: `b${i.toString(36).padStart(15, "0")}`,
  name: nameOf(i),
  email: `customer${i}@mail${i % 97}.example.com`,
  phone: `+6012${String(i).padStart(7, "0")}`,
  at: NOW - (CONTACTS - i) * 1000,
});

async function loadSqlite(file: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const handle = openDatabase(file);
  await handle.migrate();
  await seedDemo(handle, { tickets: 0, now: NOW });
  await handle.close();
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  db.pragma("foreign_keys = OFF");
  const c = db.prepare(`INSERT INTO contacts (id, uid, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const ci = db.prepare(`INSERT INTO contact_identities (contact_id, kind, value) VALUES (?, ?, ?)`);
  const base = (db.prepare(`SELECT coalesce(max(id), 0) AS n FROM contacts`).get() as { n: number }).n;
  const started = performance.now();
  for (let from = 1; from <= CONTACTS; from += BATCH) {
    db.transaction(() => {
      for (let i = from; i < Math.min(CONTACTS + 1, from + BATCH); i++) {
        const x = contact(i);
        // identities first (this connection does not enforce foreign keys): the contact's insert
        // trigger then writes its search text once, with them
        ci.run(base + i, "email", x.email);
        ci.run(base + i, "phone", x.phone);
        c.run(base + i, x.uid, x.name, x.name.toLowerCase(), x.at, x.at);
      }
    })();
  }
  db.exec("ANALYZE");
  db.close();
  return performance.now() - started;
}

async function loadPg(url: string) {
  const u = new URL(url);
  const name = u.pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: "/postgres" }).toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const handle = openDatabase(url);
  await handle.migrate();
  await seedDemo(handle, { tickets: 0, now: NOW });
  await handle.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ n: string }>(`SELECT coalesce(max(id), 0) AS n FROM contacts`);
  const base = Number(rows[0].n);
  const started = performance.now();
  // the search text is written once at the end, not by the triggers per row
  await client.query(`SET session_replication_role = replica`);
  for (let from = 1; from <= CONTACTS; from += BATCH) {
    const ids: number[] = [],
      uids: string[] = [],
      names: string[] = [],
      keys: string[] = [],
      ats: number[] = [];
    const cids: number[] = [],
      kinds: string[] = [],
      values: string[] = [];
    for (let i = from; i < Math.min(CONTACTS + 1, from + BATCH); i++) {
      const x = contact(i);
      (ids.push(base + i), uids.push(x.uid), names.push(x.name), keys.push(x.name.toLowerCase()), ats.push(x.at));
      (cids.push(base + i, base + i), kinds.push("email", "phone"), values.push(x.email, x.phone));
    }
    await client.query(
      `INSERT INTO contacts (id, uid, name, name_key, created_at, updated_at) SELECT * , c FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS u(i, u, n, k, c)`,
      [ids, uids, names, keys, ats],
    );
    await client.query(`INSERT INTO contact_identities (contact_id, kind, value) SELECT * FROM unnest($1::int[], $2::text[], $3::text[])`, [
      cids,
      kinds,
      values,
    ]);
  }
  await client.query(`SET session_replication_role = origin`);
  await client.query(`INSERT INTO contact_search (contact_id, body)
    SELECT c.id, c.name || E'\n' || coalesce(string_agg(i.value, E'\n') FILTER (WHERE i.kind = 'email'), '') || E'\n' || coalesce(string_agg(i.value, E'\n') FILTER (WHERE i.kind = 'phone'), '')
    FROM contacts c LEFT JOIN contact_identities i ON i.contact_id = c.id WHERE c.id > ${base} GROUP BY c.id, c.name
    ON CONFLICT (contact_id) DO UPDATE SET body = EXCLUDED.body`);
  await client.query(`SELECT setval(pg_get_serial_sequence('contacts', 'id'), (SELECT max(id) FROM contacts))`);
  await client.query(`VACUUM (ANALYZE) contacts, contact_identities, contact_search`);
  await client.end();
  return performance.now() - started;
}

async function counted(handle: DbHandle) {
  try {
    const { sql } = await import("drizzle-orm");
    const [row] = await handle.db.select({ n: sql<number>`count(*)` }).from(handle.schema.contacts);
    return Number(row.n);
  } catch {
    return 0;
  }
}

async function prepare(dialect: string): Promise<{ handle: DbHandle; load?: number }> {
  const target = dialect === "pg" ? PG_URL : path.join(benchDataDir, `contacts-${CONTACTS}.sqlite`);
  if (dialect === "sqlite" && fs.existsSync(target)) {
    const handle = openDatabase(target);
    // a database loaded before a migration gets it (contact_search fills from the contacts)
    if ((await counted(handle)) >= CONTACTS) return (await handle.migrate(), { handle });
    await handle.close();
  }
  if (dialect === "pg") {
    const handle = openDatabase(target);
    const n = await counted(handle).catch(() => 0);
    if (n >= CONTACTS) return (await handle.migrate(), { handle });
    await handle.close();
  }
  const load = dialect === "pg" ? await loadPg(target) : await loadSqlite(target);
  return { handle: openDatabase(target), load };
}

async function main() {
  const cpus = os.cpus();
  console.log(
    `contacts bench: ${CONTACTS.toLocaleString()} contacts (each an email and a phone), ${RUNS} runs after ${WARM} warm-up; machine: ${cpus[0]?.model} x ${cpus.length}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  for (const dialect of DIALECTS) {
    const { handle, load } = await prepare(dialect);
    setDb(handle);
    if (load !== undefined)
      console.log(`\n${dialect}: bulk load ${(load / 1000).toFixed(0)} s (${Math.round(CONTACTS / (load / 1000)).toLocaleString()} contacts/s)`);
    else console.log(`\n${dialect}: data reused`);
    const { listContacts, contactByUid, uidByIdentity, quickFindContacts } = await import("../plugins/contacts/contacts.server");
    const mid = Math.floor(CONTACTS / 2);
    const x = contact(mid);
    const cases: [string, () => Promise<unknown>][] = [
      ["list: first page (newest 20)", () => listContacts({})],
      ["list: page 50", () => listContacts({ page: 50 })],
      ["search: common name (Tan)", () => listContacts({ q: "tan" })],
      ["search: common name, page 50 (Tan)", () => listContacts({ q: "tan", page: 50 })],
      ["search: word inside a name (Rahman)", () => listContacts({ q: "rahman" })],
      ["search: rare word inside a name (Quek)", () => listContacts({ q: "quek" })],
      ["search: every email (.com)", () => listContacts({ q: ".com" })],
      ["search: 2 characters (ek)", () => listContacts({ q: "ek" })],
      ["search: 1 character (z)", () => listContacts({ q: "z" })],
      ["search: CJK, 2 characters (王芳)", () => listContacts({ q: "王芳" })],
      ["search: email's beginning", () => listContacts({ q: x.email.slice(0, 12) })],
      ["search: rare name (Zubaidah)", () => listContacts({ q: "zubaidah" })],
      ["search: no match (Qwxzvy)", () => listContacts({ q: "qwxzvy" })],
      ["search: whole email", () => listContacts({ q: x.email })],
      ["search: local phone (012...)", () => listContacts({ q: `012${x.phone.slice(5)}` })],
      ["global search: name start (Aisha)", () => quickFindContacts("aisha", 6)],
      ["global search: name start (Zubaidah)", () => quickFindContacts("zubaidah", 6)],
      ["global search: no match (Qwxzvy)", () => quickFindContacts("qwxzvy", 6)],
      ["global search: email start", () => quickFindContacts(x.email.slice(0, 12), 6)],
      ["global search: local phone", () => quickFindContacts(`012${x.phone.slice(5)}`, 6)],
      ["match: email -> contact", () => uidByIdentity(x.email)],
      ["match: phone -> contact", () => uidByIdentity(x.phone)],
      ["/contacts/{uid} data", () => contactByUid(x.uid)],
    ];
    for (const [label, fn] of cases.filter(([label]) => !ONLY || label.includes(ONLY))) {
      const check = await fn();
      const hits = (check as { contacts?: unknown[] } | undefined)?.contacts?.length;
      const s = await time(fn, WARM, RUNS);
      console.log(
        `  ${label.padEnd(38)} p50 ${s.median.toFixed(1).padStart(8)} ms   p95 ${s.p95.toFixed(1).padStart(8)} ms${hits !== undefined ? `   (${hits} shown)` : check ? "   (found)" : "   (none)"}`,
      );
    }
    await handle.close();
  }
}

await main();
