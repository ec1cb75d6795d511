// IMAP polling against a real Dovecot on loopback (started once for this file), on SQLite and
// PostgreSQL: each mail becomes one inbound event however often it is fetched or delivered, the
// cursor follows UIDs (not \Seen), a new UIDVALIDITY doubles nothing, a 50 MB mail streams.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startDovecot, type Dovecot } from "../support/dovecot";
import { loadAccount, saveAccount, accountRow, setAccountEnabled } from "@plugins/channels/accounts.server";
import { recordInboundEvent } from "@plugins/channels/inbound.server";
import { MAIL_PROVIDER, mailEventKey } from "@plugins/email/event-key";
import { pollImap, testImap, watchImap } from "@plugins/email/imap.server";
import { createWatchers, LEASE_KEY } from "@plugins/channels/watchers.server";
import { fileStorage } from "~/storage.server";

let dovecot: Dovecot;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-imap-data-"));
process.env.DATA_DIR = dataDir;

beforeAll(async () => {
  dovecot = await startDovecot();
});
afterAll(async () => {
  await dovecot?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

let seq = 0;
const mail = (subject: string, opts: { messageId?: string | null; body?: string } = {}) => {
  const id = opts.messageId === undefined ? `<imap-${Date.now()}-${++seq}@customer.example>` : opts.messageId;
  return [
    "From: Customer <customer@example.com>",
    "To: support@desk.example",
    `Subject: ${subject}`,
    "Date: Tue, 24 Nov 2026 10:00:00 +0000",
    ...(id ? [`Message-ID: ${id}`] : []),
    "Content-Type: text/plain; charset=utf-8",
    "",
    opts.body ?? `Hello about ${subject}`,
    "",
  ].join("\r\n");
};

async function events(t: TestDb) {
  const { db, schema } = t.handle;
  return db.select().from(schema.inboundEvents).orderBy(schema.inboundEvents.id);
}

async function account(mailbox: string, password = dovecot.password) {
  const id = await saveAccount({
    kind: "EMAIL",
    name: `IMAP ${mailbox}`,
    address: `${mailbox}-${++seq}@desk.example`,
    departmentId: null,
    config: { imapHost: dovecot.host, imapPort: String(dovecot.port), imapUser: dovecot.user, imapMailbox: mailbox },
    secrets: { imapPassword: password },
  });
  return (await loadAccount(id))!;
}

describe.each(DIALECTS)("IMAP polling (%s)", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
  });
  afterAll(async () => t?.cleanup());

  it("stores each new mail once, and a later poll fetches only the new UIDs", async () => {
    const box = `poll-${dialect}`;
    await dovecot.recreate(box);
    const a = await account(box);
    await dovecot.deliver([mail("one"), mail("two"), mail("three")], { mailbox: box });
    const first = await pollImap(a);
    expect(first).toMatchObject({ seen: 3, stored: 3 });
    let stored = (await events(t)).filter((e) => e.accountId === a.id);
    expect(stored.map((e) => e.source)).toEqual(["imap", "imap", "imap"]);
    expect(stored.map((e) => JSON.parse(e.meta).uid).sort()).toEqual([1, 2, 3]);
    // the bytes kept are the mail as the server had it
    const raw = await new Response(await fileStorage().get(stored.find((e) => JSON.parse(e.meta).uid === 2)!.rawKey!)).text();
    expect(raw).toContain("Subject: two");

    await dovecot.deliver([mail("four")], { mailbox: box });
    const second = await pollImap(a);
    expect(second).toMatchObject({ seen: 1, stored: 1 });
    const third = await pollImap(a);
    expect(third).toMatchObject({ seen: 0, stored: 0 });
    stored = (await events(t)).filter((e) => e.accountId === a.id);
    expect(stored).toHaveLength(4);
  });

  it("the same mail appended three times and delivered once over SMTP is one event", async () => {
    const box = `dup-${dialect}`;
    await dovecot.recreate(box);
    const a = await account(box);
    const same = mail("again and again", { messageId: `<same-${dialect}@customer.example>` });
    await dovecot.deliver([same, same, same], { mailbox: box });
    // and the SMTP listener stored it too (same key space)
    const smtpKey = await fileStorage().put(Buffer.from(same));
    await recordInboundEvent({
      accountId: a.id,
      provider: MAIL_PROVIDER,
      eventKey: mailEventKey(`<same-${dialect}@customer.example>`, "x"),
      source: "smtp",
      rawKey: smtpKey,
      size: same.length,
    });
    const result = await pollImap(a);
    expect(result).toMatchObject({ seen: 3, stored: 0, skipped: 3 });
    const stored = (await events(t)).filter((e) => e.eventKey === `mid:same-${dialect}@customer.example`);
    expect(stored).toHaveLength(1);
    expect(stored[0].source).toBe("smtp");

    // mails without a Message-ID are told apart by their bytes: two equal ones are one
    const bare = mail("no id", { messageId: null });
    await dovecot.deliver([bare, bare, mail("no id either", { messageId: null })], { mailbox: box });
    expect(await pollImap(a)).toMatchObject({ seen: 3, stored: 2, skipped: 1 });
  });

  it("a new UIDVALIDITY (mailbox recreated) starts over without doubling anything", async () => {
    const box = `validity-${dialect}`;
    const mails = [mail("v1"), mail("v2")];
    await dovecot.recreate(box, mails);
    const a = await account(box);
    expect(await pollImap(a)).toMatchObject({ stored: 2 });
    const cursorOf = async () => {
      const c = t.handle.schema.channelCursors;
      const [row] = await t.handle.db.select().from(c).where(eq(c.accountId, a.id));
      return JSON.parse(row.value) as { uidValidity: string; lastUid: number };
    };
    const cursorBefore = await cursorOf();
    // the same two mails and one new one in a mailbox created again: other UIDVALIDITY, UIDs from 1
    await dovecot.recreate(box, [...mails, mail("v3")]);
    const after = await pollImap(a);
    expect(after).toMatchObject({ seen: 3, stored: 1, skipped: 2 });
    const stored = (await events(t)).filter((e) => e.accountId === a.id);
    expect(stored).toHaveLength(3);
    const cursor = await cursorOf();
    expect(cursor.lastUid).toBe(3);
    expect(cursor.uidValidity).not.toBe(cursorBefore.uidValidity);
  });

  it("\\Seen is neither needed nor set: a mail read elsewhere is still fetched, an unread one stays unread", async () => {
    const box = `seen-${dialect}`;
    await dovecot.recreate(box);
    const a = await account(box);
    await dovecot.deliver([mail("already read")], { mailbox: box, flags: ["\\Seen"] });
    await dovecot.deliver([mail("unread")], { mailbox: box });
    expect(await pollImap(a)).toMatchObject({ seen: 2, stored: 2 });
    const c = await dovecot.client();
    try {
      await c.mailboxOpen(box, { readOnly: true });
      const flags = (await c.fetchAll("1:*", { uid: true, flags: true }, { uid: true })).map((m) => [...(m.flags ?? [])].filter((f) => f !== "\\Recent"));
      expect(flags).toEqual([["\\Seen"], []]);
    } finally {
      await c.logout();
    }
  });

  it("a poll that breaks off mid-way loses nothing and doubles nothing: the cursor only passes recorded mails", async () => {
    const box = `crash-${dialect}`;
    await dovecot.recreate(box);
    const a = await account(box);
    await dovecot.deliver([mail("c1"), mail("c2"), mail("c3")], { mailbox: box });
    const storage = fileStorage();
    const real = storage.putStream.bind(storage);
    // storing mail c2 fails (the disk filled up), whichever order the lanes store in
    const spy = vi.spyOn(storage, "putStream").mockImplementation(async (stream, options) => {
      const bytes = Buffer.concat(await stream.toArray());
      if (bytes.includes("Subject: c2")) throw new Error("disk full");
      return real(Readable.from([bytes]), options);
    });
    try {
      await expect(pollImap(a)).rejects.toThrow("disk full");
    } finally {
      spy.mockRestore();
    }
    // mail 3 may have been stored alongside; the cursor stays before the mail that failed
    const c = t.handle.schema.channelCursors;
    const [cursor] = await t.handle.db.select().from(c).where(eq(c.accountId, a.id));
    expect(JSON.parse(cursor.value).lastUid).toBe(1);
    expect(await pollImap(a)).toMatchObject({ seen: 2 });
    const stored = (await events(t)).filter((e) => e.accountId === a.id);
    expect(stored.map((e) => JSON.parse(e.meta).uid).sort()).toEqual([1, 2, 3]);
  });

  it("a mail over MAIL_MAX_BYTES is recorded without its bytes (shown as failed), and polling goes on", async () => {
    const box = `toolarge-${dialect}`;
    await dovecot.recreate(box);
    const a = await account(box);
    await dovecot.deliver([mail("huge", { body: "x".repeat(5000) }), mail("small")], { mailbox: box });
    process.env.MAIL_MAX_BYTES = "2000";
    try {
      expect(await pollImap(a)).toMatchObject({ seen: 2, stored: 1, tooLarge: 1 });
    } finally {
      delete process.env.MAIL_MAX_BYTES;
    }
    const mine = (await events(t)).filter((e) => e.accountId === a.id);
    const [huge, small] = [1, 2].map((uid) => mine.find((e) => JSON.parse(e.meta).uid === uid)!);
    expect(huge).toMatchObject({ rawKey: null });
    expect(JSON.parse(huge.meta)).toMatchObject({ tooLarge: true, uid: 1 });
    expect(small.rawKey).not.toBeNull();
  });

  it("a wrong password: the test says so and the watcher marks the account failing", async () => {
    const box = `auth-${dialect}`;
    await dovecot.recreate(box);
    const good = await account(box);
    expect(await testImap(good)).toEqual({ ok: true });
    expect(await testImap({ ...good, config: { ...good.config, imapMailbox: "NoSuchFolder" } })).toMatchObject({
      ok: false,
      error: expect.stringContaining("NoSuchFolder"),
    });
    const bad = await account(box, "wrong-password");
    const tested = await testImap(bad);
    expect(tested.ok).toBe(false);
    expect(!tested.ok && tested.error).toMatch(/IMAP login failed: .*Authentication failed/i);
    const stop = watchImap(bad);
    for (let i = 0; i < 100 && (await accountRow(bad.id))?.state !== "failing"; i++) await new Promise((r) => setTimeout(r, 100));
    await stop();
    expect(await accountRow(bad.id)).toMatchObject({ state: "failing", lastError: expect.stringMatching(/IMAP login failed/) });
  });
});

