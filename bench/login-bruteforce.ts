// Login brute force: parallel wrong passwords for one account from many addresses, then the right
// one. Prints how many attempts were checked against the password (at most the account limit),
// when the account locked, that the right password is refused while locked, and the timings.
//   npm run build && npm run bench:login                 (starts its own server on a temp database)
//   BASE_URL=http://host:port npm run bench:login        (a running server with TRUST_PROXY set)
// ATTEMPTS (500), USERNAME_UNDER_TEST (agent), SEED_PASSWORD (demo1234) change the run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";

const ATTEMPTS = Number(process.env.ATTEMPTS || 500);
const USERNAME = process.env.USERNAME_UNDER_TEST || "agent";
const PASSWORD = process.env.SEED_PASSWORD || "demo1234";
const port = Number(process.env.BENCH_PORT || 3397);
const own = !process.env.BASE_URL;
const base = process.env.BASE_URL || `http://localhost:${port}`;
const dataDir = own ? fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-login-")) : "";
const server = own
  ? startServer({
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      SESSION_SECRET: "bench",
      SEED_DEMO: "1",
      NODE_ENV: "test",
      // X-Forwarded-For sets the client address, so one machine can play many
      TRUST_PROXY: "1",
      // the product's defaults: 10 per account, 100 per network, per 15 minutes
      LOGIN_FAILURES_ALLOWED: "",
      LOGIN_NETWORK_FAILURES_ALLOWED: "",
    })
  : undefined;

/** Addresses of three kinds: IPv4, IPv6 in one /64, IPv6 each in its own /64. */
function addressFor(i: number) {
  const hex = (n: number) => n.toString(16);
  switch (i % 3) {
    case 0:
      return `198.18.${(i >> 8) & 255}.${i & 255}`;
    case 1:
      return `2001:db8:aa:bb::${hex(i + 1)}`;
    default:
      return `2001:db8:${hex(i)}::1`;
  }
}

type Outcome = { status: number; ms: number; doneAt: number; checked: boolean; locked: boolean; text: string };

/** One sign-in through the login form (a document POST, as a browser without JavaScript sends it). */
async function viaForm(username: string, password: string, ip: string, t0: number, type = "agent"): Promise<Outcome> {
  const started = performance.now();
  const res = await fetch(`${base}/?index`, {
    method: "POST",
    body: new URLSearchParams({ intent: "login", username, password, type }),
    headers: { "X-Forwarded-For": ip },
    redirect: "manual",
  });
  const text = await res.text();
  const done = performance.now();
  return { status: res.status, ms: done - started, doneAt: done - t0, checked: res.status === 400, locked: res.status === 429, text };
}

/** One sign-in through the JSON twin the apps use. */
async function viaApi(username: string, password: string, ip: string, t0: number, type = "agent"): Promise<Outcome> {
  const started = performance.now();
  const res = await fetch(`${base}/api/auth2`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": ip },
    body: JSON.stringify({ client: username, password, type }),
  });
  const text = await res.text();
  const done = performance.now();
  return { status: res.status, ms: done - started, doneAt: done - t0, checked: res.status === 403, locked: res.status === 429, text };
}

function summary(xs: number[]) {
  if (!xs.length) return "n/a";
  const s = [...xs].sort((a, b) => a - b);
  const f = (n: number) => `${n.toFixed(0)} ms`;
  return `min ${f(s[0])}, median ${f(s[Math.floor(s.length / 2)])}, max ${f(s[s.length - 1])}`;
}

/** Read-only looks at the server's own SQLite file (only when we started the server). */
function look<T>(fn: (db: Database.Database) => T): T | undefined {
  if (!own) return undefined;
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const counter = (key: string) =>
  look(
    (db) =>
      db.prepare("SELECT failures, window_start AS windowStart FROM auth_throttle WHERE key = ?").get(key) as
        { failures: number; windowStart: number } | undefined,
  );
const clock = (at: number) => new Date(at).toISOString().slice(11, 19);

async function flood(label: string, username: string, send: typeof viaForm) {
  const t0 = performance.now();
  const outcomes = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => send(username, `wrong-${i}`, addressFor(i), t0)));
  const wall = performance.now() - t0;
  const checked = outcomes.filter((o) => o.checked);
  const locked = outcomes.filter((o) => o.locked);
  const other = outcomes.filter((o) => !o.checked && !o.locked);
  console.log(`\n${label}: ${ATTEMPTS} wrong passwords for "${username}" at once, from ${ATTEMPTS} addresses (IPv4, one IPv6 /64, many /64s)`);
  console.log(`  checked against the password ("invalid"): ${checked.length}`);
  console.log(`  refused as locked, no check (429):        ${locked.length}${other.length ? `; other answers: ${other.map((o) => o.status).join(", ")}` : ""}`);
  const row = counter(`acct:${username}`);
  if (row)
    console.log(
      `  counter acct:${username}: ${row.failures} attempts counted; locked from the ${LIMIT + 1}th until ${clock(row.windowStart + 15 * 60_000)} UTC`,
    );
  console.log(`  all answered in ${wall.toFixed(0)} ms; per request: ${summary(outcomes.map((o) => o.ms))}`);
  return { checked: checked.length, locked: locked.length };
}

