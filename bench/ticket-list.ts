// Server render time of the ticket list on a large database, beside the bare query (the floor).
//   BENCH_DATA_DIR=/tmp/omnidesk-bench npm run bench:ticket-list      (SQLite, seeds 1,000,000 tickets if needed)
//   DATABASE_URL=postgres://... npm run bench:ticket-list             (PostgreSQL)
// Prints median and p95 per case. Target: median under 50 ms and within 3x of the floor.
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";
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
const port = 3391;
const base = `http://localhost:${port}`;
const dataDir = benchDataDir;
const pgUrl = benchPgUrl;

async function ensureData() {
  await (await openBenchDatabase(TICKETS)).close();
}

// The same rows with a bare driver, as plain SQL statements: the page of 30 tickets (the columns
// a list item shows), the capped count (countCap in app/models/ticket-list.server.ts), and for
// the rows shown their labels and people (assignees, the reader's unread flag).
type Bare = (sql: string) => Promise<Record<string, unknown>[]>;
const TICKETS_OF_KIND = `kind = 'ticket'`;
const LABEL_1 = `exists (select 1 from ticket_labels tl where tl.ticket_id = tickets.id and tl.label_id = 1)`;

const bareRows = (bare: Bare, where: string, limit: number, offset: number) =>
  bare(
    `select id, ticket_number, title, channel, kind, status, severity, last_message, updated_at, responded from tickets where ${where} order by updated_at desc, id desc limit ${limit} offset ${offset}`,
  );

async function bareDecorate(bare: Bare, rows: Record<string, unknown>[]) {
  if (rows.length === 0) return;
  const ids = rows.map((r) => Number(r.id)).join(",");
  await bare(
    `select tl.ticket_id, tl.label_id, l.name, l.color, l.color_dark from ticket_labels tl left join labels l on l.id = tl.label_id where tl.ticket_id in (${ids}) order by tl.label_id`,
  );
  await bare(
    `select p.ticket_id, p.user_id, p.assignee, p.unread, u.username, u.name, u.photo from participants p join users u on u.id = p.user_id where p.ticket_id in (${ids}) order by p.added_at, p.user_id`,
  );
}

async function barePage(bare: Bare, where: string, page: number) {
  const cap = Math.max(1_000, (page + 10) * 30);
  await bareDecorate(bare, await bareRows(bare, where, 30, (page - 1) * 30));
  await bare(`select count(*) from (select 1 from tickets where ${where} limit ${cap + 1}) as capped`);
}

const FLOOR: Record<string, (bare: Bare) => Promise<unknown>> = {
  "all, page 1": (bare) => barePage(bare, TICKETS_OF_KIND, 1),
  "open, page 1": (bare) => barePage(bare, `${TICKETS_OF_KIND} and status = 0`, 1),
  "open, page 1000": (bare) => barePage(bare, `${TICKETS_OF_KIND} and status = 0`, 1000),
  "all, label 1": (bare) => barePage(bare, `${TICKETS_OF_KIND} and ${LABEL_1}`, 1),
  // the tab's choices, then one group per department: 10 open tickets (+1 to know if there is
  // more), no count
  "department tab": async (bare) => {
    const departments = await bare(`select id, name from departments order by name`);
    await bare(`select id, name, color from labels order by name`);
    await bare(`select id, username, name from users order by name`);
    const rows = [];
    for (const d of departments)
      rows.push(...(await bareRows(bare, `${TICKETS_OF_KIND} and status = 0 and department_id = ${Number(d.id)}`, 11, 0)).slice(0, 10));
    await bareDecorate(bare, rows);
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
    console.log(
      `${"case".padEnd(18)} ${"page median".padStart(12)} ${"p95".padStart(8)} ${"data median".padStart(12)} ${"model median".padStart(13)} ${"floor median".padStart(13)} ${"page/floor".padStart(10)} ${"model/floor".padStart(11)}`,
    );
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
      const floor = await time(() => FLOOR[name](bare), 5, RUNS);
      const ms = (x: number, w: number) => `${x.toFixed(1).padStart(w)} ms`;
      console.log(
        `${name.padEnd(18)} ${ms(page.median, 9)} ${ms(page.p95, 5)} ${ms(data.median, 9)} ${ms(model.median, 10)} ${ms(floor.median, 10)} ${(page.median / floor.median).toFixed(1).padStart(9)}x ${(model.median / floor.median).toFixed(1).padStart(10)}x`,
      );
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
