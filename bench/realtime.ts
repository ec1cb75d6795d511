// The socket layer under a crowd, beside a bare socket.io relay on the same machine (the floor).
//   npm run build && npm run bench:realtime
// Prints the machine, then:
//  - steady: SOCKETS agents (each in one of ROOMS ticket rooms, all in their department's room),
//    RATE messages a second posted through the real reply path (POST /api/ticket/message/reply);
//    p50/p99 from the message's commit (its created_at, taken in its transaction) to each
//    recipient's event, and server CPU (/proc/<pid>/stat) per delivered event; the relay does the
//    same fan-out (message to the room, delta to the department);
//  - the same on two nodes with the Redis adapter (127.0.0.1:6379), half the sockets on each;
//  - reconnect storms: every client's connection cut at once (server up), and a server restart;
//    the time until all are back in their rooms with what they missed, and messages missing;
//  - TABS chromium pages (visible) on one busy ticket at TAB_RATE messages a second: from commit
//    to the text in the DOM (a MutationObserver stamps performance.timeOrigin + now, the same
//    clock as the server's Date.now on this machine), and the renderers' own work per message per
//    tab (DevTools' TaskDuration), which says how many tabs one machine can keep live;
//    BENCH_TAB_PROFILE=file.cpuprofile keeps the first tab's CPU profile, BENCH_TAB_TRACE=file.json
//    its Chromium trace (paint, raster, layout: open it in DevTools' Performance panel).
// BENCH_SERVER_DIR: the folder of another build to measure (the code before a change); with
// BENCH_LEGACY=1 the clients behave as that code's pages did (fixed 5 s retries, reloading the
// page's four loaders after a reconnect).
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import Database from "better-sqlite3";
import { waitHealthy } from "../tests/support/server-process";
import {
  connectClient as productClient,
  cpuSeconds,
  launchChromium,
  loadavg,
  pct,
  prepareWorkspace,
  productPost,
  signedInPage,
  settled,
  SUPPORT,
  type Agent,
  type Client,
  type Ticket,
} from "./product";

const SOCKETS = Number(process.env.BENCH_SOCKETS || 1000);
const ROOMS = Number(process.env.BENCH_ROOMS || 20);
const RATE = Number(process.env.BENCH_RATE || 2);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
// 100 tabs do not fit on 2 shared cores (opening them took 340 s, the load average passed 160): 20 by default
const TABS = Number(process.env.BENCH_TABS || 20);
const TAB_RATE = Number(process.env.BENCH_TAB_RATE || 10);
const TAB_SECONDS = Number(process.env.BENCH_TAB_SECONDS || 10);
const PHASES = (process.env.BENCH_PHASES || "steady,cluster,storm,tabs").split(",");
const SERVER_DIR = path.resolve(process.env.BENCH_SERVER_DIR || ".");
const LEGACY = process.env.BENCH_LEGACY === "1";
const PORT = Number(process.env.BENCH_PORT || 3650);
const SECRET = "bench-realtime-secret";
const PASSWORD = "bench-realtime-password";
process.env.SESSION_SECRET = SECRET; // the cookies this process signs are the server's
process.env.NODE_ENV = "production";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-rt-"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const children: ChildProcess[] = [];

// BENCH_SERVER_ARGS: node flags for the product's servers and the relay (e.g. --cpu-prof to see where a phase goes)
const serverArgs = () => process.env.BENCH_SERVER_ARGS?.split(" ").filter(Boolean) ?? [];

function spawnNode(port: number, extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...serverArgs(), "build/server.js"], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      REDIS_URL: "",
      SESSION_SECRET: SECRET,
      NODE_ENV: "production",
      BASE_URL: `http://localhost:${port}`,
      SEED_DEMO: "1",
      SEED_PASSWORD: PASSWORD,
      SMTP_LISTEN_PORT: "off",
      ...extra,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return child;
}

function spawnRelay(port: number) {
  const child = spawn(process.execPath, [...serverArgs(), "--import", "tsx", "bench/realtime-relay.ts"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return child;
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : "n/a");

type Sample = { id: number; at: number; kind: "message" | "delta" };
async function waitUntil(check: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) return false;
    await sleep(20);
  }
  return true;
}

