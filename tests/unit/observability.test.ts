// Logs and metrics (issue 24 item 4) through the pieces server.ts mounts, over real loopback
// connections: an Express app with the request observer and /metrics, labelled by the real route
// table of remix.config.js (a stand-in answers in place of Remix), socket.io with a client, the
// job worker and the SMTP listener on a temporary SQLite database. The built server is scraped in
// tests/e2e/metrics.spec.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import nodemailer from "nodemailer";
import { Server as SocketServer } from "socket.io";
import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import { UNSAFE_defineRoutes as defineRoutes } from "@remix-run/dev";
import type { ServerBuild } from "@remix-run/node";
import remixConfig from "../../remix.config.js";
import { createTestDb, type TestDb } from "./harness";
import { captureLogs, log } from "~/ops/log.server";
import { metricsAccess, observeHttp, remixRoutes, serveMetrics } from "~/ops/http.server";
import { observeSockets } from "~/ops/sockets.server";
import { publish, registerRealtime } from "~/realtime.server";
import { safely } from "~/socket-tools.server";
import { createJobWorker, defineJobKind, enqueue } from "~/jobs/queue.server";
import { DEMO_MAILBOX, seedDemo } from "~/seed/seed";
import { startSmtpListener, type SmtpListener } from "@plugins/email/smtp-listener.server";

// stored mail goes under DATA_DIR/files: a throwaway one, set before storage is first used
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-obs-"));
const previous = { dataDir: process.env.DATA_DIR, token: process.env.METRICS_TOKEN };
process.env.DATA_DIR = dataDir;
const TOKEN = "scrape-me-3f9a";

/** The route table as the build has it: remix.config.js's routes under root. */
function routeTable() {
  const routes = (remixConfig as { routes: (d: typeof defineRoutes) => Record<string, object> }).routes(defineRoutes);
  return { root: { id: "root", path: "" }, ...routes } as unknown as ServerBuild["routes"];
}

type Sample = { name: string; labels: Record<string, string>; value: number };
/** The text exposition format, one sample per line. */
function parse(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}
const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

let t: TestDb;
let server: http.Server;
let io: SocketServer;
let base: string;
let smtp: SmtpListener;
const clients: ClientSocket[] = [];
const logs = captureLogs("debug");

beforeAll(async () => {
  t = await createTestDb("sqlite");
  await seedDemo(t.handle, { tickets: 0 });

  const app = express();
  app.use(observeHttp(remixRoutes(routeTable())));
  app.get("/metrics", serveMetrics);
  // in place of Remix: logs what a careless handler might, and answers
  app.all("*", (req, res) => {
    log.info({ headers: { cookie: req.get("Cookie") }, password: "hunter2", user: { token: "tok-123" } }, "handling");
    res.status(req.path === "/settings" ? 500 : 200).send("ok");
  });
  server = http.createServer(app);
  io = new SocketServer(server, { serveClient: false });
  io.use((socket, next) => {
    socket.data.userId = 7;
    next();
  });
  io.on("connection", (socket) => {
    void socket.join("ticket:1");
    socket.on(
      "hello",
      safely(socket, async () => log.info("socket said hello")),
    );
  });
  observeSockets(io);
  registerRealtime(io);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  smtp = await startSmtpListener({ port: 0, cacheMs: 0 });
});

afterAll(async () => {
  logs.restore();
  for (const c of clients) c.disconnect();
  registerRealtime(undefined);
  await smtp?.close();
  await new Promise((resolve) => io.close(resolve));
  await t?.cleanup();
  process.env.DATA_DIR = previous.dataDir;
  if (previous.token === undefined) delete process.env.METRICS_TOKEN;
  else process.env.METRICS_TOKEN = previous.token;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("logs", () => {
  it("gives every request an id, echoes it, and carries it into the lines logged while it runs; secrets are redacted", async () => {
    const mine = await fetch(`${base}/ticket/100001`, { headers: { "X-Request-Id": "lb-7f3a.2", Cookie: "omnidesk_session=s3cr3t-cookie" } });
    expect(mine.headers.get("X-Request-Id")).toBe("lb-7f3a.2");
    const junk = await fetch(`${base}/ticket/100002`, { headers: { "X-Request-Id": "<script>alert(1)</script>" } });
    const made = junk.headers.get("X-Request-Id")!;
    expect(made).toMatch(/^[0-9a-f-]{36}$/);

    const inside = logs.lines.filter((l) => l.msg === "handling");
    expect(inside.map((l) => l.reqId)).toEqual(["lb-7f3a.2", made]);
    expect(inside[0]).toMatchObject({ headers: { cookie: "[redacted]" }, password: "[redacted]", user: { token: "[redacted]" } });
    const everything = JSON.stringify(logs.lines);
    expect(everything).not.toContain("s3cr3t-cookie");
    expect(everything).not.toContain("hunter2");
    expect(everything).not.toContain("tok-123");
  });

  it("writes one access line per request: method, route pattern, status, duration; no query string, no link token", async () => {
    await fetch(`${base}/invite/INVITE-TOKEN-42?next=%2Fsecret-search`, { headers: { "X-Request-Id": "access-1" } });
    const access = logs.lines.filter((l) => l.msg === "request" && l.reqId === "access-1");
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ level: "info", method: "GET", route: "/invite/:token", path: "/invite/:token", status: 200 });
    expect(typeof access[0].ms).toBe("number");
    expect(JSON.stringify(logs.lines)).not.toMatch(/INVITE-TOKEN-42|secret-search/);

    await fetch(`${base}/settings`, { headers: { "X-Request-Id": "access-2" } });
    expect(logs.lines.find((l) => l.msg === "request" && l.reqId === "access-2")).toMatchObject({ level: "error", status: 500, route: "/settings" });
  });

  it("puts the socket's id and user on lines logged while it is handled", async () => {
    const client = connect(base, { transports: ["websocket"] });
    clients.push(client);
    await new Promise<void>((resolve) => client.once("connect", resolve));
    client.emit("hello");
    await expect.poll(() => logs.lines.find((l) => l.msg === "socket said hello")).toMatchObject({ socketId: client.id, userId: 7 });
  });

  it("puts the job's id and kind on lines logged while it runs, with the error as an object", async () => {
    defineJobKind("test.flaky", {
      async run() {
        log.info("trying the flaky thing");
        throw new Error("provider said no");
      },
    });
    await enqueue(undefined, { kind: "test.flaky", key: "flaky-1" });
    await createJobWorker().runOnce();
    const { db, schema } = t.handle;
    const [job] = await db.select().from(schema.jobs);
    const lines = logs.lines.filter((l) => l.jobKind === "test.flaky");
    expect(lines.map((l) => l.msg)).toEqual(["trying the flaky thing", "job test.flaky flaky-1: attempt 1 failed"]);
    expect(lines.every((l) => l.jobId === job.id)).toBe(true);
    expect(lines[1]).toMatchObject({ level: "warn", component: "jobs", err: { message: "provider said no" } });
  });
});