describe("a 50 MB mail over IMAP", () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb("sqlite");
  });
  afterAll(async () => t?.cleanup());

  it("is stored whole while the heap stays flat", async () => {
    const box = "large";
    await dovecot.recreate(box);
    const a = await account(box);
    // 50 MB of attachment, base64 in 76-column lines as a mail client writes it
    const attachment = Buffer.alloc(50 * 1024 * 1024, 7)
      .toString("base64")
      .replace(/.{76}/g, "$&\r\n");
    const big = Buffer.from(
      [
        "From: Customer <customer@example.com>",
        "To: support@desk.example",
        "Subject: big attachment",
        `Message-ID: <big-${Date.now()}@customer.example>`,
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="b"',
        "",
        "--b",
        "Content-Type: text/plain",
        "",
        "see attached",
        "--b",
        "Content-Type: application/octet-stream",
        "Content-Transfer-Encoding: base64",
        'Content-Disposition: attachment; filename="big.bin"',
        "",
        attachment,
        "--b--",
        "",
      ].join("\r\n"),
    );
    const size = big.length;
    await dovecot.deliver([big], { mailbox: box });
    // live memory, not garbage: a collection before each sample (V8 lets freed chunks pile up
    // until its external-memory threshold, which says nothing about what the download holds)
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    gc();
    const before = process.memoryUsage();
    let peakLive = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      gc();
      const m = process.memoryUsage();
      peakLive = Math.max(peakLive, m.heapUsed + m.arrayBuffers - before.heapUsed - before.arrayBuffers);
      samples++;
    }, 10);
    const result = await pollImap(a);
    clearInterval(sampler);
    expect(result).toMatchObject({ stored: 1 });
    const [event] = (await events(t)).filter((e) => e.accountId === a.id);
    expect(event.size).toBe(size);
    // and the stored bytes are the mail, unchanged
    const stored = await new Response(await fileStorage().get(event.rawKey!)).arrayBuffer();
    expect(Buffer.from(stored).equals(big)).toBe(true);
    console.log(
      `a ${(size / 2 ** 20).toFixed(1)} MB mail over IMAP: peak live memory growth ${(peakLive / 2 ** 20).toFixed(1)} MB (heap + array buffers, ${samples} samples)`,
    );
    expect(samples).toBeGreaterThan(5);
    // a copy of the whole mail held anywhere would be 68 MB on its own
    expect(peakLive).toBeLessThan(20 * 2 ** 20);
  }, 120_000);
});

