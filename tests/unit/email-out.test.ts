// Agent replies as mail against a real SMTP server on loopback, on both dialects: the customer's mail client gets a
// reply threaded into its conversation (In-Reply-To, References, Thread-Index, "[#n]" subject, our reply address),
// addressed to the customer, the CC'd participants and the agent's extra recipients, with a text part and the
// attachment's bytes; a retry is the same mail; refusals are final (5xx) or tried again (4xx); with no mail server the
// mail waits.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { PermanentFailure, WaitAndRetry } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import type { ChannelAccount, OutboundMessage } from "@plugins/channels/adapter";
import { composeReply, sendReplyMail, testSmtp } from "@plugins/email/outbound.server";
import { threadIndexFor, threadIndexRoot, tokenFromAddress } from "@plugins/email/threading";

// attachments go to the file storage under DATA_DIR: a throwaway one for this file
const previousDataDir = process.env.DATA_DIR;
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-mailout-"));
const previousRelay = process.env.SMTP_RELAY_URL;

interface Received {
  mailFrom: string;
  rcptTo: string[];
  user: string | undefined;
  raw: string;
  mail: ParsedMail;
}

/** An SMTP server on 127.0.0.1 that keeps what it accepts; `refuseRcpt`/`refuseData` answer with a code and text. */
async function smtpServer() {
  const received: Received[] = [];
  const state: { refuseRcpt: null | [number, string]; refuseData: null | [number, string] } = { refuseRcpt: null, refuseData: null };
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "desk" && auth.password === "s3cret") return callback(null, { user: auth.username });
      callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      if (state.refuseRcpt) return callback(Object.assign(new Error(state.refuseRcpt[1]), { responseCode: state.refuseRcpt[0] }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (state.refuseData) return callback(Object.assign(new Error(state.refuseData[1]), { responseCode: state.refuseData[0] }));
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then((mail) => {
          received.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            raw: raw.toString("utf8"),
            mail,
          });
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return { port, url: `smtp://127.0.0.1:${port}`, received, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A loopback port nothing listens on. */
async function closedPort() {
  const s = await smtpServer();
  await s.close();
  return s.port;
}

const addresses = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) => o.value.map((v) => v.address));
const header = (mail: ParsedMail, name: string) => mail.headers.get(name) as string | undefined;

const ACCOUNT: ChannelAccount = {
  id: 1,
  kind: "EMAIL",
  name: "Acme Support",
  address: "support@acme.test",
  departmentId: null,
  enabled: true,
  config: {},
  secrets: {},
};

describe.each(DIALECTS)("agent replies as mail on %s", (dialect) => {
  let t: TestDb;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let number = 100100;
  const parentIndex = threadIndexFor(null);

  /** An email ticket with the customer's two mails stored, a CC'd participant, and the agent's reply (text + a file). */
  async function ticketWithReply(options: { html?: string; contactEmail?: string } = {}) {
    const { db, schema } = t.handle;
    const now = Date.now();
    const n = ++number;
    const [ticket] = await db
      .insert(schema.tickets)
      .values({
        ticketNumber: n,
        title: "Printer broken",
        channel: "EMAIL",
        contactName: "Alice Tan",
        contactEmail: options.contactEmail ?? "alice@customer.test",
        receiverEmail: ACCOUNT.address,
        channelAccountId: ACCOUNT.id,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const inbound = async (body: string, values: Partial<typeof schema.emailMessages.$inferInsert>, at: number) => {
      const [m] = await db.insert(schema.messages).values({ ticketId: ticket.id, body, createdAt: at }).returning();
      await db.insert(schema.emailMessages).values({
        messageId: m.id,
        ticketId: ticket.id,
        accountId: ACCOUNT.id,
        direction: "in",
        internetMessageId: `first-${n}@mail.customer.test`,
        fromAddress: "alice@customer.test",
        createdAt: at,
        ...values,
      });
    };
    await inbound("It does not print.", { subject: "Printer broken" }, now - 60_000);
    await inbound(
      "Still broken, Bob is in copy.",
      {
        internetMessageId: `second-${n}@mail.customer.test`,
        inReplyTo: `out-${n}@acme.test`,
        references: `first-${n}@mail.customer.test out-${n}@acme.test`,
        threadIndex: parentIndex,
        threadIndexRoot: threadIndexRoot(parentIndex),
        // the customer's client moved the tag and added its own prefix
        subject: `AW: Re: Printer broken [#${n}]`,
      },
      now - 30_000,
    );
    await db.insert(schema.emailParticipants).values({ ticketId: ticket.id, address: "bob@customer.test", name: "Bob Lee", addedAt: now });
    const [text] = await db
      .insert(schema.messages)
      .values(
        options.html
          ? { ticketId: ticket.id, type: "text/html", body: options.html, createdAt: now }
          : { ticketId: ticket.id, body: "Hello Alice,\nplease try the attached driver.", createdAt: now },
      )
      .returning();
    const key = await fileStorage().put(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 255]));
    const [file] = await db
      .insert(schema.messages)
      .values({
        ticketId: ticket.id,
        type: "application/pdf",
        body: "",
        fileKey: key,
        fileName: "driver guide.pdf",
        fileType: "application/pdf",
        fileSize: 8,
        createdAt: now,
      })
      .returning();
    const reply: OutboundMessage = {
      ticketId: ticket.id,
      messageIds: [text.id, file.id],
      to: ["Carol <carol@partner.test>", "ALICE@customer.test"],
      // our own addresses never get a copy
      cc: ["dave@partner.test", "support@acme.test", "reply+abcdef123456@acme.test"],
    };
    return { ticket, reply, n };
  }

  const outRow = async (messageId: number) => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.emailMessages).where(eq(schema.emailMessages.messageId, messageId)))[0];
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    smtp = await smtpServer();
  });
  beforeEach(() => {
    process.env.SMTP_RELAY_URL = smtp.url;
  });
  afterEach(() => {
    smtp.received.length = 0;
    smtp.state.refuseRcpt = null;
    smtp.state.refuseData = null;
  });
  afterAll(async () => {
    process.env.SMTP_RELAY_URL = previousRelay;
    if (previousRelay === undefined) delete process.env.SMTP_RELAY_URL;
    await smtp?.close();
    await t?.cleanup();
  });

  it("sends a reply threaded into the customer's conversation, to everyone on it, with its text and attachment", async () => {
    const { ticket, reply, n } = await ticketWithReply();
    const { providerRef } = await sendReplyMail(reply, ACCOUNT);
    expect(smtp.received).toHaveLength(1);
    const [{ mail, rcptTo, mailFrom, raw }] = smtp.received;

    expect(mail.messageId).toBe(providerRef);
    expect(mail.messageId).toMatch(/^<[^<>@\s]+@acme\.test>$/);
    expect(mail.inReplyTo).toBe(`<second-${n}@mail.customer.test>`);
    expect(mail.references).toEqual([`<first-${n}@mail.customer.test>`, `<out-${n}@acme.test>`, `<second-${n}@mail.customer.test>`]);
    expect(mail.subject).toBe(`Re: [#${n}] Printer broken`);

    // Outlook keeps it in the customer's conversation: the parent's Thread-Index plus one 5-byte block
    const index = header(mail, "thread-index")!;
    expect(threadIndexRoot(index)).toBe(threadIndexRoot(parentIndex));
    expect(Buffer.from(index, "base64").subarray(0, 22)).toEqual(Buffer.from(parentIndex, "base64"));
    expect(Buffer.from(index, "base64")).toHaveLength(27);

    const { db, schema } = t.handle;
    const [thread] = await db.select().from(schema.emailThreads).where(eq(schema.emailThreads.ticketId, ticket.id));
    expect(addresses(mail.replyTo)).toEqual([`reply+${thread.replyToken}@acme.test`]);
    expect(tokenFromAddress(addresses(mail.replyTo)[0]!)).toBe(thread.replyToken);

    expect(mail.from?.value).toEqual([{ name: "Acme Support", address: "support@acme.test" }]);
    expect(addresses(mail.to)).toEqual(["alice@customer.test", "carol@partner.test"]);
    expect(addresses(mail.cc)).toEqual(["bob@customer.test", "dave@partner.test"]);
    expect(mailFrom).toBe("support@acme.test");
    expect(rcptTo.sort()).toEqual(["alice@customer.test", "bob@customer.test", "carol@partner.test", "dave@partner.test"]);

    expect(mail.text?.trim()).toBe("Hello Alice,\nplease try the attached driver.");
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]).toMatchObject({ filename: "driver guide.pdf", contentType: "application/pdf" });
    expect([...mail.attachments[0].content]).toEqual([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 255]);
    // a person wrote it: auto-responders may answer it
    expect(raw).not.toMatch(/^Auto-Submitted:/im);

    // recorded, so the customer's answer to it threads by its id
    expect(await outRow(reply.messageIds[0])).toMatchObject({
      ticketId: ticket.id,
      accountId: ACCOUNT.id,
      direction: "out",
      internetMessageId: mail.messageId!.slice(1, -1),
      inReplyTo: `second-${n}@mail.customer.test`,
      references: `first-${n}@mail.customer.test out-${n}@acme.test second-${n}@mail.customer.test`,
      threadIndex: index,
      threadIndexRoot: threadIndexRoot(parentIndex),
      subject: `Re: [#${n}] Printer broken`,
      fromAddress: "support@acme.test",
      fromName: "Acme Support",
      recipientCount: 4,
    });
    expect(JSON.parse((await outRow(reply.messageIds[0])).to)).toEqual([
      { name: "Alice Tan", address: "alice@customer.test" },
      { name: "Carol", address: "carol@partner.test" },
    ]);
  });

  it("sends the same mail again on a retry (same Message-ID and Thread-Index), a new reply gets its own id and the same reply address", async () => {
    const { reply, ticket } = await ticketWithReply();
    await sendReplyMail(reply, ACCOUNT);
    await sendReplyMail(reply, ACCOUNT);
    const [a, b] = smtp.received.map((r) => r.mail);
    expect(b.messageId).toBe(a.messageId);
    expect(header(b, "thread-index")).toBe(header(a, "thread-index"));
    expect(b.subject).toBe(a.subject);

    const { db, schema } = t.handle;
    const [next] = await db.insert(schema.messages).values({ ticketId: ticket.id, body: "Did it help?", createdAt: Date.now() }).returning();
    await sendReplyMail({ ticketId: ticket.id, messageIds: [next.id], to: [], cc: [] }, ACCOUNT);
    const c = smtp.received[2].mail;
    expect(c.messageId).not.toBe(a.messageId);
    expect(addresses(c.replyTo)).toEqual(addresses(a.replyTo));
    // still answering the customer's latest mail, to the customer and the participant
    expect(c.inReplyTo).toBe(a.inReplyTo);
    expect(addresses(c.to)).toEqual(["alice@customer.test"]);
    expect(addresses(c.cc)).toEqual(["bob@customer.test"]);
    expect(c.attachments).toHaveLength(0);
    expect(c.text?.trim()).toBe("Did it help?");
  });

  it("sends an HTML reply sanitised, with its text version", async () => {
    const { reply } = await ticketWithReply({
      html: '<p>Hello <b>Alice</b> &amp; team,</p><script>alert(1)</script><p>see <a href="https://acme.test/kb/1" onclick="x()">the guide</a></p>',
    });
    await sendReplyMail(reply, ACCOUNT);
    const [{ mail }] = smtp.received;
    expect(mail.html).toContain("<b>Alice</b>");
    expect(mail.html).not.toContain("script");
    expect(mail.html).not.toContain("onclick");
    expect(mail.text?.trim()).toBe("Hello Alice & team,\nsee the guide (https://acme.test/kb/1)");
  });

  it("composes the complete MIME (for the Graph adapter) with the id the SMTP send uses", async () => {
    const { reply, n } = await ticketWithReply();
    const composed = await composeReply(reply, ACCOUNT);
    const parsed = await simpleParser(composed.mime);
    expect(parsed.messageId).toBe(composed.messageId);
    expect(parsed.subject).toBe(`Re: [#${n}] Printer broken`);
    expect(parsed.inReplyTo).toBe(`<second-${n}@mail.customer.test>`);
    expect(parsed.attachments[0]?.filename).toBe("driver guide.pdf");
    expect(composed.to).toEqual(["alice@customer.test", "carol@partner.test"]);
    expect(composed.cc).toEqual(["bob@customer.test", "dave@partner.test"]);
    const { providerRef } = await sendReplyMail(reply, ACCOUNT);
    expect(providerRef).toBe(composed.messageId);
  });

  it("fails for good on a 5xx refusal with the server's text, and records the mail all the same", async () => {
    const { reply } = await ticketWithReply();
    smtp.state.refuseRcpt = [550, "5.1.1 Recipient address rejected: no such user"];
    const error = await sendReplyMail(reply, ACCOUNT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentFailure);
    expect((error as Error).message).toContain("550");
    expect((error as Error).message).toContain("Recipient address rejected: no such user");
    expect(smtp.received).toHaveLength(0);
    expect(await outRow(reply.messageIds[0])).toMatchObject({ direction: "out" });
  });

  it("leaves a 4xx refusal and an unreachable server to be tried again", async () => {
    const { reply } = await ticketWithReply();
    smtp.state.refuseData = [451, "4.3.0 Mailbox busy, try again later"];
    const busy = await sendReplyMail(reply, ACCOUNT).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(Error);
    expect(busy).not.toBeInstanceOf(PermanentFailure);
    expect(busy).not.toBeInstanceOf(WaitAndRetry);
    expect((busy as Error).message).toContain("Mailbox busy");

    process.env.SMTP_RELAY_URL = `smtp://127.0.0.1:${await closedPort()}`;
    const down = await sendReplyMail(reply, ACCOUNT).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(Error);
    expect(down).not.toBeInstanceOf(PermanentFailure);

    // the mail goes out on the next attempt once the server takes it, as the same mail
    process.env.SMTP_RELAY_URL = smtp.url;
    smtp.state.refuseData = null;
    await sendReplyMail(reply, ACCOUNT);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].mail.messageId).toBe(`<${(await outRow(reply.messageIds[0])).internetMessageId}>`);
  });

  it("waits while no mail server is configured, and the admin's test says so", async () => {
    const { reply } = await ticketWithReply();
    delete process.env.SMTP_RELAY_URL;
    const error = await sendReplyMail(reply, ACCOUNT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitAndRetry);
    expect((error as Error).message).toBe("not-configured");
    expect(await testSmtp(ACCOUNT)).toEqual({ ok: false, error: "not-configured" });
    // waiting is not sending: nothing recorded yet
    expect(await outRow(reply.messageIds[0])).toBeUndefined();
  });

  it("sends through the account's own SMTP server with its user and password instead of the relay", async () => {
    const { reply } = await ticketWithReply();
    process.env.SMTP_RELAY_URL = `smtp://127.0.0.1:${await closedPort()}`;
    const own: ChannelAccount = {
      ...ACCOUNT,
      config: { fromName: "Acme Help Desk", smtpHost: "127.0.0.1", smtpPort: String(smtp.port), smtpUser: "desk" },
      secrets: { smtpPassword: "s3cret" },
    };
    expect(await testSmtp(own)).toEqual({ ok: true });
    await sendReplyMail(reply, own);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0].user).toBe("desk");
    expect(smtp.received[0].mail.from?.value).toEqual([{ name: "Acme Help Desk", address: "support@acme.test" }]);

    // a wrong password is the admin's to fix: tried again, and the test shows the server's answer
    const wrong = { ...own, secrets: { smtpPassword: "nope" } };
    const error = await sendReplyMail(reply, wrong).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PermanentFailure);
    const tested = await testSmtp(wrong);
    expect(tested.ok).toBe(false);
    expect(!tested.ok && tested.error).toContain("Invalid username or password");
  });

  it("tests the relay: ok when it answers, the connection error when it does not", async () => {
    expect(await testSmtp(ACCOUNT)).toEqual({ ok: true });
    process.env.SMTP_RELAY_URL = `smtp://127.0.0.1:${await closedPort()}`;
    const tested = await testSmtp(ACCOUNT);
    expect(tested.ok).toBe(false);
    expect(!tested.ok && tested.error).toMatch(/ECONNREFUSED|connect/i);
  });

  it("refuses a reply with nobody to send it to", async () => {
    const { reply } = await ticketWithReply({ contactEmail: "" });
    const { db, schema } = t.handle;
    await db.delete(schema.emailParticipants).where(and(eq(schema.emailParticipants.ticketId, reply.ticketId)));
    const error = await sendReplyMail({ ...reply, to: [], cc: [] }, ACCOUNT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentFailure);
    expect((error as Error).message).toBe("no-recipient");
    expect(smtp.received).toHaveLength(0);
  });

  it("refuses a recipient that is not a mail address, and a reply whose file is gone, sending nothing", async () => {
    const { reply } = await ticketWithReply();
    const bad = await sendReplyMail({ ...reply, cc: ["dave@partner.test", "not an address"] }, ACCOUNT).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(PermanentFailure);
    expect((bad as Error).message).toBe("bad-address: not an address");

    const other = await ticketWithReply();
    const { db, schema } = t.handle;
    const [file] = await db.select().from(schema.messages).where(eq(schema.messages.id, other.reply.messageIds[1]));
    await fileStorage().remove(file.fileKey!);
    const gone = await sendReplyMail(other.reply, ACCOUNT).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(PermanentFailure);
    expect((gone as Error).message).toBe("attachment-missing: driver guide.pdf");
    expect(smtp.received).toHaveLength(0);
  });
});

afterAll(() => {
  fs.rmSync(process.env.DATA_DIR!, { recursive: true, force: true });
  process.env.DATA_DIR = previousDataDir;
});
