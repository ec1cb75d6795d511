// One long-running server under a mixed load, watched over time (issue 24, item 7).
//   npm run build && npm run bench:soak             two hours
//   npm run build && npm run bench:soak -- --quick  one hour (SOAK_MINUTES overrides either)
// The built server on a fresh demo workspace (SQLite in a temp dir; SOAK_DATABASE=pg: a new
// database on the server of TEST_DATABASE_URL, dropped at the end), METRICS_TOKEN set, on
// SOAK_PORT (4310). The load, sized for two cores shared with other work:
//  - SOAK_SOCKETS (200) at most: between half and all of them connected (the crowd swells and
//    shrinks in cycles of about 20 minutes, as large at the end of warm-up as at the end of the
//    run), each a page's socket that joins a ticket's room, catches up, moves to another ticket
//    now and then and leaves after 1-8 minutes; every SOAK_STORM_MINUTES (10) every one of them
//    is cut at once and reconnects (a storm);
//  - a page without JavaScript every 2 s (list, conversation, settings, profile: plain GETs with a
//    session cookie); a chromium page that moves around every minute (list, a conversation by a
//    link, a conversation loaded afresh, settings) and checks that a reply written then reaches
//    the conversation it just opened ("fresh");
//  - a reply every 3 s through POST /api/ticket/message/reply with an Idempotency-Key (every
//    tenth sent twice: the second must answer the first's id), an upload (multipart, a small
//    file) every 20 s, a sign-in and sign-out every 30 s (the form and the JSON API in turn);
//  - the canary: a chromium page open on one conversation for the whole run; every minute the
//    admin replies there and the text must show in that page, without a reload, within 10 s.
// Every SOAK_SAMPLE_SECONDS (30) one line from /metrics (RSS, heap, event-loop p99, open fds and
// handles, sockets and rooms), the server's CPU and what the load did meanwhile; the samples go
// to a CSV (the curve) beside the server's log in SOAK_OUT (a new folder under /tmp). At the end:
// memory after warm-up (10% of the run) against the end (means over a quarter cycle each), its
// trend, the worst event-loop p99, canary and fresh checks green/red, the server at rest before
// and after the load (sockets and rooms left), and the server's error lines. It fails (exit 1)
// only when it cannot set up; everything else is a figure.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";
import { sessionCookie } from "../app/cookies.server";
import { connectClient, cpuSeconds, launchChromium, pct, prepareWorkspace, productPost, signedInPage, type Client, type Ticket } from "./product";

const QUICK = process.argv.includes("--quick");
const MINUTES = Number(process.env.SOAK_MINUTES || (QUICK ? 60 : 120));
const PORT = Number(process.env.SOAK_PORT || 4310);
const MAX_SOCKETS = Number(process.env.SOAK_SOCKETS || 200);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS || 30);
const STORM_MINUTES = Number(process.env.SOAK_STORM_MINUTES || 10);
const PG = process.env.SOAK_DATABASE === "pg";
const ROOMS = 20;
const OUT = path.resolve(process.env.SOAK_OUT || `/tmp/omnidesk-soak-${new Date().toISOString().replace(/[:.]/g, "-")}`);
const SECRET = "bench-soak-secret";
const PASSWORD = "bench-soak-password";
const METRICS_TOKEN = "bench-soak-metrics";
process.env.SESSION_SECRET = SECRET; // the cookies this process signs are the server's
process.env.NODE_ENV = "production";

const base = `http://localhost:${PORT}`;
const runMs = MINUTES * 60_000;
/** Warm-up: the first 10% of the run; memory after it is compared with the end. */
const WARM_MS = runMs * 0.1;
// The crowd swells and shrinks in cycles of about 20 minutes, a whole number of them from the end
// of warm-up to the end of the run, so both moments see the same crowd.
const CYCLE_MS = (runMs - WARM_MS) / Math.max(1, Math.round((runMs - WARM_MS) / 1_200_000));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
const elapsed = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

// ---- what the load did: counts since the last sample, and in all ----

