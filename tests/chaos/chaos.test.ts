// Chaos on the built server (ADR 045), on loopback, with real processes: SIGTERM under keep-alive
// clients drains (every running request answered, exit 0, nothing stored without an answer);
// kill -9 during writes loses and doubles nothing once the unanswered are resent with their keys;
// under two nodes a Redis kill kills no node, /readyz follows Redis and the database both ways
// within 5 s, and the events sent meanwhile reach the other node's browser after it.
// Figures are printed (the note quotes them); `npm run test:chaos`, after `npm run build`.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { io as connect, type Socket } from "socket.io-client";
import { createTestDb, DIALECTS, type TestDb } from "../unit/harness";
import { freePort, get, postJson, SECRET, sleep, startNode, startRedis, within, type Answer, type Node } from "./harness";
import { seedDemo } from "~/seed/seed";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername } from "~/accounts/users.server";
import { rows } from "@db/client";

process.env.SESSION_SECRET = SECRET;
const REPLY = "/api/ticket/message/reply";
const ok = (a: Answer) => "status" in a && a.status === 200;

async function storedCounts(t: TestDb, prefix: string) {
  const found = await rows<{ body: string; n: number | string }>(
    sql`select body, count(*) as n from messages where body like ${`${prefix}%`} group by body`,
    t.handle,
  );
  return new Map(found.map((r) => [r.body, Number(r.n)]));
}

/** `workers` keep-alive clients sending replies (text = Idempotency-Key) until told to stop or refused. */
function replyStream(port: () => number, ctx: { token: string; ticketId: number }, prefix: string, workers = 12) {
  const outcomes = new Map<string, Answer>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: workers });
  let stop = false;
  const done = Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const text = `${prefix} ${w}-${i}`;
        const answer = await postJson(port(), REPLY, { ticket_id: ctx.ticketId, message: text, _token: ctx.token }, { "Idempotency-Key": text }, agent);
        outcomes.set(text, answer);
        if (!ok(answer)) break;
      }
    }),
  );
  return {
    outcomes,
    async stop() {
      stop = true;
      await done;
      agent.destroy();
    },
    done,
  };
}

describe.each(DIALECTS)("chaos on %s", (dialect) => {
  let t: TestDb;
  const ctx = { token: "", ticketId: 0 };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 20, now: Date.now() });
    ctx.token = (await createSession((await findUserByUsername("admin"))!.id)).token;
    [{ id: ctx.ticketId }] = await t.handle.db.select({ id: t.handle.schema.tickets.id }).from(t.handle.schema.tickets).limit(1);
  });
  afterAll(async () => t?.cleanup());

  it("SIGTERM with keep-alive clients: every running request is answered, exit 0, nothing stored without an answer", async () => {
    const node = await startNode({ DATABASE_URL: t.url });
    const stream = replyStream(() => node.port, ctx, `drain-${dialect}`);
    await sleep(1500);
    node.proc.kill("SIGTERM");
    const code = await node.exited;
    await stream.stop();
    const stored = await storedCounts(t, `drain-${dialect}`);
    const answered = [...stream.outcomes].filter(([, a]) => ok(a));
    const unanswered = [...stream.outcomes].filter(([, a]) => !ok(a));
    const log = node.output();
    const inFlight = Number(/draining (\d+) running requests/.exec(log)?.[1]);
    const drainMs = Number(/stopped in (\d+) ms/.exec(log)?.[1]);
    console.log(
      `[chaos ${dialect}] drain: ${inFlight} requests in flight at SIGTERM, ${stream.outcomes.size} sent, ${answered.length} answered 200, ` +
        `${unanswered.length} refused or cut (${unanswered.map(([, a]) => ("status" in a ? a.status : a.error)).join(", ")}), ` +
        `${[...stored.values()].reduce((a, b) => a + b, 0)} stored, ${[...stored.values()].filter((n) => n > 1).length} duplicates, drained in ${drainMs} ms, exit ${code}`,
    );
    expect(code).toBe(0);
    expect(answered.length).toBeGreaterThan(0);
    for (const [text] of answered) expect(stored.get(text), text).toBe(1);
    for (const [text] of unanswered) expect(stored.get(text) ?? 0, text).toBe(0);
  });

  it("kill -9 during writes: after a restart, resending the unanswered with their keys stores every reply exactly once", async () => {
    const node = await startNode({ DATABASE_URL: t.url });
    let port = node.port;
    const stream = replyStream(() => port, ctx, `kill-${dialect}`);
    await sleep(1500);
    node.proc.kill("SIGKILL");
    await node.exited;
    await stream.stop();
    const cut = [...stream.outcomes].filter(([, a]) => !ok(a)).map(([text]) => text);
    const storedBeforeResend = await storedCounts(t, `kill-${dialect}`);
    const storedUnanswered = cut.filter((text) => storedBeforeResend.get(text)).length;
    const again = await startNode({ DATABASE_URL: t.url });
    port = again.port;
    const agent = new http.Agent({ keepAlive: true });
    for (const text of cut) {
      const answer = await postJson(port, REPLY, { ticket_id: ctx.ticketId, message: text, _token: ctx.token }, { "Idempotency-Key": text }, agent);
      expect(ok(answer), `${text}: ${JSON.stringify(answer)}`).toBe(true);
    }
    agent.destroy();
    again.proc.kill("SIGTERM");
    expect(await again.exited).toBe(0);
    const stored = await storedCounts(t, `kill-${dialect}`);
    console.log(
      `[chaos ${dialect}] kill -9: ${stream.outcomes.size} sent, ${stream.outcomes.size - cut.length} answered, ${cut.length} cut ` +
        `(${storedUnanswered} of them stored before the answer was lost), after resending ${[...stored.values()].reduce((a, b) => a + b, 0)} stored, ` +
        `${[...stored.values()].filter((n) => n > 1).length} duplicates`,
    );
    for (const text of stream.outcomes.keys()) expect(stored.get(text), text).toBe(1);
    if (dialect === "sqlite") expect(await rows(sql`pragma integrity_check`, t.handle)).toEqual([{ integrity_check: "ok" }]);
  });
});

