// Server render time of the ticket list on a large database, beside the bare query (the floor).
//   BENCH_DATA_DIR=/tmp/omnidesk-bench npm run bench:ticket-list      (SQLite, seeds 1,000,000 tickets if needed)
//   DATABASE_URL=postgres://... npm run bench:ticket-list             (PostgreSQL)
// Prints the machine, then per case the median and p95 of the whole page, of the list model and of
// the bare-SQL floor. Targets (issue 16): page median under 20 ms and p95 under 30 ms on both
// dialects; the model within 2x of the floor.
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { openDatabase, setDb } from "../db/client";
import { listTickets, parseListQuery } from "../plugins/tickets/ticket-list.server";
import { loadListPanel } from "../plugins/tickets/list-panel.server";
import { findUserByUsername } from "../app/accounts/users.server";
import { benchDataDir, benchPgUrl, openBenchDatabase, time } from "./support";

const TICKETS = Number(process.env.BENCH_TICKETS || 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 15);
const port = Number(process.env.BENCH_PORT || 3391);
const base = `http://localhost:${port}`;
const dataDir = benchDataDir;
const pgUrl = benchPgUrl;

async function ensureData() {
  await (await openBenchDatabase(TICKETS)).close();
}

// The floor: what a database expert would write for the same page with the same indexes, on a
// bare driver. The page's ids from the list index alone (a deferred join: the rows skipped by the
// offset are never read from the table), the 30 rows by id with their labels and people
// (assignees, the reader's unread flag), and the capped count (countCap in
// plugins/tickets/ticket-list.server.ts). SQLite runs in-process, so separate statements cost
// nothing more; on PostgreSQL every statement is a round trip, so the rows and their labels and
// people are one statement (JSON aggregates), sent beside the count.
type Bare = (sql: string) => Promise<Record<string, unknown>[]>;
const TICKETS_OF_KIND = `kind = 'ticket'`;
const LABEL_1 = `exists (select 1 from ticket_labels tl where tl.ticket_id = tickets.id and tl.label_id = 1)`;
const COLUMNS = `id, ticket_number, title, channel, kind, status, severity, last_message, updated_at, responded`;
const ORDER = `order by updated_at desc, id desc`;

const pageIds = (where: string, limit: number, offset: number) => `select id from tickets where ${where} ${ORDER} limit ${limit} offset ${offset}`;

/** Rows and their decorations for the ids a subquery (or list) names. */
async function bareRowsDecorated(bare: Bare, ids: string, dialect: "sqlite" | "pg") {
  if (dialect === "pg")
    return bare(
      `select ${COLUMNS.split(", ")
        .map((c) => `t.${c}`)
        .join(", ")},
        (select json_agg(json_build_array(tl.label_id, l.name, l.color) order by tl.label_id) from ticket_labels tl left join labels l on l.id = tl.label_id where tl.ticket_id = t.id) as labels,
        (select json_agg(json_build_array(p.user_id, p.assignee, p.unread, u.username, u.name) order by p.added_at, p.user_id) from participants p join users u on u.id = p.user_id where p.ticket_id = t.id) as people
       from tickets t where t.id in (${ids}) ${ORDER}`,
    );
  const rows = await bare(`select ${COLUMNS} from tickets where id in (${ids}) ${ORDER}`);
  if (rows.length === 0) return rows;
  const list = rows.map((r) => Number(r.id)).join(",");
  await bare(
    `select tl.ticket_id, tl.label_id, l.name, l.color from ticket_labels tl left join labels l on l.id = tl.label_id where tl.ticket_id in (${list}) order by tl.label_id`,
  );
  await bare(
    `select p.ticket_id, p.user_id, p.assignee, p.unread, u.username, u.name from participants p join users u on u.id = p.user_id where p.ticket_id in (${list}) order by p.added_at, p.user_id`,
  );
  return rows;
}

async function barePage(bare: Bare, dialect: "sqlite" | "pg", where: string, page: number) {
  const cap = Math.max(1_000, (page + 10) * 30);
  await Promise.all([
    bareRowsDecorated(bare, pageIds(where, 30, (page - 1) * 30), dialect),
    bare(`select count(*) from (select 1 from tickets where ${where} limit ${cap + 1}) as capped`),
  ]);
}

