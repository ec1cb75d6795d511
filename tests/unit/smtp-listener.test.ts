// The built-in SMTP listener on both dialects, through real loopback connections: what a sending MTA
// is answered, and which inbound events (with their jobs and stored bytes) that answer stands for.
import fs from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { DEMO_MAILBOX, seedDemo } from "~/seed/seed";
import { fileStorage, type FileStorage } from "~/storage.server";
import { recordInboundEvent, INBOUND_JOB } from "@plugins/channels/inbound.server";
import { listenerSettings, startSmtpListener, type SmtpListener, type SmtpListenerOptions } from "@plugins/email/smtp-listener.server";
import { start } from "@plugins/email/start.server";
import { captureLogs } from "~/ops/log.server";

// stored mail goes under DATA_DIR/files: a throwaway one for this file, set before storage is first used
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-smtp-"));
const previousDataDir = process.env.DATA_DIR;
process.env.DATA_DIR = dataDir;
afterAll(() => {
  process.env.DATA_DIR = previousDataDir;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const NOW = Date.UTC(2026, 10, 24, 12);
const SWAKS = "/usr/bin/swaks";

/** Files in storage: a refused or duplicate mail must leave none behind. */
function storedFiles(): number {
  const root = path.join(dataDir, "files");
  if (!fs.existsSync(root)) return 0;
  return fs.readdirSync(root).reduce((n, dir) => n + fs.readdirSync(path.join(root, dir)).length, 0);
}

type SmtpError = Error & { responseCode?: number; response?: string };

describe.each(DIALECTS)("SMTP listener on %s", (dialect) => {
  let t: TestDb;
  let listener: SmtpListener;
  const extra: SmtpListener[] = [];

  const start = async (options: SmtpListenerOptions = {}) => {
    const l = await startSmtpListener({ port: 0, cacheMs: 0, log: () => {}, ...options });
    extra.push(l);
    return l;
  };
  const transport = (l: SmtpListener = listener) =>
    nodemailer.createTransport({ host: "127.0.0.1", port: l.port, secure: false, ignoreTLS: true, name: "mx.example.net", socketTimeout: 60_000 });
  const sendRaw = (raw: string | Buffer, to: string | string[] = DEMO_MAILBOX, l: SmtpListener = listener) =>
    transport(l).sendMail({ envelope: { from: "carol@example.com", to }, raw });
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (error) {
      return error as SmtpError;
    }
    throw new Error("the listener took a mail it should have refused");
  };
  const events = async () => {
    const { db, schema } = t.handle;
    return db.select().from(schema.inboundEvents).orderBy(schema.inboundEvents.id);
  };
  const jobsFor = async (eventId: number) => {
    const { db, schema } = t.handle;
    return db
      .select()
      .from(schema.jobs)
      .where(eq(schema.jobs.key, `inbound:${eventId}`));
  };
  let n = 0;
  const mail = (headers: Record<string, string> = {}, body = "Hello, my order has not arrived.") => {
    const h = { From: "Carol <carol@example.com>", To: DEMO_MAILBOX, Subject: `Order ${++n}`, "Message-ID": `<m${n}.${dialect}@example.com>`, ...headers };
    return (
      Object.entries(h)
        .filter(([, v]) => v !== "")
        .map(([k, v]) => `${k}: ${v}`)
        .join("\r\n") + `\r\n\r\n${body}\r\n`
    );
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    // the demo seed brings the support@omnidesk.localhost channel
    await seedDemo(t.handle, { tickets: 0, now: NOW });
    listener = await startSmtpListener({ port: 0, cacheMs: 0, log: () => {} });
  });
  afterAll(async () => {
    await listener?.close();
    for (const l of extra) await l.close();
    await t?.cleanup();
  });

  it("refuses a mailbox we do not have with 550, and stores nothing", async () => {
    const before = storedFiles();
    const error = await refusal(sendRaw(mail({ To: "nobody@omnidesk.localhost" }), "nobody@omnidesk.localhost"));
    expect(error.responseCode).toBe(550);
    expect(error.response).toMatch(/5\.1\.1 <nobody@omnidesk\.localhost>: no such mailbox/);
    // a reply address at a domain that is not ours is no way in either
    expect((await refusal(sendRaw(mail(), "reply+abcdef123@elsewhere.example"))).responseCode).toBe(550);
    expect(await events()).toHaveLength(0);
    expect(storedFiles()).toBe(before);
  });

  it("stores a mail to the channel as one event with its job before answering 250", async () => {
    const info = await sendRaw(mail({ "Message-ID": `<first.${dialect}@example.com>` }), "Support@OmniDesk.localhost");
    expect(info.response).toMatch(/^250 .*Stored as event \d+/);
    const [event] = await events();
    expect(event).toMatchObject({ provider: "email", eventKey: `mid:first.${dialect}@example.com`, source: "smtp", state: "received" });
    expect(event.accountId).not.toBeNull();
    expect(event.size).toBeGreaterThan(0);
    expect(JSON.parse(event.meta)).toMatchObject({
      ip: "127.0.0.1",
      helo: "mx.example.net",
      mailFrom: "carol@example.com",
      rcptTo: [DEMO_MAILBOX],
      tls: false,
    });
    expect(await jobsFor(event.id)).toMatchObject([{ kind: INBOUND_JOB, state: "queued" }]);
    // the stored bytes are the mail as sent
    const stream = await fileStorage().get(event.rawKey!);
    const text = await new Response(stream).text();
    expect(text).toContain(`Message-ID: <first.${dialect}@example.com>`);
  });

  it("takes a reply+token address at our domain", async () => {
    const info = await sendRaw(mail(), "reply+tok3n42@omnidesk.localhost");
    expect(info.accepted).toEqual(["reply+tok3n42@omnidesk.localhost"]);
    const last = (await events()).at(-1)!;
    expect(JSON.parse(last.meta).rcptTo).toEqual(["reply+tok3n42@omnidesk.localhost"]);
  });

  it("answers 250 to the same mail again (same Message-ID) and keeps one event and one copy", async () => {
    const before = (await events()).length;
    const files = storedFiles();
    const raw = mail({ "Message-ID": `<again.${dialect}@example.com>` });
    expect((await sendRaw(raw)).response).toMatch(/^250 .*Stored/);
    // a retry after a lost 250, with other headers a relay added on the way: still the same mail
    const second = await sendRaw("Received: from relay.example.net\r\n" + raw);
    expect(second.response).toMatch(/^250 .*Already received/);
    expect(await events()).toHaveLength(before + 1);
    expect(storedFiles()).toBe(files + 1);
  });

  it("takes a mail already fetched over IMAP as a duplicate", async () => {
    const key = `mid:Imap-First.${dialect}@example.com`;
    await recordInboundEvent({ accountId: null, provider: "email", eventKey: key, source: "imap", rawKey: null, size: 0 });
    // the host part of a Message-ID is case-insensitive, the local part is not
    const info = await sendRaw(mail({ "Message-ID": `<Imap-First.${dialect}@EXAMPLE.com>` }));
    expect(info.response).toMatch(/Already received/);
    expect((await events()).filter((e) => e.eventKey === key)).toHaveLength(1);
  });

  it("keys a mail without Message-ID by its bytes: identical bytes are one event, other bytes another", async () => {
    const before = (await events()).length;
    const raw = mail({ "Message-ID": "", Subject: `No id ${dialect}` });
    await sendRaw(raw);
    expect((await sendRaw(raw)).response).toMatch(/Already received/);
    await sendRaw(raw.replace("Hello", "Hallo"));
    const added = (await events()).slice(before);
    expect(added).toHaveLength(2);
    for (const e of added) expect(e.eventKey).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("stores malformed MIME, a broken charset and a mail without headers: receiving decides what they become", async () => {
    const before = (await events()).length;
    const broken = [
      mail({ "Content-Type": 'multipart/mixed; boundary="never-closed"' }, "--never-closed\r\nContent-Type: text/plain\r\n\r\nhalf a part"),
      Buffer.concat([Buffer.from(mail({ "Content-Type": "text/plain; charset=x-no-such-charset" }, "")), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0d, 0x0a])]),
      "just a body line, no headers at all\r\nand another\r\n",
    ];
    for (const raw of broken) expect((await sendRaw(raw)).response).toMatch(/^250 /);
    const added = (await events()).slice(before);
    expect(added).toHaveLength(3);
    expect(added.every((e) => e.state === "received")).toBe(true);
  });

  it("refuses a header section over 1 MB with a reason, keeping nothing", async () => {
    const before = (await events()).length;
    const files = storedFiles();
    const junk = Array.from({ length: 12_000 }, (_, i) => `X-Junk-${i}: ${"x".repeat(90)}`).join("\r\n");
    const error = await refusal(sendRaw(junk + "\r\n" + mail()));
    expect(error.responseCode).toBe(552);
    expect(error.response).toMatch(/Header section larger than 1048576 bytes/);
    expect(await events()).toHaveLength(before);
    expect(storedFiles()).toBe(files);
    // the connection is still good for the next mail
    expect((await sendRaw(mail())).response).toMatch(/^250 /);
  });

  it("refuses a mail over MAIL_MAX_BYTES with 552 after reading it, keeping nothing", async () => {
    const small = await start({ maxBytes: 64 * 1024 });
    const before = (await events()).length;
    const files = storedFiles();
    const error = await refusal(sendRaw(mail({}, "y".repeat(76) + "\r\n".repeat(1) + ("z".repeat(998) + "\r\n").repeat(300)), DEMO_MAILBOX, small));
    expect(error.responseCode).toBe(552);
    expect(error.response).toMatch(/Message larger than 65536 bytes; not stored/);
    expect(await events()).toHaveLength(before);
    expect(storedFiles()).toBe(files);
    // a mail under the limit on the same listener is taken
    expect((await sendRaw(mail(), DEMO_MAILBOX, small)).response).toMatch(/^250 /);
  });

  it("takes at most 100 of 10,000 recipients (452 for the rest) and stores the mail once", async () => {
    const before = (await events()).length;
    const to = [DEMO_MAILBOX, ...Array.from({ length: 9_999 }, (_, i) => `reply+t${String(i).padStart(6, "0")}@omnidesk.localhost`)];
    const info = await sendRaw(mail(), to);
    expect(info.accepted).toHaveLength(100);
    expect(info.rejected).toHaveLength(9_900);
    expect(info.rejectedErrors?.[0]).toMatchObject({ responseCode: 452 });
    const added = (await events()).slice(before);
    expect(added).toHaveLength(1);
    expect(JSON.parse(added[0].meta).rcptTo).toHaveLength(100);
  }, 60_000);

  it("answers 451 when storage fails, and records nothing", async () => {
    const failing: FileStorage = {
      ...fileStorage(),
      putStream: async (stream) => {
        stream.resume();
        throw new Error("disk full");
      },
    };
    const l = await start({ storage: failing });
    const before = (await events()).length;
    const error = await refusal(sendRaw(mail(), DEMO_MAILBOX, l));
    expect(error.responseCode).toBe(451);
    expect(error.response).toMatch(/4\.3\.0 Temporary storage failure/);
    expect(await events()).toHaveLength(before);
  });

  it("answers 451 when the database fails, removing the stored copy, and takes the retry", async () => {
    const l = await start({
      record: async () => {
        throw new Error("database is locked");
      },
    });
    const before = (await events()).length;
    const files = storedFiles();
    const raw = mail();
    const error = await refusal(sendRaw(raw, DEMO_MAILBOX, l));
    expect(error.responseCode).toBe(451);
    expect(storedFiles()).toBe(files);
    // the sender retries later (here: at the working listener) and the mail is stored once
    expect((await sendRaw(raw)).response).toMatch(/Stored/);
    expect(await events()).toHaveLength(before + 1);
  });

  it("survives a client that drops the connection in the middle of DATA", async () => {
    const files = storedFiles();
    const before = (await events()).length;
    await new Promise<void>((resolve) => {
      const socket = net.connect(listener.port, "127.0.0.1");
      const lines = ["EHLO x", "MAIL FROM:<a@example.com>", `RCPT TO:<${DEMO_MAILBOX}>`, "DATA"];
      socket.on("data", (d) => {
        const text = d.toString();
        if (text.startsWith("354")) {
          socket.write("Subject: cut off\r\n\r\n" + "partial ".repeat(10_000));
          setTimeout(() => socket.destroy(), 50);
        } else if (/^(220|250)/m.test(text) && lines.length) socket.write(lines.shift() + "\r\n");
      });
      socket.on("close", () => resolve());
      socket.on("error", () => {});
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(await events()).toHaveLength(before);
    expect(storedFiles()).toBe(files);
    expect((await sendRaw(mail())).response).toMatch(/^250 /);
  });

  it("takes a mail from swaks, the command the README gives", async (ctx) => {
    if (!fs.existsSync(SWAKS)) {
      console.warn("swaks is not installed (apt-get install swaks): skipping the swaks case");
      ctx.skip();
    }
    const id = `swaks.${dialect}@example.com`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        SWAKS,
        ["--to", DEMO_MAILBOX, "--from", "dan@example.com", "--server", `127.0.0.1:${listener.port}`, "--header", `Message-Id: <${id}>`],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    expect(out).toMatch(/^<- +250 2\.0\.0 Stored as event \d+$/m);
    expect((await events()).filter((e) => e.eventKey === `mid:${id}`)).toHaveLength(1);
  });
});

describe("starting with the server (plugins/email/start.server.ts)", () => {
  const previous = { port: process.env.SMTP_LISTEN_PORT, host: process.env.SMTP_LISTEN_HOST };
  afterAll(() => {
    process.env.SMTP_LISTEN_PORT = previous.port;
    process.env.SMTP_LISTEN_HOST = previous.host;
    if (previous.port === undefined) delete process.env.SMTP_LISTEN_PORT;
    if (previous.host === undefined) delete process.env.SMTP_LISTEN_HOST;
  });
  const connects = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
  const freePort = () =>
    new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });

  it("listens on SMTP_LISTEN_PORT and stops when told", async () => {
    const port = await freePort();
    process.env.SMTP_LISTEN_PORT = String(port);
    const stop = await start();
    expect(await connects(port)).toBe(true);
    await stop();
    expect(await connects(port)).toBe(false);
  });

  it("carries on with a clear line when the port is in use", async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    process.env.SMTP_LISTEN_PORT = String(port);
    const logs = captureLogs();
    try {
      const stop = await start();
      const inUse = new RegExp(`SMTP listener not started: 127\\.0\\.0\\.1:${port} is in use`);
      expect(logs.lines.filter((l) => l.level === "warn").map((l) => l.msg)).toContainEqual(expect.stringMatching(inUse));
      await stop();
    } finally {
      logs.restore();
      await new Promise((r) => taken.close(r));
    }
  });

  it("starts nothing when SMTP_LISTEN_PORT is off or 0", async () => {
    const logs = captureLogs();
    try {
      for (const off of ["off", "0"]) {
        process.env.SMTP_LISTEN_PORT = off;
        await (
          await start()
        )();
      }
      expect(logs.lines.map((l) => l.msg)).not.toContainEqual(expect.stringMatching(/SMTP listener receiving/));
    } finally {
      logs.restore();
    }
  });

  it("defaults to loopback port 2525 and 75 MB", () => {
    expect(listenerSettings({})).toEqual({ enabled: true, host: "127.0.0.1", port: 2525, maxBytes: 75 * 1024 * 1024 });
    expect(listenerSettings({ SMTP_LISTEN_HOST: "0.0.0.0", SMTP_LISTEN_PORT: "25", MAIL_MAX_BYTES: "1000" })).toEqual({
      enabled: true,
      host: "0.0.0.0",
      port: 25,
      maxBytes: 1000,
    });
    expect(listenerSettings({ SMTP_LISTEN_PORT: "off" }).enabled).toBe(false);
  });
});
