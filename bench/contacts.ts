// Contacts at scale: the contacts list (/contacts: newest first, a later page, searches by name,
// email and phone), a contact's page data (/contacts/{uid}) and the contact match (the identity
// lookup that links a conversation to its contact, and that /contacts/{email} resolves by), as
// p50/p95 of the plugin's own models, on SQLite and on PostgreSQL; and the global search's contact
// hits (quickFindContacts: indexes only).
// Then the contacts' linked conversations (5 per contact by default: 5,000,000 at a million): the
// whole /contacts/{uid} loader's reads, its timeline (first and deep pages, as admin and as an
// agent who reads only some), the profile modal's activity, the merge preview's count and
// /calendar/{contact}, for an ordinary contact (~5 conversations) and for one with 1 in 50 of
// them all (100,000 at 5,000,000). Last, a CSV import of 100,000 new contacts into that database:
// the dry run and the import timed, rows per second, the process's peak RSS while it ran, and the
// same file again (it must add nothing); the imported contacts are deleted after, so runs compare.
//   npm run bench:contacts
//   BENCH_CONTACTS=1000000 (default), BENCH_CONVERSATIONS (default 5 a contact), BENCH_IMPORT_ROWS=100000 (0: none),
//   BENCH_RUNS=20, BENCH_WARM=3, BENCH_DIALECTS=sqlite,pg, BENCH_ONLY (a label's part),
//   BENCH_DATA_DIR (SQLite file), BENCH_PG_URL (else postgres://postgres@127.0.0.1:5432/omnidesk_bench_contacts)
// The contacts (each with an email and a phone) and the conversations are bulk-loaded once per size
// and reused by later runs (the conversations are loaded on top of contacts loaded before).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import pg from "pg";
import { openDatabase, setDb, type DbHandle } from "../db/client";
import { seedDemo } from "../app/seed/seed";
import { kindOf } from "../app/conversation/channels";
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
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS || CONTACTS * 5);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
/** Every 50th conversation is the heavy contact's (a company inbox, a frequent writer). */
const HEAVY_EVERY = 50;
const HEAVY = 5;
/** The demo agent (department 2): reads a conversation by taking part (1 in 4) or by its department (1 in 3). */
const AGENT_ID = 2;
const CONV_CHANNELS = ["EMAIL", "WHATSAPP", "LIVECHAT", "FB_PM", "LINE_DM", "TELEGRAM", "CALL"];

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

/** Conversation j (1-based) of the bench: its contact (by index) and its ticket's columns. */
const conversation = (j: number) => {
  const who = j % HEAVY_EVERY === 0 ? HEAVY : 1 + ((j * 7919) % CONTACTS);
  const x = contact(who);
  const channel = CONV_CHANNELS[j % CONV_CHANNELS.length]!;
  const createdAt = NOW - (CONVERSATIONS - j) * 30_000;
  return {
    who,
    title: `Order question #${j}`,
    channel,
    kind: kindOf(channel),
    status: j % 4,
    departmentId: 1 + (j % 3),
    name: x.name,
    email: channel === "EMAIL" || channel === "LIVECHAT" ? x.email : "",
    phone: channel === "WHATSAPP" || channel === "CALL" ? x.phone : "",
    lastMessage: "Thank you, that helps.",
    createdAt,
    updatedAt: createdAt + (j % 7) * 3_600_000,
    agent: j % 4 === 0,
  };
};

/** The id before the bench's first contact (the bench's contact i is id base + i). */
async function contactBase(query: (sql: string, params: unknown[]) => Promise<{ id: number }[]>) {
  const [row] = await query(`SELECT id FROM contacts WHERE uid = $1`, [contact(1).uid]);
  if (!row) throw new Error("the bench's contacts are missing");
  return Number(row.id) - 1;
}