const KINDS = ["replies", "retries", "pages", "uploads", "signins", "arrivals", "moves", "browser"] as const;
type Kind = (typeof KINDS)[number];
const interval = Object.fromEntries(KINDS.map((k) => [k, { ok: 0, failed: 0 }])) as Record<Kind, { ok: number; failed: number }>;
const total = Object.fromEntries(KINDS.map((k) => [k, { ok: 0, failed: 0 }])) as Record<Kind, { ok: number; failed: number }>;
const failures = new Map<string, number>(); // "kind: reason" -> times, for the summary
function count(kind: Kind, ok: boolean, reason?: string) {
  interval[kind][ok ? "ok" : "failed"]++;
  total[kind][ok ? "ok" : "failed"]++;
  if (!ok) failures.set(`${kind}: ${reason ?? "?"}`, (failures.get(`${kind}: ${reason ?? "?"}`) ?? 0) + 1);
}
const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0].slice(0, 120);

/** Runs `fn` every `everyMs` (first after `firstMs`) until the run stops; a throw is a failure of `kind`. */
let stopping = false;
let wake: () => void = () => {};
const stopped = new Promise<void>((r) => (wake = r));
const pause = (ms: number) => Promise.race([sleep(ms), stopped]);
function every(kind: Kind, everyMs: number, fn: (n: number) => Promise<void>, firstMs = 0) {
  return (async () => {
    await pause(firstMs);
    for (let n = 0; !stopping; n++) {
      const started = Date.now();
      await fn(n).catch((error) => count(kind, false, reasonOf(error)));
      await pause(Math.max(0, started + everyMs - Date.now()));
    }
  })();
}

// ---- the load ----

type Workspace = Awaited<ReturnType<typeof prepareWorkspace>>;

/** Sockets arriving and leaving (the target swells and shrinks between half and all of MAX_SOCKETS), a storm every STORM_MINUTES. */
function crowd(ws: Workspace, rooms: Ticket[], startedAt: number) {
  const clients = new Map<Client, number>(); // -> when it leaves
  const storms: string[] = [];
  const target = () => Math.round(MAX_SOCKETS * (0.75 + 0.25 * Math.cos((2 * Math.PI * (Date.now() - startedAt - WARM_MS)) / CYCLE_MS)));
  const leave = (c: Client) => {
    clients.delete(c);
    c.socket.removeAllListeners();
    c.socket.close();
  };
  const churn = every("arrivals", 1000, async () => {
    const now = Date.now();
    for (const [c, leavesAt] of clients) if (leavesAt < now) leave(c);
    // at most 10 a second arrive: pages open one by one, not in an instant
    const arriving = Math.min(10, target() - clients.size);
    await Promise.all(
      Array.from({ length: Math.max(0, arriving) }, async () => {
        try {
          const c = await connectClient(base, pick(ws.agents).cookie, pick(rooms));
          clients.set(c, Date.now() + 60_000 + Math.random() * 420_000);
          count("arrivals", true);
        } catch (error) {
          count("arrivals", false, reasonOf(error));
        }
      }),
    );
    // about one in 300 moves to another conversation each second (the page's leaveRoom, joinRoom)
    for (const c of clients.keys()) {
      if (Math.random() > 1 / 300 || !c.joined) continue;
      c.socket.emit("leaveRoom", { ticketId: c.ticket.id });
      c.ticket = pick(rooms);
      c.socket.emit("joinRoom", { ticketId: c.ticket.id }, (answer: { ok: boolean }) => count("moves", answer.ok, "joinRoom refused"));
    }
  });
  const storm = every(
    "arrivals",
    STORM_MINUTES * 60_000,
    async (n) => {
      const cut = [...clients.keys()];
      const cutAt = Date.now();
      for (const c of cut) c.socket.io.engine?.close();
      const until = cutAt + 90_000;
      const back = () => cut.filter((c) => !clients.has(c) || (c.joined && c.backAt > cutAt)).length;
      while (back() < cut.length && Date.now() < until && !stopping) await sleep(200);
      const line = `storm ${n + 1}: ${cut.length} sockets cut, ${back()} back in their rooms ${elapsed(cutAt)} after the cut`;
      storms.push(line);
      console.log(`  ${line}`);
    },
    STORM_MINUTES * 60_000 + SAMPLE_SECONDS * 500, // halfway between two samples
  );
  return {
    clients,
    storms,
    done: Promise.all([churn, storm]),
    closeAll: () => [...clients.keys()].forEach(leave),
  };
}