const LIMIT = 10;

try {
  await waitHealthy(base);
  console.log(`target ${base}${own ? " (own server, temp SQLite, TRUST_PROXY=1, default limits)" : ""}`);

  // 1. a network: a different account per attempt from one IPv6 /64, then from the next /64
  const n = 150;
  const t1 = performance.now();
  const net = await Promise.all(Array.from({ length: n }, (_, i) => viaApi(`nobody${i}`, "x", `2001:db8:cc:dd:${(i + 1).toString(16)}::1`, t1)));
  console.log(`network 2001:db8:cc:dd::/64: ${n} attempts on ${n} accounts from ${n} addresses at once`);
  console.log(`  checked: ${net.filter((o) => o.checked).length}, refused by the network limit: ${net.filter((o) => o.locked).length}`);
  const elsewhere = await viaForm("admin", PASSWORD, "2001:db8:cc:de::1", performance.now(), "admin");
  console.log(`  admin, right password, from the next /64: HTTP ${elsewhere.status} (${elsewhere.status === 302 ? "signed in" : "refused"})`);

  // 2. one attempt at a time: what a checked and a refused attempt cost
  const serial: Outcome[] = [];
  for (let i = 0; i < 30; i++) serial.push(await viaApi("admin", `wrong-${i}`, `198.19.0.${i + 1}`, performance.now(), "admin"));
  console.log(`\none at a time, 30 wrong passwords for "admin" (JSON API):`);
  console.log(`  checked ${serial.filter((o) => o.checked).length}: ${summary(serial.filter((o) => o.checked).map((o) => o.ms))}`);
  console.log(`  refused ${serial.filter((o) => o.locked).length}: ${summary(serial.filter((o) => o.locked).map((o) => o.ms))}`);

  // 3. the flood, through the JSON API and through the login form
  const api = await flood("JSON API /api/auth2", USERNAME, viaApi);
  const form = await flood("login form POST /", "agent2", viaForm);

  // 4. the right password while locked, from fresh addresses
  const rightForm = await viaForm(USERNAME, PASSWORD, "203.0.113.200", performance.now());
  const minutes = rightForm.text.match(/Try again in (\d+) minutes?/)?.[1];
  console.log(`\nright password for "${USERNAME}" while locked, login form: HTTP ${rightForm.status}${minutes ? ` "Try again in ${minutes} minutes."` : ""}`);
  const rightApi = await viaApi(USERNAME, PASSWORD, "203.0.113.201", performance.now());
  console.log(`right password for "${USERNAME}" while locked, JSON API: HTTP ${rightApi.status} ${rightApi.text}`);

  const audit = look((db) =>
    Object.fromEntries(
      (
        db.prepare("SELECT json_extract(detail, '$.reason') AS reason, count(*) AS n FROM audit_log WHERE action = 'signin.failed' GROUP BY reason").all() as {
          reason: string;
          n: number;
        }[]
      ).map((r) => [r.reason, r.n]),
    ),
  );
  if (audit) console.log(`\naudit log, signin.failed by reason: ${JSON.stringify(audit)}`);
  const ok = api.checked <= LIMIT && form.checked <= LIMIT && rightForm.status === 429 && rightApi.status === 429;
  console.log(
    `\n${ok ? "PASS" : "FAIL"}: ${api.checked} and ${form.checked} password checks for ${ATTEMPTS} attempts each; the right password is ${ok ? "refused" : "not refused"} while locked`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  if (server) await stopServer(server);
  if (own) fs.rmSync(dataDir, { recursive: true, force: true });
}
