// The LINE_DM adapter against a local stand-in that speaks the LINE Messaging API as documented
// (tests/support/line-standin.ts), through the product's own webhook route and jobs, on both
// dialects: signed calls become conversations with the customer's LINE name, unsigned and wrongly
// signed ones leave nothing; every event of a batch is processed and a redelivery adds nothing;
// pictures and files are fetched from the content API (a failed fetch is tried again); agents'
// replies go out with the reply token once while it is fresh, else by push with a retry key, so a
// push whose answer was lost is not sent twice; refusals show LINE's words and 429 waits.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startLineStandin, type LineStandin } from "../support/line-standin";
import { startPublicFilesDoor } from "../support/public-files-door";
import { PUBLIC_FILE_TTL_MS, publicFileResponse, publicFileUrl } from "@plugins/channels/public-files.server";
import { seedDemo } from "~/seed/seed";
import { setSetting } from "~/models/settings.server";
import { sendReply } from "~/conversation/reply.server";
import type { TicketRow } from "~/conversation/model.server";
import { createJobWorker } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import { webhookCall } from "@plugins/channels/webhook.server";
import { processInboundEvent } from "@plugins/channels/inbound.server";
import { defineMediaJob } from "@plugins/channels/pending-media.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { saveAccountForm } from "@plugins/channels/settings.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { adapter } from "@plugins/line/adapter.server";
import { retryKey } from "@plugins/line/api.server";
import { REPLY_TOKEN_MS } from "@plugins/line/reply-token.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-line-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