/** Pages without JavaScript: a GET with a session cookie every 2 s. */
function plainPages(ws: Workspace, rooms: Ticket[]) {
  const paths = () => ["/", "/ticket?department=2", `/ticket/${pick(rooms).number}`, "/settings", "/profile"];
  return every("pages", 2000, async () => {
    const where = pick(paths());
    const res = await fetch(`${base}${where}`, { headers: { cookie: pick(ws.agents).cookie }, redirect: "manual" });
    await res.arrayBuffer();
    count("pages", res.status === 200, `${where.replace(/\d+/g, ":n")} ${res.status}`);
  });
}

/** Replies from the agents, each with its Idempotency-Key; every tenth is sent again with the same key. */
function replies(ws: Workspace, rooms: Ticket[]) {
  return every("replies", 3000, async (n) => {
    const agent = pick(ws.agents);
    const ticket = pick(rooms);
    const key = randomUUID();
    const post = productPost(base, agent.token);
    const id = await post(ticket, `soak reply ${n} ${key.slice(0, 8)}`, key);
    count("replies", id !== null, "refused");
    if (id === null || n % 10 !== 9) return;
    const again = await post(ticket, `soak reply ${n} ${key.slice(0, 8)}`, key);
    count("retries", again === id, `answered ${again} for ${id}`);
  });
}

/** A small file through POST /api/upload (multipart) every 20 s. */
function uploads(ws: Workspace, rooms: Ticket[]) {
  const bytes = Buffer.alloc(2048, "soak upload line\n");
  return every("uploads", 20_000, async (n) => {
    const form = new FormData();
    // the token before the file: the server checks it before it takes a file
    form.append("_token", pick(ws.agents).token);
    form.append("ticket_id", String(pick(rooms).id));
    form.append("attachment[]", new Blob([bytes], { type: "text/plain" }), `soak-${n}.txt`);
    const res = await fetch(`${base}/api/upload`, { method: "POST", body: form, headers: { "Idempotency-Key": randomUUID() } });
    const answer = (await res.json()) as { result: string; file: string | null; description?: string };
    count("uploads", answer.result === "success" && !!answer.file, answer.description ?? String(res.status));
  });
}

/** A sign-in and sign-out every 30 s: through the login form and /logout, then through the JSON API. */
function signIns() {
  const users = [
    { username: "agent", type: "agent" },
    { username: "agent2", type: "agent" },
    { username: "admin", type: "admin" },
  ];
  return every(
    "signins",
    30_000,
    async (n) => {
      const user = users[n % users.length];
      if (n % 2 === 0) {
        const form = new URLSearchParams({ intent: "login", username: user.username, password: PASSWORD, type: user.type });
        const res = await fetch(`${base}/?index`, { method: "POST", body: form, headers: { Origin: base }, redirect: "manual" });
        const cookie = res.headers
          .getSetCookie()
          .find((c) => c.startsWith(`${sessionCookie().name}=`))
          ?.split(";")[0];
        if (res.status !== 302 || !cookie) return count("signins", false, `form sign-in ${res.status}`);
        const page = await fetch(`${base}/ticket`, { headers: { cookie }, redirect: "manual" });
        await page.arrayBuffer();
        const out = await fetch(`${base}/logout`, { method: "POST", headers: { cookie, Origin: base }, redirect: "manual" });
        const after = await fetch(`${base}/ticket`, { headers: { cookie }, redirect: "manual" });
        await Promise.all([out.arrayBuffer(), after.arrayBuffer()]);
        // signed out: the page answers the login form (or sends there), never the shell again
        count("signins", page.status === 200 && out.status === 302 && after.status !== 200, `form ${page.status}/${out.status}/${after.status}`);
      } else {
        const json = { "Content-Type": "application/json" };
        const res = await fetch(`${base}/api/auth2`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ client: user.username, password: PASSWORD, type: user.type }),
        });
        const { token } = (await res.json()) as { token?: string };
        if (!token) return count("signins", false, `api sign-in ${res.status}`);
        const out = await fetch(`${base}/api/user/signout`, { method: "POST", headers: json, body: JSON.stringify({ _token: token }) });
        const after = await fetch(`${base}/api/auth/check?_token=${token}`);
        const check = (await after.json()) as { result?: string };
        await out.arrayBuffer();
        count("signins", out.ok && check.result !== "success", `api ${out.status}/${after.status}/${check.result}`);
      }
    },
    5000,
  );
}