describe("/metrics", () => {
  const scrape = async (headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }) => fetch(`${base}/metrics`, { headers });

  it("with METRICS_TOKEN set, answers only the bearer of the token", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    expect((await scrape({})).status).toBe(401);
    expect((await scrape({ Authorization: "Bearer wrong" })).status).toBe(401);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Content-Type")).toMatch(/^text\/plain/);
  });

  it("without METRICS_TOKEN, answers this machine only, and never a forwarded request", async () => {
    delete process.env.METRICS_TOKEN;
    expect((await scrape({})).status).toBe(200);
    expect((await scrape({ "X-Forwarded-For": "203.0.113.9" })).status).toBe(404);
    const from = (remoteAddress: string) => ({ get: () => undefined, socket: { remoteAddress } }) as unknown as Parameters<typeof metricsAccess>[0];
    expect(metricsAccess(from("10.1.2.3"), "")).toBe(404);
    expect(metricsAccess(from("::ffff:127.0.0.1"), "")).toBe(200);
  });

  it("has request latency by route pattern (one series for every ticket), sockets, rooms, emits, queue depth and job failures", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    for (const n of [100003, 100004, 100005]) await fetch(`${base}/ticket/${n}?q=${n}`);
    const client = connect(base, { transports: ["websocket"] });
    clients.push(client);
    await new Promise<void>((resolve) => client.once("connect", resolve));
    publish("ticket:1", "newMessage", { ticketId: 1 });
    await enqueue(undefined, { kind: "test.waiting", key: "waiting-1" });

    const samples = parse(await (await scrape()).text());
    const ticket = find(samples, "omnidesk_http_request_duration_seconds_count", { route: "/ticket/:id", method: "GET", status: "2xx" });
    expect(ticket).toHaveLength(1);
    // the two of the logs test and these three
    expect(ticket[0].value).toBe(5);
    const routes = new Set(find(samples, "omnidesk_http_request_duration_seconds_count").map((s) => s.labels.route));
    expect([...routes].some((r) => /\d{6}|\?/.test(r))).toBe(false);
    expect(find(samples, "omnidesk_http_request_duration_seconds_count", { route: "/settings", status: "5xx" })[0].value).toBe(1);

    // the two clients of this file are connected
    expect(find(samples, "omnidesk_sockets", { namespace: "/" })[0].value).toBe(2);
    expect(find(samples, "omnidesk_socket_rooms", { namespace: "/" })[0].value).toBe(1);
    expect(find(samples, "omnidesk_realtime_emit_seconds_count", { event: "newMessage" })[0].value).toBeGreaterThanOrEqual(1);
    expect(find(samples, "omnidesk_jobs_pending", { kind: "test.waiting", state: "queued" })[0].value).toBe(1);
    // retried later: still pending
    expect(find(samples, "omnidesk_jobs_pending", { kind: "test.flaky", state: "queued" })[0].value).toBe(1);
    expect(find(samples, "omnidesk_job_failures_total", { kind: "test.flaky", final: "false" })[0].value).toBe(1);
    expect(find(samples, "omnidesk_job_duration_seconds_count", { kind: "test.flaky", ok: "false" })[0].value).toBe(1);
    expect(find(samples, "process_resident_memory_bytes")).toHaveLength(1);
  });

  it("counts mail the SMTP listener took, and every inbound event by source and channel", async () => {
    const raw = `From: carol@example.com\r\nTo: ${DEMO_MAILBOX}\r\nSubject: Where is my order\r\nMessage-ID: <obs-1@example.com>\r\n\r\nHello\r\n`;
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: smtp.port, secure: false, ignoreTLS: true });
    for (let i = 0; i < 2; i++) await transport.sendMail({ envelope: { from: "carol@example.com", to: DEMO_MAILBOX }, raw });
    const samples = parse(await (await scrape()).text());
    expect(find(samples, "omnidesk_smtp_messages_total", { outcome: "stored" })[0].value).toBe(1);
    expect(find(samples, "omnidesk_smtp_messages_total", { outcome: "duplicate" })[0].value).toBe(1);
    expect(find(samples, "omnidesk_inbound_events_total", { source: "smtp", channel: "email", outcome: "new" })[0].value).toBe(1);
    expect(find(samples, "omnidesk_inbound_events_total", { source: "smtp", channel: "email", outcome: "duplicate" })[0].value).toBe(1);
  });
});