describe.each(DIALECTS)("LINE Messaging API (%s)", (dialect) => {
  let t: TestDb;
  let line: LineStandin;
  let account: ChannelAccount;
  let agent: UserRow;
  let seq = 0;
  let clock = Date.now();
  /** One pass of the job worker, on a clock that may be moved on (a 429's wait, a retry's backoff). */
  const runJobs = () => {
    clock = Math.max(clock, Date.now() + 1000);
    return createJobWorker({ now: () => clock, log: () => undefined }).runOnce();
  };

  let db: TestDb["handle"]["db"];
  let schema: TestDb["handle"]["schema"];

  beforeAll(async () => {
    t = await createTestDb(dialect);
    ({ db, schema } = t.handle);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    defineOutboundJob();
    defineMediaJob();
  }, 60_000);
  afterAll(async () => t?.cleanup());
  // a stand-in per test (fresh users, tokens and counters), and an account of this test's own
  beforeEach(async () => {
    clock = Date.now();
    line = await startLineStandin();
    const id = await saveAccount({
      kind: "LINE_DM",
      name: "LINE",
      address: `@bot${++seq}`,
      departmentId: 2,
      config: { apiBase: line.apiUrl, dataApiBase: line.dataUrl },
      secrets: { channelSecret: line.channelSecret, channelAccessToken: line.channelAccessToken },
    });
    account = (await loadAccount(id))!;
  });
  afterEach(async () => {
    await line.close();
    // each test runs its own replies' jobs only
    await t.handle.db.delete(t.handle.schema.jobs);
  });

  const hook = (events: Record<string, unknown>[], signature?: "valid" | "none" | "wrong") =>
    webhookCall(line.webhook(`http://localhost/hooks/channels/${account.id}`, events, { signature }), String(account.id));
  const events = async () => (await db.select().from(schema.inboundEvents).orderBy(schema.inboundEvents.id)).filter((e) => e.accountId === account.id);
  const processAll = async () => {
    for (const e of await events()) if (e.state === "received") await processInboundEvent(e.id);
  };
  const tickets = async () => db.select().from(schema.tickets).where(eq(schema.tickets.channelAccountId, account.id)).orderBy(schema.tickets.id);
  const messages = async (ticketId: number) => db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  /** A customer's conversation, as their first message makes it. */
  const conversation = async (userId: string, at = Date.now()) => {
    await hook([line.textEvent(userId, "Hello", { at })]);
    await processAll();
    return (await tickets()).find((x) => x.customerId === userId)!;
  };
  const answer = async (ticket: TicketRow, message: string, files: File[] = []) => {
    const result = await sendReply(agent, ticket, { fields: { message }, files, fileErrors: [] });
    if (!result.ok) throw new Error(result.message);
    return result.created.map((m) => m.id);
  };
  const states = async (ids: number[]) =>
    (await db.select().from(schema.messages).orderBy(schema.messages.id)).filter((m) => ids.includes(m.id)).map((m) => [m.deliveryState, m.deliveryError]);

  it("a signed call becomes a conversation with the customer's LINE name and id; LINE's Verify call (no events) is answered", async () => {
    const userId = line.addUser("Aiko 田中 🌸");
    const response = await hook([line.textEvent(userId, "Is my order on its way?")]);
    expect(response.status).toBe(200);
    expect(await events()).toHaveLength(1);
    await processAll();
    const [ticket] = await tickets();
    expect(ticket).toMatchObject({ channel: "LINE_DM", customerId: userId, contactName: "Aiko 田中 🌸", title: "Is my order on its way?" });
    expect(await messages(ticket.id)).toMatchObject([{ body: "Is my order on its way?", senderName: "Aiko 田中 🌸" }]);
    expect((await events())[0]).toMatchObject({ state: "processed", ticketId: ticket.id });
    // the profile was asked once
    expect(line.requests.filter((r) => r.startsWith("GET /v2/bot/profile/"))).toHaveLength(1);

    expect((await hook([])).status).toBe(200);
    expect(await events()).toHaveLength(1);
  });

  it("unsigned, wrongly signed and tampered calls get 401 and leave nothing behind", async () => {
    const userId = line.addUser("Mallory");
    expect((await hook([line.textEvent(userId, "no signature")], "none")).status).toBe(401);
    expect((await hook([line.textEvent(userId, "other secret")], "wrong")).status).toBe(401);
    // signed, then changed on the way
    const signed = line.webhook(`http://localhost/hooks/channels/${account.id}`, [line.textEvent(userId, "pay 10")]);
    const body = (await signed.text()).replace("pay 10", "pay 99");
    const tampered = new Request(signed.url, { method: "POST", headers: signed.headers, body });
    expect((await webhookCall(tampered, String(account.id))).status).toBe(401);
    expect(await events()).toEqual([]);
    expect(await tickets()).toEqual([]);
  });

  it("processes every event of a batch, and a redelivered event makes no second message", async () => {
    const [a, b] = [line.addUser("Ana"), line.addUser("Ben")];
    const first = line.textEvent(a, "one");
    const batch = [first, line.textEvent(a, "two"), line.textEvent(b, "three"), line.otherEvent({ type: "follow", source: { type: "user", userId: b } })];
    expect((await hook(batch)).status).toBe(200);
    expect(await events()).toHaveLength(4);
    await processAll();
    const byCustomer = await tickets();
    expect(byCustomer.map((x) => x.customerId)).toEqual([a, b]);
    expect((await messages(byCustomer[0].id)).map((m) => m.body)).toEqual(["one", "two"]);
    expect((await messages(byCustomer[1].id)).map((m) => m.body)).toEqual(["three"]);
    expect((await events()).map((e) => e.state)).toEqual(["processed", "processed", "processed", "quarantined"]);
    expect((await events())[3].error).toContain('"follow" is not handled');

    // LINE redelivers the first event (same webhookEventId), alone and inside a new batch
    expect((await hook([line.redelivered(first)])).status).toBe(200);
    expect((await hook([line.redelivered(first), line.textEvent(b, "four")])).status).toBe(200);
    expect(await events()).toHaveLength(5);
    await processAll();
    expect((await messages(byCustomer[0].id)).map((m) => m.body)).toEqual(["one", "two"]);
    expect((await messages(byCustomer[1].id)).map((m) => m.body)).toEqual(["three", "four"]);
  });

  it("a customer LINE gives no profile for is named by their id; group chats are not LINE_DM", async () => {
    const stranger = `U${"ab".repeat(16)}`;
    await hook([
      line.textEvent(stranger, "hi"),
      line.otherEvent({ type: "message", source: { type: "group", groupId: "C1", userId: stranger }, message: { id: "1", type: "text", text: "all" } }),
    ]);
    await processAll();
    const [ticket] = await tickets();
    expect(ticket).toMatchObject({ customerId: stranger, contactName: stranger });
    expect((await events())[1]).toMatchObject({ state: "quarantined", error: expect.stringContaining("group chats are not handled") });
  });

  it("fetches pictures and files from the content API; after a failed or unready fetch the message is there at once and its file follows", async () => {
    const userId = line.addUser("Chen");
    const picture = line.mediaEvent(userId, "image");
    const pdf = line.mediaEvent(userId, "file", { fileName: "invoice.pdf", fileSize: 9 });
    const video = line.mediaEvent(userId, "video");
    const pictureId = (picture.message as { id: string }).id;
    const pdfId = (pdf.message as { id: string }).id;
    const videoId = (video.message as { id: string }).id;
    line.addContent(pictureId, PNG, "image/png");
    line.addContent(pdfId, Buffer.from("%PDF-1.4\n"), "application/pdf");
    line.addContent(videoId, Buffer.from("mp4 bytes"), "video/mp4");
    line.failContent(pdfId, 2);
    line.failContent(videoId, 1, 202);
    await hook([picture, pdf, video]);
    const [e1, e2, e3] = await events();

    await processInboundEvent(e1.id);
    // the content API's 500 and "still preparing": the messages are written at once, marked, and their files follow
    await processInboundEvent(e2.id);
    await processInboundEvent(e3.id);
    expect((await events()).map((e) => e.state)).toEqual(["processed", "processed", "processed"]);
    const [ticket] = await tickets();
    expect((await messages(ticket.id)).map((m) => m.fileState)).toEqual([null, "pending", "pending"]);
    clock = Date.now() + 2 * 60_000;
    await runJobs(); // the video comes, the invoice fails once more
    expect((await messages(ticket.id)).map((m) => m.fileState)).toEqual([null, "pending", null]);
    clock += 10 * 60_000;
    await runJobs();

    const files = await messages(ticket.id);
    expect(files.map((m) => m.fileState)).toEqual([null, null, null]);
    expect(files.map((m) => [m.fileName, m.fileType, m.fileSize])).toEqual([
      [`image-${pictureId}.png`, "image/png", PNG.length],
      ["invoice.pdf", "application/pdf", 9],
      [`video-${videoId}.mp4`, "video/mp4", 9],
    ]);
    const stored = await fileStorage().get(files[0].fileKey!);
    expect(Buffer.from(await new Response(stored as ReadableStream).arrayBuffer())).toEqual(PNG);
    // from the data API's own address, with the channel's token
    expect(line.requests.filter((r) => r.endsWith("/content"))).toHaveLength(6);
  });

  it("answers with the fresh reply token once, then pushes with the message's retry key", async () => {
    const userId = line.addUser("Dana");
    const ticket = await conversation(userId);
    const [first] = await answer(ticket, "Thanks, we are looking.");
    expect(await runJobs()).toBe(1);
    const [second] = await answer(ticket, "Found it: it ships today.");
    const [{ createdAt: secondAt }] = await db.select().from(schema.messages).where(eq(schema.messages.id, second));
    expect(await runJobs()).toBe(1);
    expect(line.sent.map((s) => [s.api, s.to, s.messages, s.retryKey])).toEqual([
      ["reply", userId, [{ type: "text", text: "Thanks, we are looking." }], null],
      ["push", userId, [{ type: "text", text: "Found it: it ships today." }], retryKey(account.id, second, secondAt)],
    ]);
    expect(await states([first, second])).toEqual([
      ["sent", null],
      ["sent", null],
    ]);
    // the provider's ids are kept per message; LINE sends bots no receipts, so "sent" is where they stay
    const ids = await db.select().from(schema.channelMessages).where(eq(schema.channelMessages.direction, "out"));
    expect(ids.filter((r) => r.ticketId === ticket.id).map((r) => r.providerMessageId)).toEqual(line.sent.map((s) => s.ids[0]));

    // a customer's message older than the token's life: pushed straight away
    const late = await conversation(line.addUser("Eli"), Date.now() - REPLY_TOKEN_MS - 5000);
    await answer(late, "Sorry for the wait.");
    await runJobs();
    expect(line.sent.at(-1)).toMatchObject({ api: "push", messages: [{ type: "text", text: "Sorry for the wait." }] });
  });

  it("pushes when LINE no longer takes the token, and splits a long text into LINE's 5,000-character messages", async () => {
    const userId = line.addUser("Fumi");
    const ticket = await conversation(userId);
    // LINE's token died sooner than we thought: "Invalid reply token", then the push goes out
    line.expireReplyTokens();
    const long = "あ".repeat(5000) + "い".repeat(10);
    const [id] = await answer(ticket, long);
    await runJobs();
    expect(await states([id])).toEqual([["sent", null]]);
    expect(line.requests.filter((r) => r === "POST /v2/bot/message/reply")).toHaveLength(1);
    expect(line.sent).toHaveLength(1);
    expect(line.sent[0].api).toBe("push");
    expect(line.sent[0].messages.map((m) => Array.from(String(m.text)).length)).toEqual([5000, 10]);
  });

  describe("files by signed public address", () => {
    let door: Awaited<ReturnType<typeof startPublicFilesDoor>>;
    const previousBase = process.env.BASE_URL;
    beforeAll(async () => {
      door = await startPublicFilesDoor();
      process.env.BASE_URL = door.url;
    });
    afterAll(async () => {
      await door.close();
      if (previousBase === undefined) delete process.env.BASE_URL;
      else process.env.BASE_URL = previousBase;
    });
    /** An M4A of 2.5 seconds, as far as its movie header tells (timescale 1000, duration 2500). */
    const m4a = () => {
      const mvhd = Buffer.alloc(32);
      mvhd.writeUInt32BE(32, 0);
      mvhd.write("mvhd", 4, "latin1");
      mvhd.writeUInt32BE(1000, 20);
      mvhd.writeUInt32BE(2500, 24);
      return Buffer.concat([Buffer.from("\0\0\0\x18ftypM4A \0\0\0\0M4A mp42", "latin1"), mvhd]);
    };
    const mp4 = Buffer.from("\0\0\0\x18ftypmp42 a small video", "latin1");

    it("sends pictures, videos and audio as LINE messages whose signed addresses LINE fetches; documents are refused before anything goes", async () => {
      const userId = line.addUser("Gina");
      const ticket = await conversation(userId);
      const refused = await answer(ticket, "Here is the manual.", [new File([PNG], "manual.pdf", { type: "application/pdf" })]);
      await runJobs();
      expect(await states(refused)).toEqual([
        ["failed", "plugin_line.delivery.noFiles: manual.pdf"],
        ["failed", "plugin_line.delivery.noFiles: manual.pdf"],
      ]);
      expect(line.sent).toEqual([]);

      const ids = await answer(ticket, "Photos, video and a voice note", [
        new File([PNG], "parcel.png", { type: "image/png" }),
        new File([mp4], "unboxing.mp4", { type: "video/mp4" }),
        new File([m4a()], "note.m4a", { type: "audio/x-m4a" }),
      ]);
      await runJobs();
      expect(await states(ids)).toEqual(ids.map(() => ["sent", null]));
      const files = line.sent.slice(1).map((s) => s.messages[0]);
      expect(files.map((m) => m.type)).toEqual(["image", "video", "audio"]);
      expect(files[2].duration).toBe(2500);
      for (const m of files) expect(String(m.originalContentUrl)).toMatch(new RegExp(`^${door.url}/hooks/channels/files/\\d+\\.\\d+\\.[\\w-]{43}/`));
      // LINE fetched each file (and the previews) from the address, without any session
      const got = new Map(line.fetched.map((f) => [f.url, f]));
      expect(got.get(String(files[0].originalContentUrl))).toMatchObject({ status: 200, type: "image/png", bytes: PNG });
      expect(got.get(String(files[0].previewImageUrl))).toMatchObject({ status: 200, bytes: PNG });
      expect(got.get(String(files[1].originalContentUrl))).toMatchObject({ status: 200, type: "video/mp4", bytes: mp4 });
      expect(got.get(String(files[1].previewImageUrl))).toMatchObject({ status: 200, type: "image/png" });
      expect(got.get(String(files[2].originalContentUrl))).toMatchObject({ status: 200, type: "audio/x-m4a", bytes: m4a() });
      expect(got.get(String(files[2].originalContentUrl))!.disposition).toBe("inline; filename*=UTF-8''note.m4a");
    });

    it("a signed address gives only its own file, for a short time: tampered 403, expired 410, a customer's file 404", async () => {
      const userId = line.addUser("Ivy");
      const ticket = await conversation(userId);
      const [fileId] = await answer(ticket, "", [new File(["<script>alert(1)</script>"], "page.html", { type: "text/html" })]);
      const url = new URL(publicFileUrl(fileId, "page.html"));
      const token = url.pathname.split("/")[4];
      const ok = await publicFileResponse(token);
      expect(ok.status).toBe(200);
      // never served as a page: bytes to download, sandboxed, not sniffed
      expect(ok.headers.get("content-type")).toBe("application/octet-stream");
      expect(ok.headers.get("content-disposition")).toBe("attachment; filename*=UTF-8''page.html");
      expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
      expect(ok.headers.get("content-security-policy")).toContain("sandbox");
      const [id, expires, signature] = token.split(".");
      // another message's id, a later expiry, a changed signature: refused
      expect((await publicFileResponse(`${Number(id) - 1}.${expires}.${signature}`)).status).toBe(403);
      expect((await publicFileResponse(`${id}.${Number(expires) + 3600}.${signature}`)).status).toBe(403);
      expect((await publicFileResponse(`${id}.${expires}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`)).status).toBe(403);
      expect((await publicFileResponse("../../etc/passwd")).status).toBe(403);
      expect((await publicFileResponse(token, Date.now() + PUBLIC_FILE_TTL_MS + 1000)).status).toBe(410);
      // a customer's file (or a message without one) is never handed out, even signed
      const [first] = await messages(ticket.id);
      const customer = new URL(publicFileUrl(first.id, "x")).pathname.split("/")[4];
      expect((await publicFileResponse(customer)).status).toBe(404);
      // over HTTP, as a provider asks
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(`${door.url}/hooks/channels/files/${id}.${expires}.${"A".repeat(43)}/page.html`)).status).toBe(403);
    });

    it("the address LINE is given for a picture works for 30 minutes after the send, then is gone (410)", async () => {
      const userId = line.addUser("Kai");
      const ticket = await conversation(userId);
      const before = Date.now();
      await answer(ticket, "", [new File([PNG], "label.png", { type: "image/png" })]);
      await runJobs();
      const after = Date.now();
      const sent = line.sent.at(-1)!.messages[0];
      for (const link of [sent.originalContentUrl, sent.previewImageUrl]) {
        const token = new URL(String(link)).pathname.split("/")[4];
        // the expiry written in the link: 30 minutes after the send (to the second), not a setting
        const expiresMs = Number(token.split(".")[1]) * 1000;
        expect(expiresMs).toBeGreaterThanOrEqual(before + 30 * 60_000 - 1000);
        expect(expiresMs).toBeLessThanOrEqual(after + 30 * 60_000);
        // LINE fetching it again 29 minutes later still gets the picture; 31 minutes later it is gone
        expect((await publicFileResponse(token, before + 29 * 60_000)).status).toBe(200);
        expect((await publicFileResponse(token, after + 31 * 60_000)).status).toBe(410);
      }
    });

    it("without a public address the file is not sent (no localhost link), with the reason", async () => {
      delete process.env.BASE_URL;
      try {
        const userId = line.addUser("Jo");
        const ticket = await conversation(userId);
        const ids = await answer(ticket, "", [new File([PNG], "parcel.png", { type: "image/png" })]);
        await runJobs();
        expect(await states(ids)).toEqual([["failed", "plugin_channels.delivery.noPublicUrl: parcel.png"]]);
        expect(line.sent).toEqual([]);
      } finally {
        process.env.BASE_URL = door.url;
      }
    });
  });

  it("shows LINE's own words for a refusal, waits out a 429, and sends a push whose answer was lost only once", async () => {
    const userId = line.addUser("Hana");
    const ticket = await conversation(userId, Date.now() - REPLY_TOKEN_MS - 5000);

    line.failNextSend({
      status: 400,
      body: { message: "The request body has 1 error(s)", details: [{ message: "May not be empty", property: "messages[0].text" }] },
    });
    const [refused] = await answer(ticket, "first");
    await runJobs();
    expect(await states([refused])).toEqual([["failed", "The request body has 1 error(s) (messages[0].text: May not be empty)"]]);

    line.throttle(1, 3);
    const [throttled] = await answer(ticket, "second");
    await runJobs();
    expect(await states([throttled])).toEqual([["waiting", "The API rate limit has been exceeded. Try again later."]]);
    const [job] = await db
      .select()
      .from(schema.jobs)
      .where(eq(schema.jobs.key, `send:${throttled}`));
    expect(job).toMatchObject({ state: "queued", attempts: 0, runAt: clock + 3000 });
    clock += 3000;
    await runJobs();
    expect(await states([throttled])).toEqual([["sent", null]]);

    // LINE took the push but the answer was a 500: the retry's 409 says what it sent, nothing is sent twice
    line.failNextSend({ status: 500, body: { message: "An error occurred in the server." }, afterAccepting: true });
    const [lost] = await answer(ticket, "third");
    await runJobs();
    expect(await states([lost])).toEqual([["queued", "An error occurred in the server."]]);
    clock += 60_000;
    await runJobs();
    expect(await states([lost])).toEqual([["sent", null]]);
    expect(line.sent.filter((s) => s.messages[0].text === "third")).toHaveLength(1);
    const [kept] = await db.select().from(schema.channelMessages).where(eq(schema.channelMessages.messageId, lost));
    expect(kept.providerMessageId).toBe(line.sent.at(-1)!.ids[0]);
  });

  it("the Test button calls LINE and reports its refusal", async () => {
    expect(await adapter.test(account)).toEqual({ ok: true });
    expect(await adapter.test({ ...account, secrets: { ...account.secrets, channelAccessToken: "revoked" } })).toEqual({
      ok: false,
      error: "Authentication failed. Confirm that the access token in the authorization header is valid.",
    });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await adapter.test({ ...account, config: { ...account.config, apiBase: `http://127.0.0.1:${port}` } })).toMatchObject({
      ok: false,
      error: expect.stringContaining("LINE could not be reached: ECONNREFUSED"),
    });
  });

  it("LINE accounts are added from the Basic plan on (spec section 9)", async () => {
    const admin = (await findUserByUsername("admin"))!;
    const by = { actor: { id: admin.id, name: admin.username } };
    const form = (address: string) => {
      const body = new FormData();
      const fields = { kind: "LINE_DM", name: "LINE", address, department: "", "config.channelSecret": "s", "config.channelAccessToken": "t" };
      for (const [k, v] of Object.entries(fields)) body.append(k, v);
      return body;
    };
    try {
      await setSetting("plan", "1");
      expect(await saveAccountForm(form("@starter"), by)).toMatchObject({ ok: false, status: 403, result: { message: "plugin_channels.errors.planBasic" } });
      await setSetting("plan", "0");
      expect(await saveAccountForm(form("@trial"), by)).toMatchObject({ ok: false, status: 403 });
      await setSetting("plan", "2");
      expect(await saveAccountForm(form("@basic"), by)).toMatchObject({ ok: true });
    } finally {
      await setSetting("plan", "3");
    }
  });
});
