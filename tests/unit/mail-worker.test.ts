// The mail outbox worker against a real SMTP server on loopback, on both dialects: a queued mail
// arrives once; a refusal (451) is tried again later with growing waits, then given up; a node that
// died mid-send is stood in for after its lease; two workers together send each mail once.
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { queueMail } from "~/mail/outbox.server";
import { backoffMs, createMailWorker, LEASE_MS, MAX_ATTEMPTS, messageIdFor } from "~/mail/worker.server";

const FROM = "OmniDesk <no-reply@omnidesk.test>";
const MINUTE = 60_000;

interface Received {
  to: string[];
  subject: string;
  messageId: string;
  raw: string;
}

/** An SMTP server on 127.0.0.1; `refuse` decides per message whether to answer 451. */
async function smtpServer() {
  const received: Received[] = [];
  const state = { refuse: () => false, offered: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (raw += chunk));
      stream.on("end", () => {
        state.offered++;
        if (state.refuse()) return callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
        const header = (name: string) => new RegExp(`^${name}: (.*)$`, "mi").exec(raw)?.[1].trim() ?? "";
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), subject: header("Subject"), messageId: header("Message-ID"), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, received, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("mail waits", () => {
  it("double from 1 minute up to 1 hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffMs(n) / MINUTE)).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
  });
});

describe.each(DIALECTS)("the mail outbox worker on %s", (dialect) => {
  let t: TestDb;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  // queueMail stamps rows with the real time; the workers run on a clock each test moves on
  let clock = 0;
  const workers: ReturnType<typeof createMailWorker>[] = [];
  const worker = () => {
    const w = createMailWorker({ url: smtp.url, from: FROM, now: () => clock, log: () => undefined });
    workers.push(w);
    return w;
  };
  const row = async (dedupeKey: string) => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.mailOutbox).where(eq(schema.mailOutbox.dedupeKey, dedupeKey)))[0];
  };
  const queue = (key: string, n = 0) => queueMail(key, { to: `person${n}@example.com`, subject: `Invitation ${key}`, text: `Follow the link for ${key}.` });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    smtp = await smtpServer();
  });
  beforeEach(() => {
    clock = Date.now() + 1000;
  });
  afterEach(async () => {
    smtp.received.length = 0;
    smtp.state.offered = 0;
    smtp.state.refuse = () => false;
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  afterAll(async () => {
    await smtp?.close();
    await t?.cleanup();
  });

  it("sends a queued mail once, with its subject, body and a Message-ID from its dedupe key", async () => {
    await queue("invite-1");
    await queue("invite-1"); // queued twice: one row
    const w = worker();
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail.to).toEqual(["person0@example.com"]);
    expect(mail.subject).toBe("Invitation invite-1");
    expect(mail.raw).toContain("Follow the link for invite-1.");
    expect(mail.messageId).toBe(messageIdFor("invite-1", "omnidesk.test"));
    // the body (a single-use link) is not kept once delivered
    expect(await row("invite-1")).toMatchObject({ status: "sent", attempts: 1, sentAt: clock, lastError: null, text: "", html: null });
  });

  it("tries a refused mail (451) again after a minute, then after two, with the same Message-ID", async () => {
    await queue("reset-1");
    smtp.state.refuse = () => true;
    const w = worker();
    const start = clock;
    expect(await w.runOnce()).toBe(0);
    expect(await row("reset-1")).toMatchObject({ status: "queued", attempts: 1, nextAttemptAt: start + MINUTE });
    expect((await row("reset-1")).lastError).toMatch(/^451 /);
    clock = start + 59_000;
    expect(await w.runOnce()).toBe(0);
    expect(smtp.state.offered).toBe(1); // not due yet: not even tried
    clock = start + MINUTE;
    expect(await w.runOnce()).toBe(0);
    expect(await row("reset-1")).toMatchObject({ status: "queued", attempts: 2, nextAttemptAt: clock + 2 * MINUTE });
    smtp.state.refuse = () => false;
    clock += 2 * MINUTE;
    expect(await w.runOnce()).toBe(1);
    expect(smtp.received.map((m) => m.messageId)).toEqual([messageIdFor("reset-1", "omnidesk.test")]);
    expect(await row("reset-1")).toMatchObject({ status: "sent", attempts: 3 });
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts and keeps the last error`, async () => {
    await queue("never");
    smtp.state.refuse = () => true;
    const w = worker();
    for (let i = 0; i < MAX_ATTEMPTS + 3; i++) {
      await w.runOnce();
      clock += 61 * MINUTE;
    }
    const failed = await row("never");
    expect(failed).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, sentAt: null });
    expect(failed.lastError).toContain("451 Mailbox busy");
    expect(smtp.received).toHaveLength(0);
  });

  it("takes over a mail whose sender died mid-send once its lease runs out", async () => {
    await queue("crashed");
    const { db, schema } = t.handle;
    // another node claimed it and never came back
    await db
      .update(schema.mailOutbox)
      .set({ status: "sending", attempts: 1, nextAttemptAt: clock + LEASE_MS })
      .where(eq(schema.mailOutbox.dedupeKey, "crashed"));
    const w = worker();
    clock += LEASE_MS - 1;
    expect(await w.runOnce()).toBe(0);
    clock += 1;
    expect(await w.runOnce()).toBe(1);
    expect(smtp.received.map((m) => m.messageId)).toEqual([messageIdFor("crashed", "omnidesk.test")]);
    expect(await row("crashed")).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("sends each mail once when two workers run together", async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `bulk-${i}`);
    for (const [i, key] of keys.entries()) await queue(key, i);
    const [a, b] = [worker(), worker()];
    let sent = 0;
    for (let round = 0; round < 5; round++) sent += (await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()])).reduce((x, y) => x + y, 0);
    expect(sent).toBe(30);
    expect(smtp.received).toHaveLength(30);
    expect(new Set(smtp.received.map((m) => m.messageId)).size).toBe(30);
    for (const key of keys) expect(await row(key)).toMatchObject({ status: "sent", attempts: 1 });
  });
});