/** Loads the conversations after the contacts (SQLite); the tickets' search triggers are off meanwhile (their search index is not what this bench reads). */
function loadConversationsSqlite(file: string) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  db.pragma("foreign_keys = OFF");
  db.pragma("cache_size = -400000");
  const base = (db.prepare(`SELECT id FROM contacts WHERE uid = ?`).get(contact(1).uid) as { id: number }).id - 1;
  const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'tickets'`).all() as { name: string; sql: string }[];
  for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
  const { maxId, maxNumber } = db.prepare(`SELECT coalesce(max(id), 0) AS maxId, coalesce(max(ticket_number), 0) AS maxNumber FROM tickets`).get() as {
    maxId: number;
    maxNumber: number;
  };
  const t = db.prepare(
    `INSERT INTO tickets (id, ticket_number, title, channel, kind, status, department_id, contact_name, contact_email, contact_phone, last_message, responded, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
  );
  const p = db.prepare(`INSERT INTO participants (ticket_id, user_id, assignee, last_read_at, unread, kind, added_at) VALUES (?, ?, 1, ?, 0, ?, ?)`);
  const ct = db.prepare(`INSERT INTO contact_tickets (ticket_id, contact_id) VALUES (?, ?)`);
  const started = performance.now();
  try {
    for (let from = 1; from <= CONVERSATIONS; from += BATCH) {
      db.transaction(() => {
        for (let j = from; j < Math.min(CONVERSATIONS + 1, from + BATCH); j++) {
          const c = conversation(j);
          const id = maxId + j;
          t.run(id, maxNumber + j, c.title, c.channel, c.kind, c.status, c.departmentId, c.name, c.email, c.phone, c.lastMessage, c.createdAt, c.updatedAt);
          if (c.agent) p.run(id, AGENT_ID, c.updatedAt, c.kind, c.createdAt);
          ct.run(id, base + c.who);
        }
      })();
      if (from % 1_000_000 === 1 && from > 1)
        console.log(`  sqlite: ${(from - 1).toLocaleString()} conversations (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  } finally {
    for (const t of triggers) db.exec(t.sql);
  }
  db.exec("ANALYZE");
  db.close();
  return performance.now() - started;
}

/** Loads the conversations after the contacts (PostgreSQL): the tickets' trigram indexes are built once at the end rather than kept row by row. */
async function loadConversationsPg(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const q = async (text: string, params: unknown[] = []) => (await client.query(text, params)).rows;
  const base = await contactBase(q as never);
  const [{ maxid, maxnumber }] = await q(`SELECT coalesce(max(id), 0)::int AS maxid, coalesce(max(ticket_number), 0)::int AS maxnumber FROM tickets`);
  const gin = (await q(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'tickets' AND indexdef LIKE '%USING gin%'`)) as {
    indexname: string;
    indexdef: string;
  }[];
  for (const i of gin) await q(`DROP INDEX "${i.indexname}"`);
  const started = performance.now();
  await q(`SET session_replication_role = replica`);
  try {
    for (let from = 1; from <= CONVERSATIONS; from += BATCH) {
      const cols: unknown[][] = Array.from({ length: 13 }, () => []);
      const part: unknown[][] = [[], [], [], []];
      const links: unknown[][] = [[], []];
      for (let j = from; j < Math.min(CONVERSATIONS + 1, from + BATCH); j++) {
        const c = conversation(j);
        const id = maxid + j;
        [id, maxnumber + j, c.title, c.channel, c.kind, c.status, c.departmentId, c.name, c.email, c.phone, c.lastMessage, c.createdAt, c.updatedAt].forEach(
          (v, k) => cols[k]!.push(v),
        );
        if (c.agent) [id, c.updatedAt, c.kind, c.createdAt].forEach((v, k) => part[k]!.push(v));
        (links[0]!.push(id), links[1]!.push(base + c.who));
      }
      await q("BEGIN");
      await q(
        `INSERT INTO tickets (id, ticket_number, title, channel, kind, status, department_id, contact_name, contact_email, contact_phone, last_message, responded, created_at, updated_at)
         SELECT i, n, ti, ch, k, st, d, cn, ce, cp, lm, true, ca, ua FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[])
           AS u(i, n, ti, ch, k, st, d, cn, ce, cp, lm, ca, ua)`,
        cols,
      );
      await q(
        `INSERT INTO participants (ticket_id, user_id, assignee, last_read_at, unread, kind, added_at)
         SELECT t, ${AGENT_ID}, true, r, false, k, a FROM unnest($1::int[], $2::bigint[], $3::text[], $4::bigint[]) AS u(t, r, k, a)`,
        part,
      );
      await q(`INSERT INTO contact_tickets (ticket_id, contact_id) SELECT * FROM unnest($1::int[], $2::int[])`, links);
      await q("COMMIT");
      if (from % 1_000_000 === 1 && from > 1)
        console.log(`  pg: ${(from - 1).toLocaleString()} conversations (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  } finally {
    await q(`SET session_replication_role = origin`);
    await q(`SET maintenance_work_mem = '512MB'`);
    for (const i of gin) await q(i.indexdef);
  }
  await q(`SELECT setval(pg_get_serial_sequence('tickets', 'id'), (SELECT max(id) FROM tickets))`);
  await q(`VACUUM (ANALYZE) tickets, participants, contact_tickets`);
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

async function linked(handle: DbHandle) {
  const { sql } = await import("drizzle-orm");
  const [row] = await handle.db.select({ n: sql<number>`count(*)` }).from(handle.schema.contactTickets);
  return Number(row.n);
}

async function prepare(dialect: string): Promise<{ handle: DbHandle; load?: number; conversationsLoad?: number }> {
  const target = dialect === "pg" ? PG_URL : path.join(benchDataDir, `contacts-${CONTACTS}.sqlite`);
  let load: number | undefined;
  let handle: DbHandle | undefined;
  if (dialect === "pg" || fs.existsSync(target)) {
    handle = openDatabase(target);
    // a database loaded before a migration gets it (contact_search fills from the contacts)
    if ((await counted(handle).catch(() => 0)) >= CONTACTS) await handle.migrate();
    else [handle] = [await handle.close()].map(() => undefined);
  }
  if (!handle) {
    load = dialect === "pg" ? await loadPg(target) : await loadSqlite(target);
    handle = openDatabase(target);
  }
  if (!CONVERSATIONS || (await linked(handle)) >= CONVERSATIONS) return { handle, load };
  await handle.close();
  const conversationsLoad = dialect === "pg" ? await loadConversationsPg(target) : loadConversationsSqlite(target);
  return { handle: openDatabase(target), load, conversationsLoad };
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
    const { handle, load, conversationsLoad } = await prepare(dialect);
    setDb(handle);
    if (load !== undefined)
      console.log(`\n${dialect}: bulk load ${(load / 1000).toFixed(0)} s (${Math.round(CONTACTS / (load / 1000)).toLocaleString()} contacts/s)`);
    else console.log(`\n${dialect}: contacts reused`);
    if (conversationsLoad !== undefined)
      console.log(
        `${dialect}: conversations bulk load ${(conversationsLoad / 1000).toFixed(0)} s (${Math.round(CONVERSATIONS / (conversationsLoad / 1000)).toLocaleString()} conversations/s)`,
      );
    else if (CONVERSATIONS) console.log(`${dialect}: conversations reused`);
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
      ...(CONVERSATIONS ? await conversationCases(handle, mid) : []),
    ];
    for (const [label, fn] of cases.filter(([label]) => !ONLY || label.includes(ONLY))) {
      const check = await fn();
      const shown = check as { contacts?: unknown[]; items?: unknown[] } | undefined;
      const hits = shown?.contacts?.length ?? shown?.items?.length;
      const s = await time(fn, WARM, RUNS);
      console.log(
        `  ${label.padEnd(50)} p50 ${s.median.toFixed(1).padStart(8)} ms   p95 ${s.p95.toFixed(1).padStart(8)} ms${hits !== undefined ? `   (${hits} shown)` : check ? "   (found)" : "   (none)"}`,
      );
    }
    if (IMPORT_ROWS && (!ONLY || "import".includes(ONLY))) await importBench(handle);
    await handle.close();
  }
}

/** The contact page's and its linked lists' reads, for an ordinary contact and the heavy one, as admin and as an agent. */
async function conversationCases(handle: DbHandle, mid: number): Promise<[string, () => Promise<unknown>][]> {
  const { contactByUid, contactActivity } = await import("../plugins/contacts/contacts.server");
  const { duplicatesOf } = await import("../plugins/contacts/duplicates.server");
  const { undoableMerges, mergePreview } = await import("../plugins/contacts/merge.server");
  const { customFields, customValues } = await import("../plugins/contacts/custom-fields.server");
  const { contactActivity: profileActivity } = await import("../app/accounts/profile.server");
  const { upcoming } = await import("../plugins/calendar/calendar.server");
  const { eq, and } = await import("drizzle-orm");
  const admin = { id: 1, type: "admin", departmentId: null } as const;
  const agent = { id: AGENT_ID, type: "agent", departmentId: 2 } as const;
  const ordinary = (await contactByUid(contact(mid).uid))!;
  const heavy = (await contactByUid(contact(HEAVY).uid))!;
  const { db, schema } = handle;
  const a = schema.appointments;
  // two upcoming appointments of each, owned by the admin: the agent sees them through the contact's conversations
  for (const c of [ordinary, heavy]) {
    const there = await db
      .select({ id: a.id })
      .from(a)
      .where(and(eq(a.contactId, c.id), eq(a.ownerId, 1)));
    const at = Date.now() + 86_400_000;
    if (!there.length)
      await db.insert(a).values(
        [0, 1].map((k) => ({
          title: `Visit ${k}`,
          contactId: c.id,
          ownerId: 1,
          startsAt: at + k * 86_400_000,
          endsAt: at + k * 86_400_000 + 3_600_000,
          createdAt: NOW,
          updatedAt: NOW,
        })),
      );
  }
  const [{ n: heavyCount }] = await db
    .select({ n: (await import("drizzle-orm")).count() })
    .from(schema.contactTickets)
    .where(eq(schema.contactTickets.contactId, heavy.id));
  console.log(`  (an ordinary contact: ${ordinary.uid}; the heavy one has ${Number(heavyCount).toLocaleString()} conversations)`);
  /** What the /contacts/{uid} loader reads, in its order. */
  const page = async (uid: string, viewer: typeof admin | typeof agent, n = 1) => {
    const c = (await contactByUid(uid))!;
    return [await contactActivity(viewer, c.id, n), await duplicatesOf(c), await undoableMerges(c.id), await customFields(), await customValues(c.id)];
  };
  const deep = Math.floor(Number(heavyCount) / 5 / 2);
  return [
    ["/contacts/{uid} loader, ordinary contact, admin", () => page(ordinary.uid, admin)],
    ["/contacts/{uid} loader, ordinary contact, agent", () => page(ordinary.uid, agent)],
    ["/contacts/{uid} loader, heavy contact, admin", () => page(heavy.uid, admin)],
    ["/contacts/{uid} loader, heavy contact, agent", () => page(heavy.uid, agent)],
    ["timeline p1, ordinary contact, agent", () => contactActivity(agent, ordinary.id, 1)],
    ["timeline p1, heavy contact, admin", () => contactActivity(admin, heavy.id, 1)],
    ["timeline p1, heavy contact, agent", () => contactActivity(agent, heavy.id, 1)],
    [`timeline p${deep}, heavy contact, admin`, () => contactActivity(admin, heavy.id, deep)],
    [`timeline p${deep}, heavy contact, agent`, () => contactActivity(agent, heavy.id, deep)],
    ["profile modal activity, heavy contact, agent", () => profileActivity(agent, { email: heavy.emails[0] }, 0)],
    ["profile modal activity, ordinary contact, agent", () => profileActivity(agent, { email: ordinary.emails[0] }, 0)],
    ["merge preview (counts), heavy into ordinary", () => mergePreview(ordinary.uid, heavy.uid)],
    ["/calendar/{contact}, heavy contact, admin", () => upcoming(admin, "Asia/Kuala_Lumpur", 1, Date.now(), heavy.id)],
    ["/calendar/{contact}, heavy contact, agent", () => upcoming(agent, "Asia/Kuala_Lumpur", 1, Date.now(), heavy.id)],
    ["/calendar/{contact}, ordinary contact, agent", () => upcoming(agent, "Asia/Kuala_Lumpur", 1, Date.now(), ordinary.id)],
  ];
}

/** A CSV of IMPORT_ROWS new contacts: its dry run, the import, the same file again; then the contacts it made are deleted. */
async function importBench(handle: DbHandle) {
  const { storeUpload, dryRun, applyImport } = await import("../plugins/contacts/csv.server");
  const { sql, gt } = await import("drizzle-orm");
  const { db, schema } = handle;
  const tag = `imp${Date.now().toString(36)}`;
  const header = "name,salutation,email,phone,id_type,id_number\n";
  const rowOf = (i: number) =>
    `${FIRST[i % FIRST.length]} ${LAST[(i >> 4) % LAST.length]} ${tag},${i % 3 ? "" : "Puan"},${tag}.${i}@import.example.com,+6019${String(i).padStart(7, "0")},,\n`;
  const file = path.join(benchDataDir, `import-${IMPORT_ROWS}.csv`);
  fs.writeFileSync(file, header + Array.from({ length: IMPORT_ROWS }, (_, i) => rowOf(i)).join(""));
  const bytes = fs.statSync(file).size;
  const [{ before }] = await db.select({ before: sql<number>`max(${schema.contacts.id})` }).from(schema.contacts);
  const countAll = async () => Number((await db.select({ n: sql<number>`count(*)` }).from(schema.contacts))[0].n);
  const startCount = await countAll();
  // the process's resident memory, sampled while each step runs
  const measured = async <T>(step: () => Promise<T>) => {
    (globalThis as { gc?: () => void }).gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const t0 = performance.now();
    const value = await step();
    const ms = performance.now() - t0;
    clearInterval(timer);
    return { value, ms, base, peak: Math.max(peak, process.memoryUsage().rss) };
  };
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  const admin = { id: 1 };
  const upload = () =>
    storeUpload(
      (async function* () {
        yield* fs.createReadStream(file);
      })(),
    );
  const check = await measured(async () => dryRun((await upload()).key, "bench.csv", admin));
  const apply = await measured(() => applyImport(check.value.importId));
  const afterFirst = await countAll();
  const check2 = await measured(async () => dryRun((await upload()).key, "bench-again.csv", admin));
  const apply2 = await measured(() => applyImport(check2.value.importId));
  const afterSecond = await countAll();
  const rate = (ms: number) => `${Math.round(IMPORT_ROWS / (ms / 1000)).toLocaleString()} rows/s`;
  console.log(`  CSV import of ${IMPORT_ROWS.toLocaleString()} rows (${mb(bytes)}), into ${startCount.toLocaleString()} contacts:`);
  console.log(
    `    dry run   ${(check.ms / 1000).toFixed(1)} s (${rate(check.ms)}), RSS ${mb(check.base)} -> peak ${mb(check.peak)}: ${check.value.good} good, ${check.value.bad} bad, ${check.value.skipped} skipped`,
  );
  console.log(
    `    import    ${(apply.ms / 1000).toFixed(1)} s (${rate(apply.ms)}), RSS ${mb(apply.base)} -> peak ${mb(apply.peak)}: ${apply.value?.imported} imported`,
  );
  console.log(
    `    again     dry run ${(check2.ms / 1000).toFixed(1)} s (${check2.value.good} good, ${check2.value.skipped} skipped), import ${(apply2.ms / 1000).toFixed(1)} s: ${apply2.value?.imported} imported; contacts ${startCount.toLocaleString()} -> ${afterFirst.toLocaleString()} -> ${afterSecond.toLocaleString()}${afterSecond === afterFirst && afterFirst - startCount === IMPORT_ROWS ? " (nothing twice)" : " (WRONG)"}`,
  );
  // back to the bench's own contacts (identities and import rows go with them)
  await db.delete(schema.contacts).where(gt(schema.contacts.id, Number(before)));
  fs.rmSync(file, { force: true });
}

await main();
