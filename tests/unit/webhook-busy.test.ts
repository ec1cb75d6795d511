// The channel webhook door when the database cannot take a call just now: SQLite's wait for another
// process's write lock runs out (a job worker holding it; here a second connection on the file, with
// a short busy timeout), or PostgreSQL has no free connection within the connect timeout or refuses
// the connection. The provider gets 503 with Retry-After (not 500), nothing of the call is stored,
// and its retry stores every event of the batch once, through the Fetch door and Express's.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import type http from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import Database from "better-sqlite3";
import express from "express";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { isDatabaseBusy, openDatabase, pgStatementTimeoutMs, setDb, type DbHandle } from "@db/client";
import { seedDemo } from "~/seed/seed";
import { createJobWorker } from "~/jobs/queue.server";
import { saveAccount } from "@plugins/channels/accounts.server";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { BUSY_RETRY_AFTER_SECONDS, serveWebhook, webhookCall } from "@plugins/channels/webhook.server";
import { startMetaStandin, waContact, waText, whatsappBody, type MetaStandin } from "../support/meta-standin";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-webhook-busy-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Opens a handle with some environment set for its opening only (pool size, timeouts). */
function openWith(url: string, env: Record<string, string>): DbHandle {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return openDatabase(url);
  } finally {
    for (const [k, v] of Object.entries(before))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

/** A local port nothing listens on. */
async function closedPort() {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.each(DIALECTS)("webhook door while the database is busy (%s)", (dialect) => {
  let t: TestDb;
  let meta: MetaStandin;
  let accountId: number;
  let door: http.Server;
  let doorBase: string;
  let phone = 60129990000;
  const url = () => `http://desk.test/hooks/channels/${accountId}`;
  const call = (body: unknown) => webhookCall(meta.webhookRequest(url(), body), String(accountId));
  /** The same call through Express's door (serveWebhook, as server.ts mounts it). */
  const callExpress = (body: unknown) => fetch(meta.webhookRequest(`${doorBase}/hooks/channels/${accountId}`, body));
  const batchOf = (customer: string, ...texts: string[]) =>
    whatsappBody(meta.phoneNumberId, { contacts: [waContact(customer, "Busy Customer")], messages: texts.map((text) => waText(customer, text)) });
  const stored = async () => {
    const { db, schema } = t.handle;
    const events = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.accountId, accountId));
    const jobs = await db.select().from(schema.jobs);
    return { events: events.length, jobs: jobs.length };
  };
  const messagesOf = async (customer: string) => {
    const { db, schema } = t.handle;
    const tickets = await db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, accountId), eq(schema.tickets.customerId, customer)));
    expect(tickets).toHaveLength(1);
    return (await db.select().from(schema.messages).where(eq(schema.messages.ticketId, tickets[0].id))).map((m) => m.body).sort();
  };
  const runJobs = async () => {
    const w = createJobWorker({ log: () => undefined });
    let n = 0;
    while ((await w.runOnce()) > 0 && n < 50) n++;
  };
  /** The busy answer: 503, Retry-After, and nothing stored. */
  const expectBusy = async (response: Response) => {
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe(String(BUSY_RETRY_AFTER_SECONDS));
    expect(await stored()).toEqual({ events: 0, jobs: 0 });
  };
  /** The retry after the database is free again: 200, each event stored once and made a message once. */
  const expectRetryStoresOnce = async (customer: string, body: unknown) => {
    expect((await call(body)).status).toBe(200);
    expect((await callExpress(body)).status).toBe(200);
    expect(await stored()).toEqual({ events: 2, jobs: 2 });
    await runJobs();
    expect(await messagesOf(customer)).toEqual(["first", "second"]);
  };

  beforeAll(async () => {
    t = await (async () => {
      // a short lock wait, so the test need not wait out the default 5 s
      process.env.SQLITE_BUSY_TIMEOUT_MS = "150";
      try {
        return await createTestDb(dialect);
      } finally {
        delete process.env.SQLITE_BUSY_TIMEOUT_MS;
      }
    })();
    await seedDemo(t.handle, { tickets: 0 });
    meta = await startMetaStandin();
    accountId = await saveAccount({
      kind: "WHATSAPP",
      name: "WhatsApp busy",
      address: "+15550111",
      departmentId: 2,
      config: { phoneNumberId: meta.phoneNumberId, businessAccountId: meta.businessAccountId, apiBase: meta.apiBase },
      secrets: { accessToken: meta.accessToken, appSecret: meta.appSecret, verifyToken: "let-me-in" },
    });
    defineInboundJob();
    const app = express();
    app.all("/hooks/channels/:accountId", (req, res, next) => void serveWebhook(req, res).catch(next));
    door = await new Promise<http.Server>((resolve) => {
      const server = app.listen(0, "127.0.0.1", () => resolve(server));
    });
    doorBase = `http://127.0.0.1:${(door.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => door?.close(resolve));
    await meta?.close();
    await t?.cleanup();
  });
  beforeEach(async () => {
    const { db, schema } = t.handle;
    await db.delete(schema.jobs);
    await db.delete(schema.inboundEvents);
  });

  if (dialect === "sqlite")
    it("answers 503 with Retry-After while another process holds the write lock past the busy timeout, and the retry stores the batch once", async () => {
      const customer = String(++phone);
      const body = batchOf(customer, "first", "second");
      // another process (a job worker) in a write transaction on the same file
      const worker = new Database(t.url);
      try {
        worker.exec("BEGIN IMMEDIATE");
        const started = Date.now();
        await expectBusy(await call(body));
        // it waited for the lock (the busy timeout), then gave up rather than hanging
        expect(Date.now() - started).toBeGreaterThanOrEqual(140);
        await expectBusy(await callExpress(body));
      } finally {
        if (worker.inTransaction) worker.exec("ROLLBACK");
        worker.close();
      }
      await expectRetryStoresOnce(customer, body);
    });

  if (dialect === "pg") {
    it("answers 503 with Retry-After when no pool connection frees within the connect timeout, and the retry stores the batch once", async () => {
      const customer = String(++phone);
      const body = batchOf(customer, "first", "second");
      const busy = openWith(t.url, { PG_POOL_SIZE: "1", PG_CONNECT_TIMEOUT_MS: "300" });
      setDb(busy);
      // the node's only connection is busy in a long transaction
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const done = busy.transaction(async () => {
        holding();
        await gate;
      });
      try {
        await held;
        await expectBusy(await call(body));
        await expectBusy(await callExpress(body));
        release();
        await done;
        // the same node, its connection free again
        expect((await call(body)).status).toBe(200);
      } finally {
        release();
        await done;
        setDb(t.handle);
        await busy.close();
      }
      await expectRetryStoresOnce(customer, body);
    });

    it("has PostgreSQL cancel a statement that runs past PG_STATEMENT_TIMEOUT_MS, which counts as busy (503 at the door, a job tries again)", async () => {
      const limited = openWith(t.url, { PG_STATEMENT_TIMEOUT_MS: "300" });
      try {
        const slow = limited.raw(sql`select pg_sleep(2)`);
        await expect(slow).rejects.toSatisfy(isDatabaseBusy);
        await expect(slow).rejects.toMatchObject({ cause: { code: "57014" } });
        // a short one still runs, and migrations (their own connection) are not cut
        await limited.raw(sql`select pg_sleep(0.05)`);
        await limited.migrate();
      } finally {
        await limited.close();
      }
      expect(() => pgStatementTimeoutMs("-1")).toThrow(/PG_STATEMENT_TIMEOUT_MS/);
      expect(pgStatementTimeoutMs(undefined)).toBe(60_000);
    });

    it("answers 503 with Retry-After when PostgreSQL refuses the connection, and the retry stores the batch once", async () => {
      const customer = String(++phone);
      const body = batchOf(customer, "first", "second");
      const away = new URL(t.url);
      away.port = String(await closedPort());
      const gone = openDatabase(away.toString());
      setDb(gone);
      try {
        await expectBusy(await call(body));
      } finally {
        setDb(t.handle);
        await gone.close();
      }
      await expectRetryStoresOnce(customer, body);
    });
  }

  it("tells a busy database from other failures", async () => {
    const sqliteBusy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    expect(isDatabaseBusy(sqliteBusy)).toBe(true);
    // as drizzle wraps a driver's error
    expect(isDatabaseBusy(new Error("Failed query: insert ...", { cause: sqliteBusy }))).toBe(true);
    expect(isDatabaseBusy(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error("the database system is shutting down"), { code: "57P03" }))).toBe(true);
    expect(isDatabaseBusy(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }))).toBe(true);
    // a real refusal of this database is not "busy": a retry would fail the same way
    const { db, schema } = t.handle;
    const unique = await db
      .insert(schema.inboundEvents)
      .values([
        { accountId, provider: "WHATSAPP", eventKey: "same", source: "webhook", payload: "{}", size: 0, meta: "{}", receivedAt: 1 },
        { accountId, provider: "WHATSAPP", eventKey: "same", source: "webhook", payload: "{}", size: 0, meta: "{}", receivedAt: 1 },
      ])
      .catch((error: unknown) => error);
    expect(unique).toBeInstanceOf(Error);
    expect(isDatabaseBusy(unique)).toBe(false);
    expect(isDatabaseBusy(Object.assign(new Error('relation "nope" does not exist'), { code: "42P01" }))).toBe(false);
    expect(isDatabaseBusy(undefined)).toBe(false);
  });
});