const FLOOR: Record<string, (bare: Bare, dialect: "sqlite" | "pg") => Promise<unknown>> = {
  "all, page 1": (bare, d) => barePage(bare, d, TICKETS_OF_KIND, 1),
  "open, page 1": (bare, d) => barePage(bare, d, `${TICKETS_OF_KIND} and status = 0`, 1),
  "open, page 1000": (bare, d) => barePage(bare, d, `${TICKETS_OF_KIND} and status = 0`, 1000),
  "all, label 1": (bare, d) => barePage(bare, d, `${TICKETS_OF_KIND} and ${LABEL_1}`, 1),
  // the tab's choices, then one group per department: 10 open tickets (+1 to know if there is
  // more), no count
  "department tab": async (bare, d) => {
    const [departments] = await Promise.all([
      bare(`select id, name from departments order by name`),
      bare(`select id, name, color from labels order by name`),
      bare(`select id, username, name from users order by name`),
    ]);
    const groups = departments.map(
      (dep) => `select * from (${pageIds(`${TICKETS_OF_KIND} and status = 0 and department_id = ${Number(dep.id)}`, 11, 0)}) g${Number(dep.id)}`,
    );
    if (groups.length) await bareRowsDecorated(bare, groups.join(" union all "), d);
  },
};
const PAGES: Record<string, string> = {
  "all, page 1": "/?status=4",
  "open, page 1": "/",
  "open, page 1000": "/?page=1000",
  "all, label 1": "/?status=4&label=1",
  "department tab": "/?tab=department",
};

async function main() {
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model ?? "unknown cpu"} x ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB memory, load ${os.loadavg()[0].toFixed(2)}, node ${process.version}`,
  );
  console.log(`ticket list bench on ${pgUrl ? "PostgreSQL" : `SQLite in ${dataDir}`}, ${TICKETS.toLocaleString()} tickets, ${RUNS} runs per case`);
  await ensureData();
  const server = startServer({
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: pgUrl ?? "",
    SESSION_SECRET: "bench",
    NODE_ENV: "production",
    BASE_URL: base,
    SEED_PASSWORD: process.env.SEED_PASSWORD || "bench-password",
  });
  try {
    await waitHealthy(base, 120_000);
    const lng = `lng=${Buffer.from(JSON.stringify("en")).toString("base64")}`;
    const login = await fetch(`${base}/?index`, {
      method: "POST",
      body: new URLSearchParams({ intent: "login", username: "admin", password: process.env.SEED_PASSWORD || "demo1234", type: "admin" }),
      redirect: "manual",
    });
    const cookie = `${login.headers.get("set-cookie")!.split(";")[0]}; ${lng}`;
    if (login.status !== 302) throw new Error(`login failed (${login.status}); set SEED_PASSWORD to the bench database's password`);

    const sqlite = pgUrl ? undefined : new Database(path.join(dataDir, "omnidesk.sqlite"), { readonly: true });
    const pool = pgUrl ? new pg.Pool({ connectionString: pgUrl, max: 2 }) : undefined;
    // statements compiled once per text, as the app's SQLite client does (db/client.ts)
    const compiled = new Map<string, Database.Statement>();
    const prepared = (sql: string) => compiled.get(sql) ?? compiled.set(sql, sqlite!.prepare(sql)).get(sql)!;
    const bare: Bare = async (sql) => (sqlite ? (prepared(sql).all() as Record<string, unknown>[]) : (await pool!.query(sql)).rows);

    // model: listTickets()/loadListPanel() in this process, the list's own code on the same database
    const modelDb = openDatabase(pgUrl ?? path.join(dataDir, "omnidesk.sqlite"));
    setDb(modelDb);
    const admin = (await findUserByUsername("admin"))!;
    // page: the whole HTML document (shell, navigation, list, React render); data: the list
    // loader's JSON alone (Remix data request), i.e. the list's server work without rendering
    const col = (label: string) => `${label} median`.padStart(14) + " " + "p95".padStart(7);
    console.log(`${"case".padEnd(18)} ${col("page")} ${col("data")} ${col("model")} ${col("floor")} ${"model/floor".padStart(11)}`);
    for (const [name, url] of Object.entries(PAGES)) {
      const page = await time(
        async () => {
          const res = await fetch(base + url, { headers: { cookie } });
          if (!res.ok) throw new Error(`${url}: ${res.status}`);
          await res.text();
        },
        5,
        RUNS,
      );
      // the list panel's loader JSON alone (the tickets plugin's frame route)
      const data = await time(
        async () => {
          const res = await fetch(`${base}${url}${url.includes("?") ? "&" : "?"}_data=frame`, { headers: { cookie } });
          if (!res.ok) throw new Error(`${url} data: ${res.status}`);
          await res.text();
        },
        5,
        RUNS,
      );
      const params = new URL(base + url).searchParams;
      const model = await time(
        async () => {
          if (params.get("tab")) await loadListPanel(admin, new URL(base + url), "UTC");
          else await listTickets(admin, "ticket", parseListQuery(params), { timeZone: "UTC" });
        },
        5,
        RUNS,
      );
      const floor = await time(() => FLOOR[name](bare, pgUrl ? "pg" : "sqlite"), 5, RUNS);
      const ms = (x: { median: number; p95: number }) => `${x.median.toFixed(1).padStart(11)} ms ${x.p95.toFixed(1).padStart(4)} ms`;
      console.log(`${name.padEnd(18)} ${ms(page)} ${ms(data)} ${ms(model)} ${ms(floor)} ${(model.median / floor.median).toFixed(1).padStart(10)}x`);
    }
    sqlite?.close();
    await pool?.end();
    await modelDb.close();
  } finally {
    await stopServer(server);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