/** Posts at `rate` a second to the tickets in turn until stopped; ids of what was written, per ticket. */
function poster(post: (ticket: Ticket, text: string) => Promise<number | null>, tickets: Ticket[], rate: number) {
  const written = new Map<number, number[]>();
  let stopped = false;
  let n = 0;
  const inflight = new Set<Promise<unknown>>();
  const done = (async () => {
    const started = Date.now();
    while (!stopped) {
      const ticket = tickets[n % tickets.length];
      const p = post(ticket, `rt-${n}-${Math.random().toString(36).slice(2, 8)}`)
        .then((id) => {
          if (id) written.set(ticket.id, [...(written.get(ticket.id) ?? []), id]);
        })
        .catch(() => undefined); // the server is away (storm): nothing written
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
      n++;
      await sleep(Math.max(0, started + (n * 1000) / rate - Date.now()));
    }
    await Promise.all(inflight);
  })();
  return {
    written,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

const relayCommits = new Map<number, number>();
const relayPost = (base: string) => async (ticket: Ticket, text: string) => {
  const res = await fetch(`${base}/post`, {
    method: "POST",
    body: JSON.stringify({ room: `ticket:${ticket.id}`, department: "department", ticketId: ticket.id, text }),
  });
  const answer = (await res.json()) as { id: number; at: number };
  relayCommits.set(answer.id, answer.at);
  return answer.id;
};

/** A ticket of another department than the bench's agents': its replies reach no socket. */
function unwatchedTicket(): Ticket {
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"), { readonly: true });
  const row = db
    .prepare("select id, ticket_number as number from tickets where kind = 'ticket' and channel <> 'chat' and department_id <> ? order by id limit 1")
    .get(SUPPORT) as Ticket;
  db.close();
  return row;
}

/** created_at of messages, by id (the commit's time: taken in the reply's transaction). */
function commitTimes(ids: number[]) {
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"), { readonly: true });
  const get = db.prepare("select created_at as at from messages where id = ?");
  const times = new Map<number, number>();
  for (const id of ids) {
    const row = get.get(id) as { at: number } | undefined;
    if (row) times.set(id, Number(row.at));
  }
  db.close();
  return times;
}

function latencies(samples: Sample[], commits: Map<number, number>, kind?: Sample["kind"]) {
  return samples.filter((s) => (!kind || s.kind === kind) && commits.has(s.id)).map((s) => s.at - commits.get(s.id)!);
}

/** A product page's socket (or the relay's), its events stamped into `samples`. */
const connectClient = (base: string, cookie: string, ticket: Ticket, samples: Sample[], relay: boolean) =>
  productClient(base, cookie, ticket, {
    legacy: LEGACY,
    relay,
    onMessage: (id, at) => samples.push({ id, at, kind: "message" }),
    onDelta: (id, at) => samples.push({ id, at, kind: "delta" }),
  });

async function connectAll(bases: string[], agents: Agent[], tickets: Ticket[], samples: Sample[], relay: boolean) {
  const clients: Client[] = [];
  // in batches, as pages open over a morning rather than in one instant
  for (let i = 0; i < SOCKETS; i += 50) {
    const batch = agents.slice(i, Math.min(i + 50, SOCKETS));
    clients.push(
      ...(await Promise.all(batch.map((a, j) => connectClient(bases[(i + j) % bases.length], a.cookie, tickets[(i + j) % tickets.length], samples, relay)))),
    );
  }
  await waitUntil(() => clients.every((c) => c.joined), 60_000);
  return clients;
}

/** The steady phase: messages at RATE for SECONDS; latency and CPU per delivered event. */
async function steady(
  label: string,
  bases: string[],
  pids: number[],
  post: (t: Ticket, text: string) => Promise<number | null>,
  clients: Client[],
  samples: Sample[],
  tickets: Ticket[],
  relay: boolean,
  unwatched?: Ticket,
) {
  samples.length = 0;
  const cpuNow = () => pids.map(cpuSeconds).reduce((a, b) => a + b, 0);
  // what the server spends with nothing to deliver: idle (its background work), and for the
  // product one reply's own write path (auth, transaction, the AI and SLA hooks) on a ticket no
  // socket watches; both come out of the per-event figure below, which is then the fan-out alone
  await settled(pids);
  const idleFrom = cpuNow();
  await sleep(3000);
  const idlePerSecond = (cpuNow() - idleFrom) / 3;
  let replyAlone = 0;
  if (unwatched) {
    const from = cpuNow();
    const started = Date.now();
    for (let i = 0; i < 40; i++) await post(unwatched, `alone-${i}`);
    replyAlone = Math.max(0, cpuNow() - from - (idlePerSecond * (Date.now() - started)) / 1000) / 40;
  }
  const cpu0 = pids.map(cpuSeconds);
  const startedAt = Date.now();
  const run = poster(post, tickets, RATE);
  await sleep(SECONDS * 1000);
  await run.stop();
  await sleep(1000); // the last events on their way
  const cpu = pids.map(cpuSeconds).reduce((a, b) => a + b, 0) - cpu0.reduce((a, b) => a + b, 0);
  const ids = [...run.written.values()].flat();
  const commits = relay ? relayCommits : commitTimes(ids);
  const all = latencies(samples, commits);
  const message = latencies(samples, commits, "message");
  const delta = latencies(samples, commits, "delta");
  const expected = ids.reduce((n, id) => n + clients.filter((c) => run.written.get(c.ticket.id)?.includes(id)).length, 0);
  const lost = expected - samples.filter((s) => s.kind === "message").length;
  const perDelivery = (cpu * 1e6) / Math.max(1, samples.length);
  const fanOut = cpu - (idlePerSecond * (Date.now() - startedAt)) / 1000 - replyAlone * ids.length;
  const perFanOut = (fanOut * 1e6) / Math.max(1, samples.length);
  console.log(
    `${label.padEnd(28)} ${String(ids.length).padStart(5)} msgs ${String(samples.length).padStart(7)} events  message p50 ${ms(pct(message, 50)).padStart(7)} p99 ${ms(pct(message, 99)).padStart(7)}  delta p99 ${ms(pct(delta, 99)).padStart(7)}  all p99 ${ms(pct(all, 99)).padStart(7)}  lost ${lost}  CPU ${cpu.toFixed(2)} s = ${perDelivery.toFixed(1)} µs/event`,
  );
  console.log(
    `${"".padEnd(28)} idle ${(idlePerSecond * 1000).toFixed(1)} ms/s${unwatched ? `, one reply's write path alone ${(replyAlone * 1000).toFixed(2)} ms` : ""}; fan-out alone ${perFanOut.toFixed(1)} µs/event`,
  );
  void bases;
  return { perDelivery, perFanOut, p99: pct(all, 99) };
}

/** Every client's connection cut at once (the server stays up), or the server restarted. */
async function storm(
  label: string,
  clients: Client[],
  post: (t: Ticket, text: string) => Promise<number | null>,
  tickets: Ticket[],
  restart?: () => Promise<void>,
  replays = true,
  pid?: number,
) {
  const run = poster(post, tickets, RATE);
  await sleep(1000);
  const cpuAtCut = pid ? cpuSeconds(pid) : 0;
  const cutAt = Date.now();
  let backUpAt = cutAt;
  if (restart) {
    await restart();
    backUpAt = Date.now();
  } else for (const c of clients) c.socket.io.engine.close();
  await sleep(50);
  const allBack = await waitUntil(() => clients.every((c) => c.joined && c.backAt > cutAt), 90_000);
  const back = Date.now();
  const cpu = pid ? `, server CPU ${(cpuSeconds(pid) - cpuAtCut).toFixed(2)} s until then` : "";
  // a few more messages after everyone is back, then what each client holds
  await sleep(1000);
  await run.stop();
  await sleep(1500);
  let missing = 0;
  for (const c of clients) for (const id of run.written.get(c.ticket.id) ?? []) if (!c.seen.has(id)) missing++;
  const notBack = clients.filter((c) => !(c.joined && c.backAt > cutAt)).length;
  console.log(
    `${label.padEnd(28)} all back ${allBack ? `${((back - cutAt) / 1000).toFixed(2)} s after the cut${restart ? `, ${((back - backUpAt) / 1000).toFixed(2)} s after the server was up` : ""}${cpu}` : `NOT within 90 s (${notBack} not back)`}; messages written ${[...run.written.values()].flat().length}, missing from clients ${replays ? missing : `${missing} (a relay replays nothing)`}`,
  );
}

// ---- visible tabs: text on screen ----

/** In each tab: the first moment each bench message's text is in the DOM, on the machine's clock. */
const STAMP_SCRIPT = `
  window.__seen = {};
  new MutationObserver(() => {
    const at = performance.timeOrigin + performance.now();
    for (const el of document.querySelectorAll(".text-body")) {
      const m = /^rt-\\d+-\\w+/.exec(el.textContent || "");
      if (m && !(m[0] in window.__seen)) window.__seen[m[0]] = at;
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
`;

async function tabs(base: string, agents: Agent[], ticket: Ticket, adminToken: string) {
  const browser = await launchChromium();
  const pages = [];
  const opened = Date.now();
  for (let i = 0; i < TABS; i++) {
    const page = await signedInPage(browser, base, agents[i].cookie, STAMP_SCRIPT);
    await page.goto(`${base}/ticket/${ticket.number}`);
    pages.push(page);
  }
  for (const page of pages) await page.locator('.conversation[data-live="on"]').waitFor({ timeout: 120_000 });
  const visible = (await Promise.all(pages.map((p) => p.evaluate(() => document.visibilityState)))).filter((v) => v === "visible").length;
  console.log(`  ${TABS} tabs open and live in ${((Date.now() - opened) / 1000).toFixed(1)} s (${visible} visible)`);

  // the renderers' own work (script, layout, style, paint tasks), read from each tab's DevTools
  // metrics: CPU per message per tab is what tells how many tabs a machine can keep live
  const sessions = await Promise.all(pages.map((p) => p.context().newCDPSession(p)));
  // where it goes: script, style recalculation, layout (the rest of a task is paint and the like)
  const KINDS = ["TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration"] as const;
  const taskSeconds = async () => {
    const sum = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<(typeof KINDS)[number], number>;
    for (const s of sessions) {
      const { metrics } = await s.send("Performance.getMetrics");
      for (const k of KINDS) sum[k] += metrics.find((m) => m.name === k)?.value ?? 0;
    }
    return sum;
  };
  await Promise.all(sessions.map((s) => s.send("Performance.enable")));
  const tasksBefore = await taskSeconds();
  // BENCH_TAB_PROFILE=file.cpuprofile: the first tab's CPU profile over the run (open it in DevTools)
  const profile = process.env.BENCH_TAB_PROFILE;
  if (profile) await sessions[0].send("Profiler.enable").then(() => sessions[0].send("Profiler.start"));
  if (process.env.BENCH_TAB_TRACE)
    await browser.startTracing(pages[0], {
      path: process.env.BENCH_TAB_TRACE,
      categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "cc", "gpu", "viz", "toplevel"],
    });
  const texts = new Map<string, number>();
  const post = productPost(base, adminToken);
  const run = poster(
    async (t, text) => {
      const id = await post(t, text);
      if (id) texts.set(text.slice(0, text.lastIndexOf("-") + 7), id);
      return id;
    },
    [ticket],
    TAB_RATE,
  );
  await sleep(TAB_SECONDS * 1000);
  await run.stop();
  await sleep(3000);
  const tasksAfter = await taskSeconds();
  if (process.env.BENCH_TAB_TRACE) await browser.stopTracing();
  const per = (k: (typeof KINDS)[number]) => (tasksAfter[k] - tasksBefore[k]) / TABS / Math.max(1, texts.size);
  const perMessage = per("TaskDuration");
  if (profile) fs.writeFileSync(profile, JSON.stringify((await sessions[0].send("Profiler.stop")).profile));
  console.log(
    `  renderer work per message per tab ${(perMessage * 1000).toFixed(2)} ms (script ${(per("ScriptDuration") * 1000).toFixed(2)}, style ${(per("RecalcStyleDuration") * 1000).toFixed(2)}, layout ${(per("LayoutDuration") * 1000).toFixed(2)}): 100 tabs at ${TAB_RATE}/s need ${(perMessage * 100 * TAB_RATE).toFixed(2)} cores for the pages alone`,
  );
  const commits = commitTimes([...texts.values()]);
  const onScreen: number[] = [];
  let missing = 0;
  for (const page of pages) {
    const seen = await page.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
    for (const [text, id] of texts) {
      const key = Object.keys(seen).find((k) => text.startsWith(k) || k.startsWith(text));
      if (key === undefined) missing++;
      else onScreen.push(seen[key] - commits.get(id)!);
    }
  }
  console.log(
    `  text on screen, ${TABS} tabs, ${texts.size} messages at ${TAB_RATE}/s: p50 ${ms(pct(onScreen, 50))} p95 ${ms(pct(onScreen, 95))} p99 ${ms(pct(onScreen, 99))}, not on screen ${missing}`,
  );
  await browser.close();
}

async function main() {
  const cpus = os.cpus();
  console.log(
    `machine: ${cpus[0]?.model} x ${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB memory, node ${process.version}, ${os.platform()} ${os.release()}, load average ${loadavg()}`,
  );
  console.log(
    `server: ${SERVER_DIR}${LEGACY ? " (clients as before: fixed 5 s retries, four loaders after a reconnect)" : ""}; ${SOCKETS} sockets in ${ROOMS} ticket rooms, ${RATE} messages/s for ${SECONDS} s`,
  );
  const base = `http://localhost:${PORT}`;
  if (
    await fetch(`${base}/healthz`).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`port ${PORT} is taken (BENCH_PORT)`);
  let node = spawnNode(PORT);
  await waitHealthy(base, 120_000);
  const { agents, adminToken, tickets } = await prepareWorkspace(path.join(dataDir, "omnidesk.sqlite"), {
    agents: Math.max(SOCKETS, TABS),
    tickets: ROOMS + 1,
    department: SUPPORT,
  });
  const rooms = tickets.slice(0, ROOMS);
  const unwatched = unwatchedTicket();
  const samples: Sample[] = [];

  if (PHASES.includes("steady") || PHASES.includes("storm")) {
    const relay = spawnRelay(PORT + 2);
    await waitHealthy(`http://localhost:${PORT + 2}`, 30_000).catch(() => undefined);
    await sleep(500);
    const relaySamples: Sample[] = [];
    const relayClients = await connectAll([`http://localhost:${PORT + 2}`], agents, rooms, relaySamples, true);
    const floor = await steady("relay, one process", [], [relay.pid!], relayPost(`http://localhost:${PORT + 2}`), relayClients, relaySamples, rooms, true);
    if (PHASES.includes("storm"))
      await storm("relay, connections cut", relayClients, relayPost(`http://localhost:${PORT + 2}`), rooms, undefined, false, relay.pid);
    for (const c of relayClients) c.socket.close();
    await stop(relay);

    const clients = await connectAll([base], agents, rooms, samples, false);
    const one = await steady("product, one node", [base], [node.pid!], productPost(base, adminToken), clients, samples, rooms, false, unwatched);
    console.log(
      `  CPU per event: ${(one.perDelivery / floor.perDelivery).toFixed(2)}x the relay's with the replies' own writes, ${(one.perFanOut / floor.perFanOut).toFixed(2)}x for the fan-out alone (target within 1.5x); p99 target under 50 ms`,
    );
    if (PHASES.includes("storm")) {
      await storm("product, connections cut", clients, productPost(base, adminToken), rooms, undefined, true, node.pid);
      await storm("product, server restarted", clients, productPost(base, adminToken), rooms, async () => {
        await stop(node);
        node = spawnNode(PORT);
        await waitHealthy(base, 60_000);
      });
    }
    for (const c of clients) c.socket.close();
    if (PHASES.includes("cluster")) {
      await stop(node);
      const key = `omnidesk-bench-${process.pid}`;
      node = spawnNode(PORT, { REDIS_URL: "redis://127.0.0.1:6379", REDIS_KEY: key });
      const node2 = spawnNode(PORT + 1, { REDIS_URL: "redis://127.0.0.1:6379", REDIS_KEY: key });
      await Promise.all([waitHealthy(base, 60_000), waitHealthy(`http://localhost:${PORT + 1}`, 60_000)]);
      const both = [base, `http://localhost:${PORT + 1}`];
      const twoClients = await connectAll(both, agents, rooms, samples, false);
      const two = await steady(
        "product, two nodes + Redis",
        both,
        [node.pid!, node2.pid!],
        productPost(base, adminToken),
        twoClients,
        samples,
        rooms,
        false,
        unwatched,
      );
      console.log(
        `  two nodes: CPU per event ${(two.perDelivery / one.perDelivery).toFixed(2)}x one node's (fan-out alone ${(two.perFanOut / one.perFanOut).toFixed(2)}x), p99 ${ms(two.p99)} (target within 1.5x of one node)`,
      );
      for (const c of twoClients) c.socket.close();
      await stop(node2);
      await stop(node);
      node = spawnNode(PORT);
      await waitHealthy(base, 60_000);
    }
  }
  if (PHASES.includes("tabs")) await tabs(base, agents, tickets[ROOMS] ?? tickets[0], adminToken);
  await stop(node);
  console.log(`load average at the end ${loadavg()} (other work on this machine skews every figure)`);
}

// a failure anywhere still stops the servers this bench started
process.on("uncaughtException", (error) => {
  console.error(error);
  for (const child of children) child.kill("SIGTERM");
  process.exit(1);
});

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.all(children.map(stop));
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit();
  });