/** Whether `text` shows in `page` within 10 s; the time it took (ms), or null. */
async function showsLive(page: Page, text: string) {
  const started = Date.now();
  try {
    await page.locator(".text-body", { hasText: text }).first().waitFor({ timeout: 10_000 });
    return Date.now() - started;
  } catch {
    return null;
  }
}

type Check = { at: number; ok: boolean; ms: number | null; note?: string };

/** The canary: one page open on `ticket` all along; every minute a reply by the admin must show in it within 10 s. */
function canary(page: Page, ticket: Ticket, adminToken: string, checks: Check[]) {
  const post = productPost(base, adminToken);
  return every(
    "browser",
    60_000,
    async (n) => {
      const text = `canary ${n + 1} ${randomUUID().slice(0, 8)}`;
      const id = await post(ticket, text, randomUUID());
      if (id === null) {
        checks.push({ at: Date.now(), ok: false, ms: null, note: "reply refused" });
        return;
      }
      const ms = await showsLive(page, text);
      const live = await page
        .locator(".conversation")
        .getAttribute("data-live")
        .catch(() => "?");
      checks.push({ at: Date.now(), ok: ms !== null, ms, note: ms === null ? `not shown in 10 s, data-live=${live}` : undefined });
      if (ms === null) console.log(`  CANARY RED at minute ${n + 1}: "${text}" not in the page after 10 s (data-live=${live})`);
    },
    30_000,
  );
}

/** A page with JavaScript that moves every minute; after opening a conversation it checks a new reply reaches it ("fresh"). */
function roaming(page: Page, rooms: Ticket[], adminToken: string, checks: Check[]) {
  const post = productPost(base, adminToken);
  const byNumber = new Map(rooms.map((t) => [t.number, t]));
  const fresh = async (ticket: Ticket, how: string) => {
    await page.locator('.conversation[data-live="on"]').waitFor({ timeout: 30_000 });
    const text = `fresh ${randomUUID().slice(0, 8)}`;
    if ((await post(ticket, text, randomUUID())) === null) return checks.push({ at: Date.now(), ok: false, ms: null, note: "reply refused" });
    const ms = await showsLive(page, text);
    checks.push({ at: Date.now(), ok: ms !== null, ms, note: ms === null ? `${how}: not shown in 10 s` : undefined });
    if (ms === null) console.log(`  FRESH RED: a conversation just opened (${how}) did not show a new reply within 10 s`);
  };
  return every(
    "browser",
    60_000,
    async (n) => {
      const step = n % 3;
      if (step === 0) {
        // the list, then a conversation by its link (a client-side navigation)
        await page.goto(`${base}/ticket?department=2`);
        const numbers = await page.locator(".ticket-item").evaluateAll((els) => els.map((el) => Number(el.getAttribute("data-ticket"))));
        const known = numbers.find((x) => byNumber.has(x));
        if (known === undefined) throw new Error("no known ticket in the list");
        await page.locator(`.ticket-item[data-ticket="${known}"]`).first().click();
        await page.waitForURL(new RegExp(`/ticket/${known}`));
        await fresh(byNumber.get(known)!, "by a link");
      } else if (step === 1) {
        const ticket = pick(rooms);
        await page.goto(`${base}/ticket/${ticket.number}`);
        await fresh(ticket, "loaded afresh");
      } else {
        const res = await page.goto(`${base}/settings`);
        if (!res?.ok()) throw new Error(`settings ${res?.status()}`);
      }
      count("browser", true);
    },
    10_000,
  );
}

