// Inbound mail through the real path: raw .eml stored as an inbound event, then the inbound job
// (processInboundEvent -> EMAIL adapter -> receiveMail -> conversation.receive), on both dialects.
// The threading corpus (tests/fixtures/email-threading) is replayed through the database too.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { kindOf } from "~/conversation/channels";
import { fileStorage } from "~/storage.server";
import { loadMessages } from "~/conversation/model.server";
import { accountByAddress, saveAccount } from "@plugins/channels/accounts.server";
import { processInboundEvent, storeInboundEvent } from "@plugins/channels/inbound.server";
import { mailEventKey, MAIL_PROVIDER } from "@plugins/email/event-key";
import { authenticateSmtp, isRelayAddress, setAuthResolver } from "@plugins/email/auth.server";
import { dataDir } from "@db/client";
import { normalizeMessageId, threadIndexRoot } from "@plugins/email/threading";

const MAILBOX = "support@omnidesk.localhost";
// our fake DNS: every domain's SPF allows only this address, and no domain publishes DMARC
const GOOD_IP = "192.0.2.1";
const BAD_IP = "198.51.100.66";

function fakeDns() {
  setAuthResolver(async (name: string, rrtype: string) => {
    if (rrtype === "TXT" && !name.startsWith("_")) return [[`v=spf1 ip4:${GOOD_IP} -all`]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  });
}

interface Mail {
  from: string;
  to?: string;
  cc?: string;
  subject?: string;
  messageId?: string | null;
  inReplyTo?: string;
  references?: string;
  headers?: Record<string, string>;
  body?: string;
  html?: string;
  raw?: string;
}

function eml(m: Mail): string {
  if (m.raw) return m.raw;
  const h: string[] = [`From: ${m.from}`, `To: ${m.to ?? MAILBOX}`];
  if (m.cc) h.push(`Cc: ${m.cc}`);
  h.push(`Subject: ${m.subject ?? "Hello"}`);
  if (m.messageId !== null) h.push(`Message-ID: <${m.messageId ?? `${Math.random().toString(36).slice(2)}@mail.example.com`}>`);
  if (m.inReplyTo) h.push(`In-Reply-To: <${m.inReplyTo}>`);
  if (m.references) h.push(`References: ${m.references}`);
  for (const [k, v] of Object.entries(m.headers ?? {})) h.push(`${k}: ${v}`);
  h.push("Date: Tue, 24 Nov 2026 09:00:00 +0000", "MIME-Version: 1.0");
  if (m.html) h.push("Content-Type: text/html; charset=utf-8", "", m.html);
  else h.push("Content-Type: text/plain; charset=utf-8", "", m.body ?? "Hi, I need help.");
  return h.join("\r\n") + "\r\n";
}

function countFiles(): number {
  const root = path.join(dataDir(), "files");
  const walk = (dir: string): number =>
    existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).reduce((n, d) => n + (d.isDirectory() ? walk(path.join(dir, d.name)) : 1), 0) : 0;
  return walk(root);
}

describe("sender checks without network", () => {
  it("answer temperror, never hang or crash, when DNS does not answer", async () => {
    setAuthResolver(() => new Promise(() => {}));
    try {
      const raw = Readable.from([Buffer.from(eml({ from: "a@example.com" }))]);
      const v = await authenticateSmtp(raw, { ip: GOOD_IP, helo: "mx", sender: "a@example.com", fromAddress: "a@example.com", timeoutMs: 50 });
      expect(v).toMatchObject({ spf: "temperror", authenticated: false });
    } finally {
      setAuthResolver(undefined);
    }
  });
});

