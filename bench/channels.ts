// Webhooks under load: starts the built server (a temp DATA_DIR, the demo seed) on SQLite and on
// PostgreSQL, connects a WhatsApp number pointing at the Meta stand-in, then plays RATE signed
// webhook calls per second for SECONDS: customers' messages (2,000 customers), 10% of calls sent
// again (Meta's redelivery), and receipts for agents' messages, 5% of them out of order (read
// before delivered). Prints the ack latency (the product's 200), accept-to-visible (the message
// written and announced: the event's processed_at after its received_at), and counts duplicates
// and messages lost after the 200 (both must be 0; a call refused or unanswered under overload is
// counted apart: the provider sends it again), and receipts that moved a message backwards (must be 0).
//   npm run build && npm run bench:channels
// RATE (200), SECONDS (60), DIALECTS (sqlite,pg), BENCH_PORT (3399) change the run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";
import { startMetaStandin, waContact, waStatus, waText, whatsappBody } from "../tests/support/meta-standin";
import { createPgDatabase } from "../tests/unit/harness";
import { pct, settled } from "./product";
import { tallyChannels } from "./channels-tally";

const RATE = Number(process.env.RATE || 200);
const SECONDS = Number(process.env.SECONDS || 60);
const DIALECTS = (process.env.DIALECTS || "sqlite,pg").split(",");
const port = Number(process.env.BENCH_PORT || 3399);
const base = `http://127.0.0.1:${port}`;
const CUSTOMERS = 2000;
const OUTGOING = 2000;
process.env.SESSION_SECRET = "bench";

