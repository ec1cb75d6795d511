// The built product as the benches drive it (bench/realtime.ts, bench/soak.ts): agents with
// sessions written straight into its database, socket clients that behave as its pages do, replies
// through the JSON API, signed-in chromium pages, and figures of the server process.
import fs from "node:fs";
import os from "node:os";
import { io, type Socket } from "socket.io-client";
import type { Browser } from "@playwright/test";

export type Agent = { id: number; cookie: string; token: string };
export type Ticket = { id: number; number: number };
export const SUPPORT = 2; // the Support department of the demo workspace

/**
 * `agents` new agents of `department` with a session each (cookie and API token), the admin's API
 * token, and the `tickets` most recent tickets of that department: in the database at `target`
 * (the SQLite file or a PostgreSQL URL) of a server seeded with the demo (SESSION_SECRET must be
 * the server's, so the cookies signed here are its own).
 */
export async function prepareWorkspace(target: string, opts: { agents: number; tickets: number; department?: number; prefix?: string }) {
  const { openDatabase, setDb } = await import("../db/client");
  const { createSession } = await import("../app/accounts/sessions.server");
  const { sessionCookie } = await import("../app/cookies.server");
  const { and, desc, eq, ne } = await import("drizzle-orm");
  const department = opts.department ?? SUPPORT;
  const handle = openDatabase(target);
  setDb(handle);
  const { db, schema } = handle;
  const now = Date.now();
  const rows = Array.from({ length: opts.agents }, (_, i) => ({
    username: `${opts.prefix ?? "rt_agent"}_${i}`,
    name: `Bench Agent ${i}`,
    type: "agent",
    passwordHash: "!",
    departmentId: department,
    createdAt: now,
  }));
  const agents: Agent[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = await db
      .insert(schema.users)
      .values(rows.slice(i, i + 200))
      .returning({ id: schema.users.id });
    for (const u of inserted) {
      const { token } = await createSession(u.id);
      agents.push({ id: u.id, token, cookie: (await sessionCookie().serialize(token)).split(";")[0] });
    }
  }
  const [admin] = await db.select().from(schema.users).where(eq(schema.users.username, "admin"));
  const adminToken = (await createSession(admin.id)).token;
  const t = schema.tickets;
  const tickets: Ticket[] = (
    await db
      .select({ id: t.id, number: t.ticketNumber })
      .from(t)
      .where(and(eq(t.departmentId, department), eq(t.kind, "ticket"), ne(t.channel, "chat")))
      .orderBy(desc(t.updatedAt))
      .limit(opts.tickets)
  ).map((r) => ({ id: r.id, number: r.number }));
  await handle.close();
  setDb(undefined);
  return { agents, adminToken, tickets };
}

// ---- socket clients that behave as the product's pages do ----

export type Client = {
  socket: Socket;
  ticket: Ticket;
  base: string;
  cookie: string;
  seen: Set<number>;
  down: boolean;
  backAt: number;
  joined: boolean;
};