// ---- samples ----

/** The scrape as name{labels} -> value. */
async function scrape() {
  const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  const values = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}
/** The sum of a metric over its labels. */
const metric = (m: Map<string, number>, name: string) => {
  let sum = NaN;
  for (const [key, v] of m) if (key === name || key.startsWith(`${name}{`)) sum = (Number.isNaN(sum) ? 0 : sum) + v;
  return sum;
};

const COLUMNS = [
  "t_s",
  "rss_mb",
  "heap_used_mb",
  "heap_total_mb",
  "external_mb",
  "eventloop_p99_ms",
  "eventloop_max_ms",
  "open_fds",
  "active_handles",
  "server_sockets",
  "server_rooms",
  "bench_sockets",
  "http_in_flight",
  "cpu_pct",
  "load1",
  "ready",
  "canary",
  "fresh",
  ...KINDS.flatMap((k) => [`${k}_ok`, `${k}_failed`]),
] as const;
type Sample = Record<(typeof COLUMNS)[number], number | string>;

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const lastState = (checks: Check[], since: number) => {
  const recent = checks.filter((c) => c.at > since);
  if (!recent.length) return "-";
  return recent.every((c) => c.ok) ? "green" : "red";
};

async function sample(pid: number, startedAt: number, prev: { at: number; cpu: number }, benchSockets: number, canaryChecks: Check[], freshChecks: Check[]) {
  const m = await scrape();
  const now = Date.now();
  const cpu = cpuSeconds(pid);
  const ready = await fetch(`${base}/readyz`).then(
    (r) => r.status,
    () => 0,
  );
  const s: Sample = {
    t_s: Math.round((now - startedAt) / 1000),
    rss_mb: mb(metric(m, "process_resident_memory_bytes")),
    heap_used_mb: mb(metric(m, "nodejs_heap_size_used_bytes")),
    heap_total_mb: mb(metric(m, "nodejs_heap_size_total_bytes")),
    external_mb: mb(metric(m, "nodejs_external_memory_bytes")),
    eventloop_p99_ms: Math.round(metric(m, "nodejs_eventloop_lag_p99_seconds") * 10000) / 10,
    eventloop_max_ms: Math.round(metric(m, "nodejs_eventloop_lag_max_seconds") * 10000) / 10,
    open_fds: metric(m, "process_open_fds"),
    active_handles: metric(m, "nodejs_active_handles_total"),
    server_sockets: metric(m, "omnidesk_sockets"),
    server_rooms: metric(m, "omnidesk_socket_rooms"),
    bench_sockets: benchSockets,
    http_in_flight: metric(m, "omnidesk_http_requests_in_flight"),
    cpu_pct: Math.round(((cpu - prev.cpu) / ((now - prev.at) / 1000)) * 100),
    load1: Math.round(os.loadavg()[0] * 10) / 10,
    ready,
    canary: lastState(canaryChecks, prev.at),
    fresh: lastState(freshChecks, prev.at),
    ...(Object.fromEntries(KINDS.flatMap((k) => [[`${k}_ok`, interval[k].ok] as const, [`${k}_failed`, interval[k].failed] as const])) as Record<
      string,
      number
    >),
  } as Sample;
  for (const k of KINDS) interval[k] = { ok: 0, failed: 0 };
  prev.at = now;
  prev.cpu = cpu;
  return s;
}