describe.each(DIALECTS)("inbound mail on %s", (dialect) => {
  let t: TestDb;
  let accountId: number;

  async function deliver(m: Mail | string, opts: { ip?: string; source?: string; mailFrom?: string; key?: string; rcptTo?: string[] } = {}) {
    const raw = typeof m === "string" ? m : eml(m);
    const mid = /^message-id:\s*(.+)$/im.exec(raw)?.[1];
    const key = opts.key ?? mailEventKey(mid, createHash("sha256").update(raw).digest("hex"));
    const source = opts.source ?? "smtp";
    const from = /^from:.*?<?([^\s<>]+@[^\s<>]+)>?\s*$/im.exec(raw)?.[1] ?? "";
    const stored = await storeInboundEvent({
      accountId,
      provider: MAIL_PROVIDER,
      eventKey: key,
      source,
      meta: source === "smtp" ? { ip: opts.ip ?? GOOD_IP, helo: "mx.example.com", mailFrom: opts.mailFrom ?? from, rcptTo: opts.rcptTo ?? [MAILBOX] } : {},
      raw,
    });
    if (!stored.duplicate) await processInboundEvent(stored.eventId);
    const { db, schema } = t.handle;
    const [event] = await db
      .select()
      .from(schema.inboundEvents)
      .where(and(eq(schema.inboundEvents.provider, MAIL_PROVIDER), eq(schema.inboundEvents.eventKey, key)));
    return event;
  }

  const ticket = async (id: number | null) => {
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, id!));
    return row;
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  };
  const emailRow = async (messageId: number | null) => {
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.emailMessages).where(eq(schema.emailMessages.messageId, messageId!));
    return row;
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    fakeDns();
    // the demo seed may have made the mailbox already
    const input = { kind: "EMAIL" as const, name: "Support", address: MAILBOX, departmentId: 2, config: {}, secrets: {} };
    accountId = await saveAccount(input, (await accountByAddress("EMAIL", MAILBOX))?.id);
    const { db, schema } = t.handle;
    await db.update(schema.users).set({ email: "anna@omnidesk.localhost" }).where(eq(schema.users.username, "agent"));
  });
  afterAll(async () => {
    setAuthResolver(undefined);
    await t?.cleanup();
  });

  it("makes a new mail a ticket: contact, title = subject, receiver, department, reply token", async () => {
    const e = await deliver({
      from: "Carla Diaz <Carla@Example.com>",
      subject: "My order is late",
      messageId: "first-1@example.com",
      body: "Where is order 7?",
    });
    expect(e.state).toBe("processed");
    const tk = await ticket(e.ticketId);
    expect(tk).toMatchObject({ title: "My order is late", contactName: "Carla Diaz", contactEmail: "carla@example.com", receiverEmail: MAILBOX });
    expect(tk).toMatchObject({ departmentId: 2, channel: "EMAIL", status: 0, channelAccountId: accountId, lastMessage: "Where is order 7?" });
    const [m] = await messagesOf(tk.id);
    expect(m).toMatchObject({ type: "text", body: "Where is order 7?", senderName: "Carla Diaz" });
    const row = await emailRow(m.id);
    expect(row).toMatchObject({ direction: "in", internetMessageId: "first-1@example.com", fromAddress: "carla@example.com", auto: false });
    expect(JSON.parse(row.auth)).toMatchObject({ spf: "pass", authenticated: true, spoofedAgent: false });
    const { db, schema } = t.handle;
    const [thread] = await db.select().from(schema.emailThreads).where(eq(schema.emailThreads.ticketId, tk.id));
    expect(thread.replyToken).toMatch(/^[a-z0-9_-]{16,}$/);
  });

  it("threads replies: In-Reply-To, Outlook's rewritten In-Reply-To with References, Thread-Index only, [#n] from the customer", async () => {
    const first = await deliver({
      from: "bob@example.org",
      subject: "Invoice",
      messageId: "bob-1@example.org",
      headers: { "Thread-Index": "AdxdW9pKSlVga3aBjJeirbjDztnk7w==" },
    });
    const byReply = await deliver({ from: "bob@example.org", subject: "Re: Invoice", inReplyTo: "bob-1@example.org", body: "any news?" });
    expect(byReply.ticketId).toBe(first.ticketId);
    const outlook = await deliver({
      from: "bob@example.org",
      subject: "RE: Invoice",
      inReplyTo: "AM0PR10MB9999@am0pr10mb9999.eurprd10.prod.outlook.com",
      references: "<bob-1@example.org> <AM0PR10MB9999@am0pr10mb9999.eurprd10.prod.outlook.com>",
    });
    expect(outlook.ticketId).toBe(first.ticketId);
    // Outlook's next Thread-Index in the conversation: the 22-byte root plus one 5-byte block
    const child = Buffer.concat([Buffer.from("AdxdW9pKSlVga3aBjJeirbjDztnk7w==", "base64"), Buffer.from([0, 0, 1, 2, 7])]).toString("base64");
    const byIndex = await deliver({ from: "bob@example.org", subject: "Invoice (again)", headers: { "Thread-Index": child } });
    expect(byIndex.ticketId).toBe(first.ticketId);
    const n = (await ticket(first.ticketId)).ticketNumber;
    const byNumber = await deliver({ from: "bob@example.org", subject: `About [#${n}]` });
    expect(byNumber.ticketId).toBe(first.ticketId);
    // a stranger quoting the number gets their own ticket
    const stranger = await deliver({ from: "mallory@evil.example", subject: `Re: [#${n}] Invoice` });
    expect(stranger.state).toBe("processed");
    expect(stranger.ticketId).not.toBe(first.ticketId);
    // an authenticated customer's mail shows its envelope without a warning
    const { messages } = await loadMessages(await ticket(first.ticketId));
    expect(messages[0].email).toMatchObject({ from: "bob@example.org", to: [MAILBOX], cc: [], subject: "Invoice", authWarning: null });
    expect((await messagesOf(first.ticketId!)).filter((m) => m.type !== "system")).toHaveLength(5);
  });

  it("lets a CC'd person who replies join the ticket, and starts a new ticket for a forward to a new recipient", async () => {
    const first = await deliver({ from: "dora@example.com", cc: "Manager Max <max@example.com>", subject: "Broken", messageId: "dora-1@example.com" });
    const cc = await deliver({ from: "Manager Max <max@example.com>", subject: "Re: Broken", inReplyTo: "dora-1@example.com", cc: "dora@example.com" });
    expect(cc.ticketId).toBe(first.ticketId);
    const { db, schema } = t.handle;
    const people = await db.select().from(schema.emailParticipants).where(eq(schema.emailParticipants.ticketId, first.ticketId!));
    expect(people.map((p) => [p.address, p.name])).toEqual([["max@example.com", "Manager Max"]]);
    const fwd = await deliver({
      from: "dora@example.com",
      to: "colleague@example.com",
      cc: MAILBOX,
      subject: "Fwd: Broken",
      references: "<dora-1@example.com>",
    });
    expect(fwd.state).toBe("processed");
    expect(fwd.ticketId).not.toBe(first.ticketId);
  });

  it("reopens a closed ticket when the customer answers", async () => {
    const first = await deliver({ from: "eve@example.com", subject: "Refund", messageId: "eve-1@example.com" });
    const { db, schema } = t.handle;
    await db.update(schema.tickets).set({ status: 3 }).where(eq(schema.tickets.id, first.ticketId!));
    const again = await deliver({ from: "eve@example.com", subject: "Re: Refund", inReplyTo: "eve-1@example.com", body: "still waiting" });
    expect(again.ticketId).toBe(first.ticketId);
    expect(await ticket(first.ticketId)).toMatchObject({ status: 0, lastMessage: "still waiting" });
    const system = (await messagesOf(first.ticketId!)).filter((m) => m.type === "system");
    expect(JSON.parse(system[0].body)).toMatchObject({ event: "status", status: 0 });
  });

  it("stores auto-replies and bounces with the auto flag, the bounce in the original's ticket", async () => {
    const first = await deliver({ from: "fay@example.com", subject: "Question", messageId: "fay-1@example.com" });
    const ooo = await deliver({
      from: "fay@example.com",
      subject: "Out of Office: Question",
      inReplyTo: "fay-1@example.com",
      headers: { "Auto-Submitted": "auto-replied" },
    });
    expect(ooo.ticketId).toBe(first.ticketId);
    expect(await emailRow(ooo.messageId)).toMatchObject({ auto: true });
    const boundary = "b1";
    const dsn = [
      "From: Mail Delivery System <MAILER-DAEMON@mx.example.com>",
      `To: ${MAILBOX}`,
      "Subject: Undelivered Mail Returned to Sender",
      "Message-ID: <dsn-77@mx.example.com>",
      "Auto-Submitted: auto-replied",
      "MIME-Version: 1.0",
      `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
      "",
      `--${boundary}`,
      "Content-Type: text/plain",
      "",
      "Your message could not be delivered.",
      `--${boundary}`,
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; mx.example.com",
      "",
      "Final-Recipient: rfc822; fay@example.com",
      "Action: failed",
      "Status: 5.1.1",
      `--${boundary}`,
      "Content-Type: text/rfc822-headers",
      "",
      "From: fay@example.com",
      "Message-ID: <fay-1@example.com>",
      "Subject: Question",
      `--${boundary}--`,
      "",
    ].join("\r\n");
    const bounce = await deliver(dsn, { mailFrom: "" });
    expect(bounce.ticketId).toBe(first.ticketId);
    expect(await emailRow(bounce.messageId)).toMatchObject({ auto: true });
  });

  it("stores the same mail once, however often and however it comes", async () => {
    const m: Mail = { from: "gus@example.com", subject: "Twice", messageId: "gus-1@example.com" };
    const one = await deliver(m, { source: "imap" });
    await deliver(m, { source: "imap" });
    await deliver(m, { source: "imap" });
    await deliver(m);
    // the job run again (after a crash) finds the event done
    await processInboundEvent(one.id);
    expect((await messagesOf(one.ticketId!)).length).toBe(1);
    // the same mail under another event key (no Message-ID match in the key space) is still one message
    const other = await deliver(m, { key: "sha256:other-copy" });
    expect(other).toMatchObject({ state: "processed", ticketId: one.ticketId, messageId: one.messageId });
    expect((await messagesOf(one.ticketId!)).length).toBe(1);
  });

  it("sanitises HTML: no scripts, no remote trackers; keeps the cid inline image as a file and the attachment", async () => {
    const b = "mixed1";
    const r = "rel1";
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
      "hex",
    );
    const raw = [
      "From: hal@example.com",
      `To: ${MAILBOX}`,
      "Subject: Screenshot",
      "Message-ID: <hal-1@example.com>",
      "MIME-Version: 1.0",
      `Content-Type: multipart/mixed; boundary="${b}"`,
      "",
      `--${b}`,
      `Content-Type: multipart/related; boundary="${r}"`,
      "",
      `--${r}`,
      "Content-Type: text/html; charset=utf-8",
      "",
      '<p onclick="x()">See <b>this</b>:</p><img src="cid:shot1@example.com" alt="shot"><img src="https://tracker.example/p.gif?u=1" width="1"><script>alert(1)</script>',
      `--${r}`,
      "Content-Type: image/png",
      "Content-ID: <shot1@example.com>",
      "Content-Disposition: inline; filename=shot.png",
      "Content-Transfer-Encoding: base64",
      "",
      png.toString("base64"),
      `--${r}--`,
      `--${b}`,
      "Content-Type: application/pdf; name=invoice.pdf",
      "Content-Disposition: attachment; filename=invoice.pdf",
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from("%PDF-1.4 test").toString("base64"),
      `--${b}--`,
      "",
    ].join("\r\n");
    const e = await deliver(raw);
    const [text, image, pdf] = await messagesOf(e.ticketId!);
    expect(text.type).toBe("text/html");
    expect(text.body).not.toMatch(/script|alert|onclick|tracker\.example/);
    expect(text.body).toContain(`src="/files/v101/${image.id}/shot.png"`);
    expect(image).toMatchObject({ type: "image", fileName: "shot.png", fileSize: png.length });
    expect(pdf).toMatchObject({ type: "application/pdf", fileName: "invoice.pdf" });
    const stored = await fileStorage().get(pdf.fileKey!);
    expect(Buffer.from(await new Response(stored).arrayBuffer()).toString()).toBe("%PDF-1.4 test");
  });

  it("folds quoted history away: plain text shows what is new, the quote kept beside it; HTML folds it in <details>", async () => {
    const e = await deliver({
      from: "ida@example.com",
      subject: "Re: x",
      body: "Yes please.\n\nOn Mon, 23 Nov 2026 at 10:00, Support <support@omnidesk.localhost> wrote:\n> Shall we refund?\n> Thanks",
    });
    const { messages } = await loadMessages(await ticket(e.ticketId));
    expect(messages[0]).toMatchObject({ type: "text", body: "Yes please." });
    expect(messages[0].email?.quoted).toContain("Shall we refund?");
    expect((await ticket(e.ticketId)).lastMessage).toBe("Yes please.");
    const html = await deliver({
      from: "ida@example.com",
      subject: "Re: y",
      html: '<div>Thanks, done.</div><div class="gmail_quote">On Mon, Support wrote:<blockquote>Old text</blockquote></div>',
    });
    const [m] = await messagesOf(html.ticketId!);
    expect(m.type).toBe("text/html");
    expect(m.body).toMatch(/^<div>Thanks, done\.<\/div><details class="quoted-history"><summary>…<\/summary>/);
    expect(m.body).toContain("Old text");
    expect((await ticket(html.ticketId)).lastMessage).toBe("Thanks, done.");
  });

  it("survives broken charsets and malformed MIME: a ticket or a clear quarantine", async () => {
    const charset = await deliver(
      "From: jo@example.com\r\nTo: support@omnidesk.localhost\r\nSubject: =?x-unknown?Q?abc?=\r\nMessage-ID: <jo-1@example.com>\r\nContent-Type: text/plain; charset=x-broken-42\r\n\r\nCaf\xe9 na\xefve\r\n",
    );
    expect(charset.state).toBe("processed");
    expect((await messagesOf(charset.ticketId!))[0].body).toContain("Caf");
    const mime = await deliver(
      'From: kim@example.com\r\nTo: support@omnidesk.localhost\r\nSubject: broken\r\nMessage-ID: <kim-1@example.com>\r\nContent-Type: multipart/mixed; boundary="never-closed"\r\n\r\n--never-closed\r\nContent-Type: text/plain\r\n\r\nhello\r\n--never-clo',
    );
    expect(mime.state).toBe("processed");
    const noSender = await deliver("To: support@omnidesk.localhost\r\nSubject: who?\r\n\r\nbody\r\n");
    expect(noSender).toMatchObject({ state: "quarantined", ticketId: null });
    expect(noSender.error).toMatch(/sender/);
  });

  it("stores a mail From an agent's address without authentication, flagged for the warning", async () => {
    const e = await deliver({ from: "Anna <anna@omnidesk.localhost>", subject: "Please refund me" }, { ip: BAD_IP });
    expect(e.state).toBe("processed");
    const [m] = await messagesOf(e.ticketId!);
    expect(m.senderUserId).toBeNull();
    expect(JSON.parse((await emailRow(m.id)).auth)).toMatchObject({ spf: "fail", authenticated: false, spoofedAgent: true });
    // the page warns on it
    const { messages } = await loadMessages(await ticket(e.ticketId));
    expect(messages[0].email).toMatchObject({ from: "Anna <anna@omnidesk.localhost>", to: [MAILBOX], authWarning: "spoofedAgent" });
    // a customer's mail from a server its domain does not allow: stored, with the failed-check warning
    const forged = await deliver({ from: "ceo@bank.example", subject: "Wire the money" }, { ip: BAD_IP });
    expect((await loadMessages(await ticket(forged.ticketId))).messages[0].email?.authWarning).toBe("authFailed");
  });

  it("takes the verdict of our own relay (a loopback or private client) from its Authentication-Results, not from SPF of the relay", async () => {
    const viaRelay = (results: string | null, subject: string) =>
      deliver(
        [
          ...(results ? [`Authentication-Results: mx.omnidesk.localhost; ${results}`] : []),
          "From: Rita <rita@example.com>",
          `To: ${MAILBOX}`,
          `Subject: ${subject}`,
          `Message-ID: <${subject.replace(/\W/g, "")}-${Date.now()}@example.com>`,
          "",
          "Hello",
          "",
        ].join("\r\n"),
        { ip: "127.0.0.1" },
      );
    const passed = await viaRelay("spf=pass smtp.mailfrom=example.com; dkim=pass header.d=example.com; dmarc=pass header.from=example.com", "relayed pass");
    expect(JSON.parse((await emailRow(passed.messageId)).auth)).toMatchObject({ dmarc: "pass", authenticated: true, method: "header" });
    const unchecked = await viaRelay(null, "relayed unchecked");
    const auth = JSON.parse((await emailRow(unchecked.messageId)).auth);
    expect(auth).toMatchObject({ authenticated: false, method: "header" });
    // nothing failed, so the agent is not warned about it
    expect((await loadMessages(await ticket(unchecked.ticketId))).messages[0].email?.authWarning).toBeNull();
    expect([isRelayAddress("10.1.2.3"), isRelayAddress("::ffff:192.168.1.5"), isRelayAddress("fd00::1"), isRelayAddress("203.0.113.9")]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it("refuses a mail over the size limit with a reason, keeping no file and no ticket", async () => {
    const filesBefore = countFiles();
    process.env.MAIL_MAX_BYTES = String(200_000);
    try {
      const big = Buffer.alloc(300_000, 7).toString("base64");
      const raw = [
        "From: max@example.com",
        `To: ${MAILBOX}`,
        "Subject: Huge",
        "Message-ID: <huge-1@example.com>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="h"',
        "",
        "--h",
        "Content-Type: text/plain",
        "",
        "see attached",
        "--h",
        "Content-Type: application/octet-stream; name=big.bin",
        "Content-Transfer-Encoding: base64",
        "",
        big,
        "--h--",
        "",
      ].join("\r\n");
      const e = await deliver(raw);
      expect(e).toMatchObject({ state: "quarantined", ticketId: null });
      expect(e.error).toMatch(/larger than/);
    } finally {
      delete process.env.MAIL_MAX_BYTES;
    }
    // only the raw mail itself is kept (for review), no half-stored attachment
    expect(countFiles()).toBe(filesBefore + 1);
  });

  it("survives huge headers: 10,000 References are stored bounded, a 1 MB header is quarantined with a reason", async () => {
    const refs = Array.from({ length: 10_000 }, (_, i) => `<r${i}@example.com>`).join(" ");
    const e = await deliver({ from: "ned@example.com", subject: "Long thread", references: refs });
    expect(e.state, e.error ?? "").toBe("processed");
    expect((await emailRow(e.messageId)).references.split(" ")).toHaveLength(100);
    const huge = await deliver({ from: "ned@example.com", subject: "x".repeat(3_000_000) });
    expect(huge).toMatchObject({ state: "quarantined", ticketId: null });
    expect(huge.error).toMatch(/header size/);
  });

  it("over IMAP trusts only the topmost Authentication-Results (the receiving provider's)", async () => {
    const forged = await deliver(
      {
        from: "anna@omnidesk.localhost",
        subject: "Change my bank details",
        headers: { "Authentication-Results": "mx.provider.example; spf=fail smtp.mailfrom=omnidesk.localhost; dmarc=fail header.from=omnidesk.localhost" },
        raw: undefined,
      },
      { source: "imap" },
    );
    // the sender's own "pass" below the provider's header changes nothing
    expect(JSON.parse((await emailRow(forged.messageId)).auth)).toMatchObject({ method: "header", dmarc: "fail", spoofedAgent: true });
    const raw = eml({ from: "anna@omnidesk.localhost", subject: "Note from Anna" }).replace(
      "Date:",
      "Authentication-Results: mx.provider.example; dkim=pass header.d=omnidesk.localhost; dmarc=pass header.from=omnidesk.localhost\r\nAuthentication-Results: forged; dmarc=fail\r\nDate:",
    );
    const genuine = await deliver(raw, { source: "imap" });
    expect(JSON.parse((await emailRow(genuine.messageId)).auth)).toMatchObject({ method: "header", dmarc: "pass", authenticated: true, spoofedAgent: false });
  });

  it("writes nothing when the transaction fails: no ticket, no message, no stored attachment; the job can run again", async () => {
    const { db, schema } = t.handle;
    // the email row is the transaction's last write but one: make it fail
    const exec = (q: SQL) => (dialect === "sqlite" ? db.run(q) : (db as unknown as { execute(q: SQL): Promise<unknown> }).execute(q));
    if (dialect === "sqlite") await exec(sql`create trigger fail_mail before insert on email_messages begin select raise(abort, 'disk full'); end`);
    else {
      await exec(sql`create function fail_mail() returns trigger as $$ begin raise exception 'disk full'; end $$ language plpgsql`);
      await exec(sql`create trigger fail_mail before insert on email_messages for each row execute function fail_mail()`);
    }
    const [{ n: ticketsBefore }] = await db.select({ n: sql<number>`count(*)` }).from(schema.tickets);
    const filesBefore = countFiles();
    const raw = [
      "From: oli@example.com",
      `To: ${MAILBOX}`,
      "Subject: With a file",
      "Message-ID: <oli-1@example.com>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="o"',
      "",
      "--o",
      "Content-Type: text/plain",
      "",
      "see file",
      "--o",
      "Content-Type: application/pdf; name=a.pdf",
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from("%PDF-1.4 a").toString("base64"),
      "--o--",
      "",
    ].join("\r\n");
    await expect(deliver(raw)).rejects.toThrow();
    const [{ n: ticketsAfter }] = await db.select({ n: sql<number>`count(*)` }).from(schema.tickets);
    expect(Number(ticketsAfter)).toBe(Number(ticketsBefore));
    // the raw mail is kept for the next try; the attachment stored before the transaction is gone
    expect(countFiles()).toBe(filesBefore + 1);
    if (dialect === "sqlite") await exec(sql`drop trigger fail_mail`);
    else await exec(sql`drop trigger fail_mail on email_messages; drop function fail_mail()`);
    const [event] = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.eventKey, "mid:oli-1@example.com"));
    expect(event.state).toBe("received");
    await processInboundEvent(event.id);
    const [done] = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.id, event.id));
    expect(done.state).toBe("processed");
    expect((await messagesOf(done.ticketId!)).map((m) => m.fileName)).toEqual([null, "a.pdf"]);
  });

  it("keeps 10,000 recipients from becoming 10,000 participants", async () => {
    const first = await deliver({ from: "lee@example.com", subject: "List", messageId: "lee-1@example.com" });
    const many = Array.from({ length: 10_000 }, (_, i) => `p${i}@example.net`).join(", ");
    const e = await deliver({ from: "lee@example.com", cc: many, subject: "Re: List", inReplyTo: "lee-1@example.com" });
    expect(e.ticketId).toBe(first.ticketId);
    const { db, schema } = t.handle;
    const [{ n }] = await db
      .select({ n: sql<number>`count(*)` })
      .from(schema.emailParticipants)
      .where(eq(schema.emailParticipants.ticketId, first.ticketId!));
    expect(Number(n)).toBeLessThanOrEqual(20);
    expect(await emailRow(e.messageId)).toMatchObject({ recipientCount: 10_001 });
  });
});

// ---------- the threading corpus, through the database ----------

const DIR = path.resolve("tests/fixtures/email-threading");

interface FixtureTicket {
  id: number;
  number: number;
  customer: string[];
  participants: string[];
  mailbox: string;
  closed?: boolean;
  replyToken?: string;
  threadIndex?: string;
  messages: { id: string; direction: "in" | "out"; recipientCount?: number; bulk?: boolean }[];
}
type Addr = { address: string; name?: string };
interface Scenario {
  tickets: FixtureTicket[];
  agents: string[];
  mailboxes: string[];
  mail?: Record<string, unknown> & { from: Addr };
  eml?: string;
  mailExtra?: { authenticated: boolean; envelopeRecipients?: string[] };
  expect: { action: "append" | "new"; ticketId?: number; addParticipants?: string[]; auto?: boolean; noAutoReply?: boolean; spoofedAgent?: boolean };
}

const list = (v: unknown) => ((v as Addr[] | undefined) ?? []).map((a) => (a.name ? `"${a.name}" <${a.address}>` : a.address)).join(", ");

/** A raw mail from a scenario's normalised mail. */
function corpusEml(m: NonNullable<Scenario["mail"]>): string {
  const h: string[] = [`From: ${list([m.from])}`];
  if ((m.to as Addr[] | undefined)?.length) h.push(`To: ${list(m.to)}`);
  if ((m.cc as Addr[] | undefined)?.length) h.push(`Cc: ${list(m.cc)}`);
  if ((m.replyTo as Addr[] | undefined)?.length) h.push(`Reply-To: ${list(m.replyTo)}`);
  for (const d of (m.deliveredTo as string[] | undefined) ?? []) h.push(`Delivered-To: ${d}`);
  h.push(`Subject: =?utf-8?B?${Buffer.from(String(m.subject ?? "")).toString("base64")}?=`);
  if (m.messageId) h.push(`Message-ID: <${m.messageId}>`);
  if (m.inReplyTo) h.push(`In-Reply-To: <${m.inReplyTo}>`);
  if ((m.references as string[] | undefined)?.length) h.push(`References: ${(m.references as string[]).map((r) => `<${r}>`).join(" ")}`);
  const headers: [string, string][] = [
    ["threadIndex", "Thread-Index"],
    ["autoSubmitted", "Auto-Submitted"],
    ["precedence", "Precedence"],
    ["xAutoResponseSuppress", "X-Auto-Response-Suppress"],
    ["xAutoreply", "X-Autoreply"],
    ["xAutorespond", "X-Autorespond"],
    ["returnPath", "Return-Path"],
  ];
  for (const [k, name] of headers) if (m[k] != null) h.push(`${name}: ${m[k]}`);
  if (m.listId) h.push(`List-Id: <${m.listId}>`);
  h.push("MIME-Version: 1.0");
  const report = String(m.contentType ?? "").startsWith("multipart/report") || !!m.reportedMessageId;
  if (!report) return [...h, "Content-Type: text/plain; charset=utf-8", "", "Corpus mail.", ""].join("\r\n");
  return [
    ...h,
    'Content-Type: multipart/report; report-type=delivery-status; boundary="r"',
    "",
    "--r",
    "Content-Type: text/plain",
    "",
    "Delivery report.",
    "--r",
    "Content-Type: text/rfc822-headers",
    "",
    m.reportedMessageId ? `Message-ID: <${m.reportedMessageId}>` : "Subject: unknown",
    "--r--",
    "",
  ].join("\r\n");
}

const scenarios = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => ({ name: f.replace(/\.json$/, ""), s: JSON.parse(readFileSync(path.join(DIR, f), "utf8")) as Scenario }));

describe.each(DIALECTS)("threading corpus through the database on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    fakeDns();
  });
  afterAll(async () => {
    setAuthResolver(undefined);
    await t?.cleanup();
  });

  it("replays every scenario", () => expect(scenarios.length).toBeGreaterThanOrEqual(60));

  it.each(scenarios)("$name", async ({ s }) => {
    const { db, schema } = t.handle;
    // a clean slate per scenario
    for (const table of [
      schema.emailParticipants,
      schema.emailThreads,
      schema.emailMessages,
      schema.messages,
      schema.inboundEvents,
      schema.jobs,
      schema.tickets,
    ])
      await db.delete(table);
    await db.delete(schema.channelAccounts);
    await db.delete(schema.users).where(ne(schema.users.username, ""));
    const accounts: number[] = [];
    for (const address of s.mailboxes) accounts.push(await saveAccount({ kind: "EMAIL", name: address, address, departmentId: null, config: {}, secrets: {} }));
    for (const [i, email] of s.agents.entries())
      await db.insert(schema.users).values({ username: `agent${i}`, name: `Agent ${i}`, type: "agent", passwordHash: "x", email, createdAt: 1 });
    const realId = new Map<number, number>();
    for (const ft of s.tickets) {
      const [row] = await db
        .insert(schema.tickets)
        .values({
          ticketNumber: ft.number,
          title: "Corpus",
          channel: "EMAIL",
          kind: kindOf("EMAIL"),
          status: ft.closed ? 3 : 0,
          contactEmail: ft.customer[0] ?? "",
          receiverEmail: ft.mailbox,
          channelAccountId: accounts[Math.max(0, s.mailboxes.indexOf(ft.mailbox))],
          createdAt: 1,
          updatedAt: 1,
        })
        .returning();
      realId.set(ft.id, row.id);
      for (const [i, c] of ft.customer.slice(1).concat(ft.participants).entries())
        await db.insert(schema.emailParticipants).values({ ticketId: row.id, address: c, addedAt: i }).onConflictDoNothing();
      if (ft.replyToken) await db.insert(schema.emailThreads).values({ ticketId: row.id, replyToken: ft.replyToken, createdAt: 1 });
      const stored = ft.messages.length ? ft.messages : ft.threadIndex ? [{ id: `thread-${ft.id}@corpus`, direction: "in" as const }] : [];
      for (const [i, m] of stored.entries()) {
        const [msg] = await db.insert(schema.messages).values({ ticketId: row.id, body: "stored", createdAt: 1 }).returning();
        await db.insert(schema.emailMessages).values({
          messageId: msg.id,
          ticketId: row.id,
          direction: m.direction,
          internetMessageId: normalizeMessageId(m.id),
          recipientCount: "recipientCount" in m ? (m.recipientCount ?? 1) : 1,
          bulk: "bulk" in m ? !!m.bulk : false,
          fromAddress: m.direction === "in" ? (ft.customer[0] ?? "") : ft.mailbox,
          threadIndex: i === 0 ? (ft.threadIndex ?? null) : null,
          threadIndexRoot: i === 0 ? threadIndexRoot(ft.threadIndex) : null,
          createdAt: 1 + i,
        });
      }
    }

    const raw = s.eml ? readFileSync(path.join(DIR, s.eml), "utf8") : corpusEml(s.mail!);
    const authenticated = s.eml ? (s.mailExtra?.authenticated ?? true) : s.mail!.authenticated !== false;
    const from = s.mail?.from.address ?? /^from:.*?<?([^\s<>]+@[^\s<>]+)>?\s*$/im.exec(raw)?.[1] ?? "";
    const stored = await storeInboundEvent({
      accountId: accounts[0],
      provider: MAIL_PROVIDER,
      eventKey: `corpus:${createHash("sha256").update(raw).digest("hex")}`,
      source: "smtp",
      meta: { ip: authenticated ? GOOD_IP : BAD_IP, helo: "mx.example.com", mailFrom: from, rcptTo: s.mailExtra?.envelopeRecipients ?? [] },
      raw,
    });
    if (stored.duplicate) throw new Error("duplicate corpus event");
    await processInboundEvent(stored.eventId);
    const [event] = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.id, stored.eventId));
    expect(event.state, event.error ?? "").toBe("processed");
    const known = [...realId.values()];
    if (s.expect.action === "append") expect(event.ticketId).toBe(realId.get(s.expect.ticketId!));
    else expect(known).not.toContain(event.ticketId);
    // what the decision said is kept: never-answer flag, the spoofing warning, the people who joined
    const row = (await db.select().from(schema.emailMessages).where(eq(schema.emailMessages.messageId, event.messageId!)))[0];
    // (a second copy points at the stored row the scenario made, which has no verdict)
    if (row?.auth) {
      if (s.expect.noAutoReply !== undefined && !s.expect.spoofedAgent) expect(row.auto).toBe(s.expect.noAutoReply);
      if (s.expect.spoofedAgent !== undefined) expect(JSON.parse(row.auth).spoofedAgent).toBe(s.expect.spoofedAgent);
    }
    if (s.expect.action === "append" && s.expect.addParticipants?.length) {
      const people = await db
        .select({ address: schema.emailParticipants.address })
        .from(schema.emailParticipants)
        .where(and(eq(schema.emailParticipants.ticketId, event.ticketId!), inArray(schema.emailParticipants.address, s.expect.addParticipants)));
      expect(people.map((p) => p.address).sort()).toEqual([...s.expect.addParticipants].sort());
    }
  });
});