describe("outages under two nodes on pg", () => {
  let t: TestDb;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let proxy: ReturnType<typeof tcpProxy>;
  let a: Node, b: Node;
  let socket: Socket;
  const ctx = { token: "", ticketId: 0 };
  const live = new Set<number>();
  let resyncs = 0;

  beforeAll(async () => {
    t = await createTestDb("pg");
    await seedDemo(t.handle, { tickets: 10, now: Date.now() });
    ctx.token = (await createSession((await findUserByUsername("admin"))!.id)).token;
    [{ id: ctx.ticketId }] = await t.handle.db.select({ id: t.handle.schema.tickets.id }).from(t.handle.schema.tickets).limit(1);
    redis = await startRedis();
    // node B reaches the database through a proxy the test can cut
    proxy = tcpProxy(await freePort(), 5432);
    await proxy.open();
    const viaProxy = t.url.replace(/@[^/]+\//, `@127.0.0.1:${proxy.port}/`);
    const env = { REDIS_URL: redis.url, REDIS_KEY: `chaos-${Date.now()}` };
    [a, b] = await Promise.all([startNode({ ...env, DATABASE_URL: t.url }), startNode({ ...env, DATABASE_URL: viaProxy })]);
    const { sessionCookie } = await import("~/cookies.server");
    socket = connect(`http://127.0.0.1:${b.port}`, { transports: ["websocket"], extraHeaders: { Cookie: await sessionCookie().serialize(ctx.token) } });
    socket.on("newMessage", (e: { messages?: { id: number }[] }) => e.messages?.forEach((m) => live.add(m.id)));
    socket.on("resync", () => resyncs++);
    await new Promise<void>((resolve, reject) => (socket.once("connect", () => resolve()), socket.once("connect_error", reject)));
    expect(await socket.emitWithAck("joinRoom", { ticketId: ctx.ticketId })).toEqual({ ok: true });
  });
  afterAll(async () => {
    socket?.close();
    for (const n of [a, b]) n?.proc.kill("SIGKILL");
    await redis?.stop();
    await proxy?.close();
    await t?.cleanup();
  });

  const agent = new http.Agent({ keepAlive: true });
  const send = async (text: string) => {
    const answer = await postJson(a.port, REPLY, { ticket_id: ctx.ticketId, message: text, _token: ctx.token }, { "Idempotency-Key": text }, agent);
    expect(ok(answer), JSON.stringify(answer)).toBe(true);
    return JSON.parse((answer as { body: string }).body).id as number;
  };
  const ready = async (n: Node) => (await get(n.port, "/readyz")).status;

  it("a Redis kill kills no node, /readyz follows it both ways within 5 s, and the other node's browser gets every message after", async () => {
    const before = await send("before the outage");
    await within(5000, async () => live.has(before));
    await redis.stop();
    const down = await within(5000, async () => (await ready(a)) === 503 && (await ready(b)) === 503);
    const during = [];
    for (let i = 0; i < 5; i++) during.push(await send(`during the Redis outage ${i}`));
    expect((await get(a.port, "/healthz")).status).toBe(200);
    expect((await get(b.port, "/healthz")).status).toBe(200);
    redis = await startRedis(redis.port);
    const up = await within(5000, async () => (await ready(a)) === 200 && (await ready(b)) === 200);
    await within(10_000, async () => resyncs > 0);
    // the browser's catch-up on resync: what it missed, from the database
    const lastSeen = Math.max(...[...live].filter((id) => id <= before));
    const res = await fetch(`http://127.0.0.1:${b.port}/api/ticket/data/check/${ctx.ticketId}/${lastSeen}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: (socket.io.opts.extraHeaders as Record<string, string>).Cookie },
      body: JSON.stringify({ view: "page" }),
    });
    const replayed = ((await res.json()) as { messages: { id: number }[] }).messages.map((m) => m.id);
    const missedLive = during.filter((id) => !live.has(id));
    console.log(
      `[chaos pg] Redis kill: /readyz 503 on both nodes after ${down} ms, 200 after ${up} ms of its return; ` +
        `${during.length} messages sent meanwhile, ${during.length - missedLive.length} arrived live, ${missedLive.length} by the catch-up after resync`,
    );
    for (const id of during) expect(live.has(id) || replayed.includes(id), `message ${id}`).toBe(true);
    expect(a.proc.exitCode).toBeNull();
    expect(b.proc.exitCode).toBeNull();
  });

  it("a node started while Redis is away comes up not ready, and ready within 5 s of Redis answering", async () => {
    const missing = await freePort();
    const c = await startNode({ DATABASE_URL: t.url, REDIS_URL: `redis://127.0.0.1:${missing}`, REDIS_KEY: `chaos-late-${Date.now()}` });
    try {
      expect(await ready(c)).toBe(503);
      const late = await startRedis(missing);
      const up = await within(5000, async () => (await ready(c)) === 200);
      console.log(`[chaos pg] node started without Redis: /readyz 503, then 200 after ${up} ms of Redis starting`);
      await late.stop();
    } finally {
      c.proc.kill("SIGKILL");
    }
  });

  it("/readyz answers 503 within 5 s of the database going away and 200 within 5 s of its return; the node lives on", async () => {
    expect(await ready(b)).toBe(200);
    await proxy.close();
    const down = await within(5000, async () => (await ready(b)) === 503);
    expect((await get(b.port, "/healthz")).status).toBe(200);
    await proxy.open();
    const up = await within(5000, async () => (await ready(b)) === 200);
    console.log(`[chaos pg] database cut: /readyz 503 after ${down} ms, 200 after ${up} ms of its return`);
    expect(b.proc.exitCode).toBeNull();
  });
});

/** A TCP proxy to a local port that can be cut (every connection dropped, none taken) and opened again. */
function tcpProxy(port: number, target: number) {
  let server: net.Server | undefined;
  const open = new Set<net.Socket>();
  return {
    port,
    open: () =>
      new Promise<void>((resolve) => {
        server = net.createServer((client) => {
          const upstream = net.connect(target, "127.0.0.1");
          for (const s of [client, upstream]) {
            open.add(s);
            s.on("close", () => open.delete(s));
            s.on("error", () => undefined);
          }
          client.pipe(upstream).pipe(client);
        });
        server.listen(port, "127.0.0.1", () => resolve());
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        if (!server) return resolve();
        server.close(() => resolve());
      }),
  };
}