async function benchOn(dialect: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-channels-"));
  const pgDb = dialect === "pg" ? await createPgDatabase() : undefined;
  const target = pgDb?.url ?? path.join(dataDir, "omnidesk.sqlite");
  // BENCH_SERVER_LOG: a file for the server's JSON log lines (else they are dropped)
  const serverLog = process.env.BENCH_SERVER_LOG ? fs.openSync(process.env.BENCH_SERVER_LOG, "a") : undefined;
  const server = startServer(
    {
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: pgDb?.url ?? "",
      BASE_URL: base,
      SESSION_SECRET: "bench",
      SEED_DEMO: "1",
      SEED_PASSWORD: "bench-Password-1",
      NODE_ENV: "production",
      ...(process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {}),
    },
    serverLog,
  );
  const meta = await startMetaStandin();
  try {
    await waitHealthy(base, 120_000);
    const { openDatabase, setDb } = await import("../db/client");
    const handle = openDatabase(target);
    setDb(handle);
    const { saveAccount } = await import("../plugins/channels/accounts.server");
    const accountId = await saveAccount({
      kind: "WHATSAPP",
      name: "Bench WhatsApp",
      address: "+15550199",
      departmentId: 2,
      config: { phoneNumberId: meta.phoneNumberId, apiBase: meta.apiBase },
      secrets: { accessToken: meta.accessToken, appSecret: meta.appSecret, verifyToken: "bench" },
    });
    const { db, schema } = handle;
    const url = `${base}/hooks/channels/${accountId}`;

    // agents' messages already sent, for the receipts to name (one ticket holds them)
    const now = Date.now();
    const [ticket] = await db
      .insert(schema.tickets)
      .values({
        ticketNumber: 900001,
        title: "Receipts",
        channel: "WHATSAPP",
        customerId: "60100000000",
        channelAccountId: accountId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const outgoing: string[] = [];
    for (let i = 0; i < OUTGOING; i += 500) {
      const rows = await db
        .insert(schema.messages)
        .values(
          Array.from({ length: Math.min(500, OUTGOING - i) }, () => ({
            ticketId: ticket.id,
            body: "Reply",
            senderUserId: 1,
            deliveryState: "sent",
            createdAt: now,
          })),
        )
        .returning({ id: schema.messages.id });
      const ids = rows.map((r, k) => ({ messageId: r.id, ticketId: ticket.id, accountId, direction: "out", providerMessageId: `wamid.out${i + k}` }));
      await db.insert(schema.channelMessages).values(ids);
      outgoing.push(...ids.map((r) => r.providerMessageId));
    }

    await settled([server.pid!]);
    // at rest: one call at a time (the door's own cost, before any load)
    const rest: number[] = [];
    let warmUpRefused = 0;
    for (let i = 0; i < 200; i++) {
      const from = String(60120000000 + i);
      const started = performance.now();
      const answer = await meta.deliver(
        url,
        whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, `Warm ${i}`)], messages: [waText(from, `Warm-up ${i}`)] }),
      );
      if (answer.status !== 200) warmUpRefused++;
      rest.push(performance.now() - started);
    }
    await new Promise((r) => setTimeout(r, 3000));

    const sentIds = new Set<string>();
    const bodies: unknown[] = [];
    const acks: number[] = [];
    let failures = 0;
    const statuses: Record<string, number> = {};
    let receiptIndex = 0;
    const calls: Promise<void>[] = [];
    // the customer messages the product acknowledged with 200: these must all be stored (a refused or
    // unanswered call is the provider's to send again, as Meta does)
    const acknowledged = new Set<string>();
    const post = (body: unknown, messageId?: string) => {
      const started = performance.now();
      calls.push(
        meta.deliver(url, body).then(
          (r) => {
            if (r.status !== 200) {
              failures++;
              statuses[r.status] = (statuses[r.status] ?? 0) + 1;
            } else if (messageId) acknowledged.add(messageId);
            acks.push(performance.now() - started);
          },
          (error: Error) => {
            failures++;
            statuses[String(error.cause ?? error.message).slice(0, 60)] = (statuses[String(error.cause ?? error.message).slice(0, 60)] ?? 0) + 1;
          },
        ),
      );
    };
    const total = RATE * SECONDS;
    const interval = 1000 / RATE;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const roll = i % 20;
      if (roll < 2 && bodies.length) post(bodies[(i * 7919) % bodies.length]);
      else if (roll === 2 && receiptIndex < outgoing.length) {
        // out of order: read first, then delivered (which must not move it back)
        const id = outgoing[receiptIndex++];
        post(whatsappBody(meta.phoneNumberId, { statuses: [waStatus(id, "read", "60100000000")] }));
        post(whatsappBody(meta.phoneNumberId, { statuses: [waStatus(id, "delivered", "60100000000")] }));
      } else {
        const from = String(60110000000 + (i % CUSTOMERS));
        const message = waText(from, `Question ${i} about my order`);
        sentIds.add(message.id);
        const body = whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, `Customer ${i % CUSTOMERS}`)], messages: [message] });
        bodies.push(body);
        post(body, message.id);
      }
    }
    await Promise.all(calls);
    const sendSeconds = (performance.now() - t0) / 1000;

    // until every event is worked off (or two minutes)
    const { and, eq, inArray, sql } = await import("drizzle-orm");
    const e = schema.inboundEvents;
    const until = Date.now() + 120_000;
    for (;;) {
      const [{ n }] = await db
        .select({ n: sql<number>`count(*)` })
        .from(e)
        .where(and(eq(e.accountId, accountId), eq(e.state, "received")));
      if (Number(n) === 0 || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const events = await db.select({ receivedAt: e.receivedAt, processedAt: e.processedAt, state: e.state }).from(e).where(eq(e.accountId, accountId));
    const visible = events.filter((ev) => ev.processedAt).map((ev) => Number(ev.processedAt) - Number(ev.receivedAt));
    const c = schema.channelMessages;
    const inbound = await db
      .select({ id: c.providerMessageId })
      .from(c)
      .where(and(eq(c.accountId, accountId), eq(c.direction, "in")));
    const stored = new Set(inbound.map((r) => r.id));
    const messageRows = await db
      .select({ n: sql<number>`count(*)` })
      .from(schema.messages)
      .innerJoin(schema.tickets, eq(schema.tickets.id, schema.messages.ticketId))
      .where(and(eq(schema.tickets.channelAccountId, accountId), sql`${schema.tickets.id} <> ${ticket.id}`, sql`${schema.tickets.title} not like 'Warm-up%'`));
    // what the duplicates are: messages of the customers' conversations that no provider id names
    const unnamed = await db
      .select({
        id: schema.messages.id,
        ticketId: schema.messages.ticketId,
        type: schema.messages.type,
        body: schema.messages.body,
        senderUserId: schema.messages.senderUserId,
      })
      .from(schema.messages)
      .innerJoin(schema.tickets, eq(schema.tickets.id, schema.messages.ticketId))
      .leftJoin(c, eq(c.messageId, schema.messages.id))
      .where(and(eq(schema.tickets.channelAccountId, accountId), sql`${schema.tickets.id} <> ${ticket.id}`, sql`${c.messageId} is null`))
      .limit(5);
    const { duplicates, lost, notAcknowledged } = tallyChannels({ sent: sentIds, acknowledged, stored, messagesWritten: Number(messageRows[0].n) });
    const receipts = await db
      .select({ state: schema.messages.deliveryState })
      .from(schema.messages)
      .where(
        inArray(
          schema.messages.id,
          db
            .select({ id: c.messageId })
            .from(c)
            .where(and(eq(c.accountId, accountId), inArray(c.providerMessageId, outgoing.slice(0, receiptIndex)))),
        ),
      );
    const tickets = await db
      .select({ n: sql<number>`count(*)` })
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, accountId), sql`${schema.tickets.id} <> ${ticket.id}`));
    await handle.close();
    setDb(undefined);
    console.log(
      JSON.stringify({
        dialect,
        calls: acks.length,
        sendSeconds: +sendSeconds.toFixed(1),
        callsPerSecond: Math.round(acks.length / sendSeconds),
        non200: failures,
        statuses,
        ackAtRestMs: { p50: +pct(rest, 50).toFixed(1), p99: +pct(rest, 99).toFixed(1) },
        ackMs: { p50: +pct(acks, 50).toFixed(1), p95: +pct(acks, 95).toFixed(1), p99: +pct(acks, 99).toFixed(1), max: +Math.max(...acks).toFixed(1) },
        acceptToVisibleMs: { p50: pct(visible, 50), p95: pct(visible, 95), p99: pct(visible, 99), max: Math.max(...visible) },
        customerMessages: sentIds.size,
        messagesWritten: Number(messageRows[0].n),
        duplicates,
        warmUpRefused,
        unnamed: unnamed.map((m) => ({ ...m, body: m.body.slice(0, 80) })),
        lost,
        notAcknowledged,
        conversations: Number(tickets[0].n),
        receipts: receiptIndex,
        receiptsNotRead: receipts.filter((r) => r.state !== "read").length,
        eventsLeft: events.filter((ev) => ev.state === "received").length,
      }),
    );
  } finally {
    await meta.close();
    await stopServer(server);
    await pgDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const dialect of DIALECTS) await benchOn(dialect);