function printSample(s: Sample) {
  const failed = KINDS.filter((k) => Number(s[`${k}_failed`]) > 0).map((k) => `${k} ${s[`${k}_failed`]}`);
  console.log(
    [
      `${String(Math.floor(Number(s.t_s) / 60)).padStart(4)}:${String(Number(s.t_s) % 60).padStart(2, "0")}`,
      `rss ${String(s.rss_mb).padStart(6)} MB`,
      `heap ${String(s.heap_used_mb).padStart(6)} MB`,
      `loop p99 ${String(s.eventloop_p99_ms).padStart(6)} ms`,
      `fds ${String(s.open_fds).padStart(4)}`,
      `handles ${String(s.active_handles).padStart(4)}`,
      `sockets ${String(s.server_sockets).padStart(4)}/${String(s.bench_sockets).padStart(3)}`,
      `rooms ${String(s.server_rooms).padStart(4)}`,
      `cpu ${String(s.cpu_pct).padStart(3)}%`,
      `load ${s.load1}`,
      `ready ${s.ready}`,
      `canary ${String(s.canary).padEnd(5)}`,
      `fresh ${String(s.fresh).padEnd(5)}`,
      `replies ${s.replies_ok} pages ${s.pages_ok}${failed.length ? `  FAILED ${failed.join(", ")}` : ""}`,
    ].join("  "),
  );
}

// ---- the summary ----

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : NaN;
}

function summary(
  samples: Sample[],
  canaryChecks: Check[],
  freshChecks: Check[],
  storms: string[],
  quiet: { before: string; load: string; browsers: string },
  logFile: string,
  csv: string,
) {
  // the mean of a quarter of a crowd cycle after warm-up and before the end, not one sample: the
  // heap is a saw (collections), and the crowd is the same size in both windows
  const warmIndex = Math.max(
    0,
    samples.findIndex((s) => Number(s.t_s) * 1000 >= WARM_MS),
  );
  const window = (from: number, to: number, fallback: Sample) => {
    const inside = samples.filter((s) => Number(s.t_s) * 1000 >= from && Number(s.t_s) * 1000 <= to);
    return inside.length ? inside : [fallback];
  };
  const warm = window(WARM_MS, WARM_MS + CYCLE_MS / 4, samples[warmIndex]);
  const end = window(runMs - CYCLE_MS / 4, Infinity, samples.at(-1)!);
  const mean = (xs: Sample[], col: keyof Sample) => Math.round((xs.reduce((a, s) => a + Number(s[col]), 0) / xs.length) * 10) / 10;
  const span = (xs: Sample[]) => `${xs[0].t_s}${xs.length > 1 ? `-${xs.at(-1)!.t_s}` : ""} s`;
  const change = (col: "rss_mb" | "heap_used_mb" | "open_fds" | "active_handles") => {
    const a = mean(warm, col);
    const b = mean(end, col);
    return `${a} -> ${b} (${b >= a ? "+" : ""}${(((b - a) / a) * 100).toFixed(1)}%)`;
  };
  const afterWarm = samples.slice(warmIndex);
  const trend = (col: "rss_mb" | "heap_used_mb") =>
    afterWarm.length > 2
      ? `${slope(
          afterWarm.map((s) => Number(s.t_s) / 3600),
          afterWarm.map((s) => Number(s[col])),
        ).toFixed(1)} MB/h`
      : "n/a";
  const loop = samples.map((s) => Number(s.eventloop_p99_ms));
  const maxOf = (col: keyof Sample) => Math.max(...samples.map((s) => Number(s[col])));
  const checksLine = (checks: Check[]) => {
    const ms = checks.filter((c) => c.ok).map((c) => c.ms!);
    const red = checks.filter((c) => !c.ok);
    return `${checks.length - red.length} green, ${red.length} red (shown after p50 ${pct(ms, 50) ?? "-"} ms, max ${ms.length ? Math.max(...ms) : "-"} ms)${
      red.length ? `; red at ${red.map((c) => `${((c.at - startedAt) / 60_000).toFixed(1)} min (${c.note})`).join(", ")}` : ""
    }`;
  };
  // pino's lines, levels as labels; the drain's own warnings at the end are not news
  const lines = fs
    .readFileSync(logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      try {
        return JSON.parse(l) as { level: string; msg: string };
      } catch {
        return { level: "?", msg: l.slice(0, 120) };
      }
    })
    .filter((l) => !l.msg.startsWith("SIGTERM"));
  const byMsg = (level: string) => {
    const m = new Map<string, number>();
    for (const l of lines) if (l.level === level) m.set(l.msg, (m.get(l.msg) ?? 0) + 1);
    return [...m].map(([msg, n]) => `${n} x ${msg}`).join("; ") || "none";
  };

  console.log(`\n== summary: ${MINUTES} min on ${PG ? "PostgreSQL" : "SQLite"}, ${samples.length} samples ==`);
  console.log(
    `memory, mean of the samples at warm-up (${span(warm)}) -> at the end (${span(end)}): RSS ${change("rss_mb")} MB, heap used ${change("heap_used_mb")} MB`,
  );
  console.log(
    `  trend after warm-up: RSS ${trend("rss_mb")}, heap ${trend("heap_used_mb")}; RSS max ${maxOf("rss_mb")} MB, heap max ${maxOf("heap_used_mb")} MB`,
  );
  console.log(`event-loop p99: max ${Math.max(...loop)} ms, median ${pct(loop, 50)} ms; lag max ${maxOf("eventloop_max_ms")} ms`);
  console.log(
    `open fds ${change("open_fds")}, active handles ${change("active_handles")}; server sockets max ${maxOf("server_sockets")}, rooms max ${maxOf("server_rooms")}`,
  );
  console.log(`quiet server: before the load (the canary page open): ${quiet.before}`);
  console.log(`  once the load had gone (the two pages still open): ${quiet.load}; once the browser had gone too: ${quiet.browsers}`);
  console.log(`canary minutes: ${checksLine(canaryChecks)}`);
  console.log(`fresh pages: ${checksLine(freshChecks)}`);
  console.log(`storms: ${storms.length ? storms.join("; ") : "none"}`);
  console.log(`load done: ${KINDS.map((k) => `${k} ${total[k].ok} ok${total[k].failed ? ` / ${total[k].failed} failed` : ""}`).join(", ")}`);
  if (failures.size)
    console.log(
      `failures: ${[...failures]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([r, n]) => `${n} x ${r}`)
        .join("; ")}`,
    );
  console.log(`server log: errors: ${byMsg("error")}; fatal: ${byMsg("fatal")}; warnings: ${byMsg("warn")}; not JSON: ${byMsg("?")}`);
  console.log(`samples (CSV): ${csv}\nserver log: ${logFile}`);
}