/** legacy: as the pages before the realtime work (fixed 5 s retries, four loaders after a reconnect); relay: bench/realtime-relay.ts. */
type ClientOptions = {
  legacy?: boolean;
  relay?: boolean;
  onMessage?: (id: number, at: number) => void;
  onDelta?: (id: number, at: number) => void;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function productOptions(legacy?: boolean) {
  if (legacy) return { transports: ["websocket"], reconnectionDelay: 5000, reconnectionDelayMax: 5000, randomizationFactor: 0 };
  return (await import("../app/realtime-store")).SOCKET_OPTIONS;
}
const retryDelay = async (legacy?: boolean) => (legacy ? 5000 : (await import("../app/realtime-store")).retryDelay());

/** What a page asks after it is back: the replay (now), or its four loaders (before). */
async function catchUp(c: Client, legacy?: boolean) {
  const headers = { cookie: c.cookie, Origin: c.base };
  if (legacy) {
    const answers = await Promise.all(
      ["root", "shell", "frame", "plugin/tickets/1"].map((id) => fetch(`${c.base}/ticket/${c.ticket.number}?_data=${encodeURIComponent(id)}`, { headers })),
    );
    const conversation = (await answers[3].json()) as { messages?: { id: number }[] };
    await Promise.all(answers.slice(0, 3).map((a) => a.text()));
    for (const m of conversation.messages ?? []) c.seen.add(m.id);
    return;
  }
  for (let more = true; more;) {
    const last = Math.max(0, ...c.seen);
    const res = await fetch(`${c.base}/api/ticket/data/check/${c.ticket.id}/${last}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ view: "page", ts: 0 }),
    });
    const answer = (await res.json()) as { messages: { id: number }[]; more: boolean };
    for (const m of answer.messages) c.seen.add(m.id);
    more = answer.more && answer.messages.length > 0;
  }
}

/** A socket of a page open on `ticket`: joins its room and catches up on every (re)connect. */
export async function connectClient(base: string, cookie: string, ticket: Ticket, opts: ClientOptions = {}): Promise<Client> {
  const { legacy, relay } = opts;
  const options = await productOptions(legacy);
  const socket = io(base, { ...options, extraHeaders: { cookie }, auth: relay ? { department: "department" } : {}, timeout: 20_000 });
  const c: Client = { socket, ticket, base, cookie, seen: new Set(), down: false, backAt: 0, joined: false };
  // as the page does: the join brings the messages after the newest one seen (not the legacy page)
  const after = () => (relay || legacy ? undefined : Math.max(0, ...c.seen));
  const join = () =>
    socket.emit("joinRoom", { ticketId: c.ticket.id, after: after() }, async (answer: { ok: boolean; messages?: { id: number }[]; more?: boolean }) => {
      if (!answer.ok) throw new Error("joinRoom refused");
      for (const m of answer.messages ?? []) c.seen.add(m.id);
      // more than one answer holds is asked page by page; a failed replay (the server swamped) is asked again shortly
      if (!relay && !legacy && (!answer.messages || answer.more))
        for (let tries = 0; ; tries++) {
          try {
            await catchUp(c);
            break;
          } catch (error) {
            if (tries > 20) throw error;
            await sleep(1000 + Math.random() * 1000);
          }
        }
      c.joined = true;
      c.backAt = Date.now();
    });
  socket.on("connect", () => {
    const wasDown = c.down;
    c.down = false;
    join();
    if (legacy && wasDown && !relay) catchUp(c, true).catch(() => undefined); // a failed reload is not retried by the old page
    if (legacy) socket.emit("tellOnline");
  });
  socket.on("disconnect", async (reason) => {
    c.down = true;
    c.joined = false;
    if (reason === "io server disconnect") setTimeout(() => socket.connect(), await retryDelay(legacy));
  });
  socket.on("newMessage", (e: { ticketId: number; messageIds?: number[] }) => {
    if (e.ticketId !== c.ticket.id) return;
    const at = Date.now();
    for (const id of e.messageIds ?? []) {
      if (!c.seen.has(id)) opts.onMessage?.(id, at);
      c.seen.add(id);
    }
  });
  socket.on("channelDataUpdated", (e: { messageIds?: number[] }) => {
    const id = e.messageIds?.[0];
    if (id) opts.onDelta?.(id, Date.now());
  });
  await new Promise<void>((resolve, reject) => {
    // a socket that never came is closed, not left retrying behind the caller's back; once it
    // came, a later connect_error (the server restarting) is socket.io's to retry, as in the page
    const refused = (error: Error) => {
      socket.close();
      reject(error);
    };
    socket.once("connect_error", refused);
    socket.once("connect", () => {
      socket.off("connect_error", refused);
      resolve();
    });
  });
  return c;
}

/** A reply through POST /api/ticket/message/reply; its id, or null when refused. `key`: its Idempotency-Key. */
export const productPost = (base: string, token: string) => async (ticket: Ticket, text: string, key?: string) => {
  const res = await fetch(`${base}/api/ticket/message/reply`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(key ? { "Idempotency-Key": key } : {}) },
    body: JSON.stringify({ _token: token, ticket_id: ticket.id, message: text }),
  });
  const answer = (await res.json()) as { result: string; id: number };
  return answer.result === "success" ? answer.id : null;
};

// ---- chromium ----

/** The machine's chromium, as light as it goes (no sandbox in the container, no GPU, no background traffic). */
export async function launchChromium() {
  const { chromium } = await import("@playwright/test");
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A new page signed in with `cookie` (its language chosen); `initScript` runs before the page's own. */
export async function signedInPage(browser: Browser, base: string, cookie: string, initScript?: string) {
  // production sets upgrade-insecure-requests; these pages are plain http on localhost
  const context = await browser.newContext({ bypassCSP: true });
  const [name, value] = cookie.split("=");
  const lng = Buffer.from(JSON.stringify("en")).toString("base64");
  await context.addCookies([
    { name, value, url: base },
    { name: "lng", value: lng, url: base },
  ]);
  // a string: tsx would wrap a function's inner functions in helpers the page does not have
  if (initScript) await context.addInitScript(initScript);
  return context.newPage();
}

// ---- figures ----

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 Hz)
}

/** The process and its descendants (a web node's forked job workers). */
export function processTree(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parent.set(Number(entry), Number(fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, p] of parent) if (p === tree[i]) tree.push(child);
  return tree;
}

/**
 * Waits (at most two minutes) until a fresh server's start-up work has settled: the demo data's
 * analysis and the garbage collection after it (about 25 s of CPU) are not what the bench measures.
 * Settled: under 2% of a core per process for 2 s.
 */
export async function settled(pids: number[]) {
  const all = () => pids.flatMap(processTree);
  const cpu = (ps: number[]) => ps.reduce((sum, p) => sum + (fs.existsSync(`/proc/${p}`) ? cpuSeconds(p) : 0), 0);
  for (let waited = 0; waited < 120_000; waited += 2000) {
    const ps = all();
    const from = cpu(ps);
    await new Promise((r) => setTimeout(r, 2000));
    if (cpu(ps) - from < 0.04 * ps.length) return;
  }
}

export const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((s.length * p) / 100) - 1)];
};

export const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