describe.each(DIALECTS)("channel watchers: one node per account (%s)", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    process.env.IMAP_POLL_MS = "100";
  });
  afterAll(async () => {
    delete process.env.IMAP_POLL_MS;
    await t?.cleanup();
  });

  const until = async (what: () => Promise<boolean>, ms = 10_000) => {
    for (const end = Date.now() + ms; Date.now() < end;) {
      if (await what()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("timed out");
  };

  it("one node polls an account; another takes over when it stops or stops renewing; a settings change restarts it", async () => {
    const box = `watch-${dialect}`;
    await dovecot.recreate(box, [mail("w1")]);
    const a = await account(box);
    // refreshMs far away: the test drives renewals by hand, so a node "crashes" by not renewing
    const nodeA = createWatchers({ nodeId: "node-a", leaseMs: 400, refreshMs: 3_600_000 });
    const nodeB = createWatchers({ nodeId: "node-b", leaseMs: 400, refreshMs: 3_600_000 });
    try {
      await nodeA.start();
      await nodeB.start();
      expect(nodeA.watching()).toEqual([a.id]);
      expect(nodeB.watching()).toEqual([]);
      await until(async () => (await events(t)).length === 1);

      // A stops renewing: once its lease ran out, B takes the account and A gives it up
      await new Promise((r) => setTimeout(r, 500));
      await nodeB.refresh();
      expect(nodeB.watching()).toEqual([a.id]);
      await nodeA.refresh();
      expect(nodeA.watching()).toEqual([]);

      // the admin points the account at another folder: the watcher starts again with it
      const other = `watch2-${dialect}`;
      await dovecot.recreate(other, [mail("w2")]);
      await saveAccount(
        { kind: "EMAIL", name: a.name, address: a.address, departmentId: null, config: { ...a.config, imapMailbox: other }, secrets: {} },
        a.id,
      );
      await nodeB.changed(a.id);
      await until(async () => (await events(t)).some((e) => JSON.parse(e.meta).mailbox === other));

      // B stops and lets go: A takes it at once
      await nodeB.stop();
      await nodeA.refresh();
      expect(nodeA.watching()).toEqual([a.id]);
      expect((await events(t)).length).toBe(2);

      // disabled: nobody watches it and its lease is gone
      await setAccountEnabled(a.id, false);
      await nodeA.changed(a.id);
      expect(nodeA.watching()).toEqual([]);
      const c = t.handle.schema.channelCursors;
      expect(await t.handle.db.select().from(c).where(eq(c.key, LEASE_KEY))).toEqual([]);
    } finally {
      await nodeA.stop();
      await nodeB.stop();
    }
  });
});