// ---- the run ----

let startedAt = Date.now();
const benchErrors = new Map<string, number>();
// a stray throw in a socket callback (a refused join, a replay given up) is a figure, not the end of the run
for (const event of ["uncaughtException", "unhandledRejection"] as const)
  process.on(event, (error) => {
    const reason = reasonOf(error);
    benchErrors.set(reason, (benchErrors.get(reason) ?? 0) + 1);
    if (benchErrors.get(reason) === 1) console.log(`  bench error (counted, the run goes on): ${reason}`);
  });

async function main() {
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model} x ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB, node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `soak: ${MINUTES} min on ${PG ? "PostgreSQL" : "SQLite"}, port ${PORT}, ${MAX_SOCKETS / 2}-${MAX_SOCKETS} sockets, a storm every ${STORM_MINUTES} min, a sample every ${SAMPLE_SECONDS} s`,
  );
  const taken = await fetch(`${base}/healthz`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`port ${PORT} is taken (SOAK_PORT)`);
  fs.mkdirSync(OUT, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-soak-"));
  const pg = PG ? await (await import("../tests/unit/harness")).createPgDatabase() : undefined;
  const logFile = path.join(OUT, "server.log");
  const csv = path.join(OUT, "samples.csv");
  const server = startServer(
    {
      PORT: String(PORT),
      DATA_DIR: dataDir,
      DATABASE_URL: pg?.url ?? "",
      REDIS_URL: "",
      SESSION_SECRET: SECRET,
      NODE_ENV: "production",
      BASE_URL: base,
      SEED_DEMO: "1",
      SEED_PASSWORD: PASSWORD,
      SMTP_LISTEN_PORT: "off",
      METRICS_TOKEN,
      LOG_LEVEL: "info",
    },
    fs.openSync(logFile, "w"),
  );
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    await waitHealthy(base, 120_000);
    const ws = await prepareWorkspace(pg?.url ?? path.join(dataDir, "omnidesk.sqlite"), { agents: MAX_SOCKETS, tickets: ROOMS + 1, prefix: "soak_agent" });
    if (ws.tickets.length < 3) throw new Error("the demo workspace has too few Support tickets");
    const [canaryTicket, ...rooms] = ws.tickets;
    await scrape(); // the token works

    browser = await launchChromium();
    const canaryPage = await signedInPage(browser, base, ws.agents[0].cookie);
    await canaryPage.goto(`${base}/ticket/${canaryTicket.number}`);
    await canaryPage.locator('.conversation[data-live="on"]').waitFor({ timeout: 60_000 });
    const roamingPage = await signedInPage(browser, base, ws.agents[1].cookie);
    console.log(`server pid ${server.pid}, data in ${pg ? pg.url : dataDir}; canary on ticket ${canaryTicket.number}; samples to ${csv}`);

    // the server at rest, before the load and after it
    const quiet = async () => {
      const m = await scrape();
      const at = (name: string) => metric(m, name);
      return `RSS ${mb(at("process_resident_memory_bytes"))} MB, heap ${mb(at("nodejs_heap_size_used_bytes"))} MB, sockets ${at("omnidesk_sockets")}, rooms ${at("omnidesk_socket_rooms")}, fds ${at("process_open_fds")}, handles ${at("nodejs_active_handles_total")}`;
    };
    const quietBefore = await quiet();

    // ---- the run: setup is done, nothing below ends it early ----
    startedAt = Date.now();
    fs.writeFileSync(csv, `${COLUMNS.join(",")}\n`);
    const canaryChecks: Check[] = [];
    const freshChecks: Check[] = [];
    const people = crowd(ws, rooms, startedAt);
    const loops = [
      people.done,
      plainPages(ws, rooms),
      replies(ws, rooms),
      uploads(ws, rooms),
      signIns(),
      canary(canaryPage, canaryTicket, ws.adminToken, canaryChecks),
      roaming(roamingPage, rooms, ws.adminToken, freshChecks),
    ];
    const samples: Sample[] = [];
    const prev = { at: Date.now(), cpu: cpuSeconds(server.pid!) };
    const sampler = (async () => {
      while (!stopping) {
        await pause(SAMPLE_SECONDS * 1000);
        try {
          const s = await sample(server.pid!, startedAt, prev, [...people.clients.keys()].filter((c) => c.socket.connected).length, canaryChecks, freshChecks);
          samples.push(s);
          fs.appendFileSync(csv, `${COLUMNS.map((c) => s[c]).join(",")}\n`);
          printSample(s);
        } catch (error) {
          console.log(`  sample failed: ${reasonOf(error)}`);
        }
      }
    })();
    await sleep(runMs);
    stopping = true;
    wake();
    await Promise.all([...loops, sampler]);

    people.closeAll();
    await sleep(10_000);
    const afterLoad = await quiet().catch((e) => reasonOf(e));
    await browser.close();
    browser = undefined;
    await sleep(5_000);
    const afterBrowsers = await quiet().catch((e) => reasonOf(e));
    if (benchErrors.size)
      console.log(
        `bench errors: ${[...benchErrors]
          .map(([r, n]) => `${n} x ${r}`)
          .slice(0, 8)
          .join("; ")}`,
      );
    await stopServer(server);
    if (samples.length)
      summary(samples, canaryChecks, freshChecks, people.storms, { before: quietBefore, load: afterLoad, browsers: afterBrowsers }, logFile, csv);
    else console.log("no sample was taken");
  } finally {
    await browser?.close().catch(() => undefined);
    if (server.exitCode === null && server.signalCode === null) await stopServer(server);
    await pg?.drop().catch((error) => console.log(`the PostgreSQL database was not dropped: ${reasonOf(error)}`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main()
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(`soak: setup failed: ${error instanceof Error ? error.stack : error}`);
    process.exit(1);
  });
