// The TELEGRAM adapter against a local stand-in of the Bot API (tests/support/telegram-standin.ts),
// on both dialects: the Test button registers the webhook with its secret token; a call with the
// token becomes the customer's conversation, one without it or with a wrong one is refused and
// leaves nothing; long polling stores every update of a batch before the offset moves and stops at
// once; an update seen twice (redelivered, or polled and posted) is one message; files come down
// through getFile (a failed download is tried again); replies, photos and documents go out, a
// refusal shows Telegram's words, 429 waits retry_after; Telegram only from the Pro plan.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startTelegramStandin, type TelegramStandin, type TgUser } from "../support/telegram-standin";
import { seedDemo } from "~/seed/seed";
import { setSetting } from "~/models/settings.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import * as conversation from "~/conversation/model.server";
import { createJobWorker, isPermanentFailure, isWaitAndRetry } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { loadAccount, readCursor, saveAccount, writeCursor } from "@plugins/channels/accounts.server";
import { webhookCall } from "@plugins/channels/webhook.server";
import { processInboundEvent } from "@plugins/channels/inbound.server";
import { defineMediaJob } from "@plugins/channels/pending-media.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { saveAccountForm } from "@plugins/channels/settings.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { adapter } from "@plugins/telegram/adapter.server";
import { OFFSET_CURSOR, pollTelegram } from "@plugins/telegram/polling.server";
import { telegramApi } from "@plugins/telegram/api.server";
import { NO_BASE_URL, NO_SECRET_TOKEN, REACTION_REFUSED } from "@plugins/telegram/limits";
import { channelReactions } from "~/conversation/composer-hints.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-telegram-data-"));
process.env.DATA_DIR = dataDir;
const previousBaseUrl = process.env.BASE_URL;
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (previousBaseUrl === undefined) delete process.env.BASE_URL;
  else process.env.BASE_URL = previousBaseUrl;
});

const SECRET = "s3cret_Token-for-hooks";
const siti: TgUser = { id: 5551234001, first_name: "Siti", last_name: "Aminah", username: "siti_a" };
const wei: TgUser = { id: 5551234002, first_name: "", username: "wei_lin" };
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("a small picture")]);

/** The product's webhook door on a port of its own, as Telegram reaches it: the real route function behind it. */
async function startDoor() {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "x-telegram-bot-api-secret-token"]) if (req.headers[name]) headers[name] = String(req.headers[name]);
    const answer = await webhookCall(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
      (req.url ?? "").split("/").pop(),
    );
    res.writeHead(answer.status, { "content-type": "text/plain" });
    res.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(DIALECTS)("Telegram (%s)", (dialect) => {
  let t: TestDb;
  let tg: TelegramStandin;
  let door: Awaited<ReturnType<typeof startDoor>>;
  let account: ChannelAccount;
  let agent: UserRow;
  let admin: UserRow;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    admin = (await findUserByUsername("admin"))!;
    defineOutboundJob();
    defineMediaJob();
    door = await startDoor();
    process.env.BASE_URL = door.url;
  }, 60_000);
  afterAll(async () => {
    await door?.close();
    await tg?.close();
    await t?.cleanup();
  });

  const addAccount = async (config: Record<string, string> = {}, secrets: Record<string, string> = {}) => {
    const id = await saveAccount({
      kind: "TELEGRAM",
      name: "Bot",
      address: `@${tg.username}_${++seq}`,
      departmentId: null,
      config: { mode: "webhook", apiBase: tg.apiRoot, ...config },
      secrets: { botToken: tg.token, secretToken: SECRET, ...secrets },
    });
    return (await loadAccount(id))!;
  };
  // a stand-in (a bot) per test, and its account
  beforeEach(async () => {
    await tg?.close();
    tg = await startTelegramStandin();
    account = await addAccount();
  });
  afterEach(async () => {
    // each test runs its own replies' jobs only
    await t.handle.db.delete(t.handle.schema.jobs);
  });

  const events = async (accountId = account.id) => {
    const { db, schema } = t.handle;
    const e = schema.inboundEvents;
    return db.select().from(e).where(eq(e.accountId, accountId)).orderBy(asc(e.id));
  };
  /** The inbound job for every stored event still waiting, in order. */
  const processAll = async (accountId = account.id) => {
    for (const e of await events(accountId)) if (e.state === "received") await processInboundEvent(e.id);
  };
  const ticketsOf = async (accountId = account.id) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.tickets).where(eq(schema.tickets.channelAccountId, accountId)).orderBy(asc(schema.tickets.id));
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(asc(schema.messages.id));
  };
  const post = (body: unknown, headers: Record<string, string> = { "x-telegram-bot-api-secret-token": SECRET }, accountId = account.id) =>
    webhookCall(
      new Request(`http://localhost/hooks/channels/${accountId}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
      String(accountId),
    );
  /** A conversation started by Siti's message, through the webhook. */
  const conversationWithSiti = async () => {
    expect((await post(tg.update(siti, { text: "Hi, my order is late" }))).status).toBe(200);
    await processAll();
    const [ticket] = await ticketsOf();
    return ticket;
  };
  const worker = (now = () => Date.now()) => createJobWorker({ now, log: () => undefined });
  const storedFile = async (bytes: Buffer, name: string, type: string, size = bytes.length) => ({ key: await fileStorage().put(bytes), name, type, size });

  it("Test registers the webhook with its secret token; a call Telegram makes with it becomes the customer's conversation", async () => {
    expect(await adapter.test(account)).toEqual({ ok: true });
    expect(tg.webhook()).toEqual({ url: `${door.url}/hooks/channels/${account.id}`, secretToken: SECRET, allowedUpdates: ["message"] });

    const update = tg.update(siti, { text: "Hi, my order #1234 is late 📦" });
    expect(await tg.deliver(update)).toBe(200);
    const [event] = await events();
    expect(event).toMatchObject({ provider: "TELEGRAM", source: "webhook", eventKey: `${tg.botId}:${update.update_id}`, state: "received" });
    await processAll();
    const [ticket] = await ticketsOf();
    expect(ticket).toMatchObject({
      channel: "TELEGRAM",
      customerId: String(siti.id),
      contactName: "Siti Aminah",
      contactPhone: "",
      title: "Hi, my order #1234 is late 📦",
    });
    expect(await messagesOf(ticket.id)).toMatchObject([{ body: "Hi, my order #1234 is late 📦", senderName: "Siti Aminah" }]);
    expect((await events())[0]).toMatchObject({ state: "processed", ticketId: ticket.id });

    // a customer with only a username is named by it; their next message joins their conversation
    await tg.deliver(tg.update(wei, { text: "hello" }));
    await tg.deliver(tg.update(siti, { text: "any news?" }));
    await processAll();
    const tickets = await ticketsOf();
    expect(tickets.map((x) => [x.customerId, x.contactName])).toEqual([
      [String(siti.id), "Siti Aminah"],
      [String(wei.id), "@wei_lin"],
    ]);
    expect((await messagesOf(ticket.id)).map((m) => m.body)).toEqual(["Hi, my order #1234 is late 📦", "any news?"]);
  });

  it("refuses a call without the secret token or with a wrong one (401) and keeps nothing", async () => {
    await adapter.test(account);
    const update = tg.update(siti, { text: "forged?" });
    expect(await tg.deliver(update, { secret: null })).toBe(401);
    expect(await tg.deliver(update, { secret: "s3cret_Token-for-hookz" })).toBe(401);
    expect((await post(update, { "x-telegram-bot-api-secret-token": `${SECRET}x` })).status).toBe(401);
    expect((await post(update, { "x-telegram-bot-api-secret-token": SECRET.slice(0, -1) })).status).toBe(401);
    expect((await post(update, {})).status).toBe(401);
    // an account without a secret token takes no webhook call at all
    const open = await addAccount({}, { secretToken: "" });
    expect((await post(update, { "x-telegram-bot-api-secret-token": "" }, open.id)).status).toBe(401);
    expect(await events()).toEqual([]);
    expect(await events(open.id)).toEqual([]);
    expect(await ticketsOf()).toEqual([]);
  });

  it("makes a redelivered update one message, and keeps unknown updates and unreadable bodies for inspection", async () => {
    const update = tg.update(siti, { text: "only once" });
    for (let i = 0; i < 3; i++) expect((await post(update)).status).toBe(200);
    expect(await events()).toHaveLength(1);
    await processAll();
    const [ticket] = await ticketsOf();
    expect(await messagesOf(ticket.id)).toHaveLength(1);

    await post(tg.rawUpdate({ edited_message: { message_id: 1, chat: { id: siti.id, type: "private" }, date: 1, edit_date: 2, text: "edited" } }));
    await post(tg.rawUpdate({ my_chat_member: { chat: { id: siti.id, type: "private" }, new_chat_member: { status: "kicked" } } }));
    expect((await post("{not json")).status).toBe(200);
    expect((await post([tg.update(siti, { text: "a list" })])).status).toBe(200);
    await processAll();
    const stored = await events();
    expect(stored.slice(1).map((e) => [e.state, e.error])).toEqual([
      ["quarantined", 'Telegram update "edited_message" is not handled'],
      ["quarantined", 'Telegram update "my_chat_member" is not handled'],
      ["quarantined", expect.stringMatching(/^unreadable event: not a Telegram update/)],
      ["quarantined", expect.stringMatching(/^unreadable event: not a Telegram update/)],
    ]);
    expect(await messagesOf(ticket.id)).toHaveLength(1);
  });

  it("long polling stores every update of a batch before moving the offset; polled and posted again is still one message", async () => {
    const polling = await addAccount({ mode: "polling" });
    const batch = [tg.update(siti, { text: "one" }), tg.update(wei, { text: "two" }), tg.update(siti, { text: "three" })];
    for (const u of batch) tg.queue(u);
    expect(await pollTelegram(polling)).toEqual({ seen: 3, stored: 3 });
    expect(await readCursor(polling.id, OFFSET_CURSOR)).toBe(String(batch[2].update_id + 1));
    expect((await events(polling.id)).map((e) => e.source)).toEqual(["polling", "polling", "polling"]);
    await processAll(polling.id);
    const tickets = await ticketsOf(polling.id);
    expect(tickets.map((x) => x.customerId)).toEqual([String(siti.id), String(wei.id)]);
    expect((await messagesOf(tickets[0].id)).map((m) => m.body)).toEqual(["one", "three"]);

    // the offset confirmed them: Telegram hands them out no more
    expect(await pollTelegram(polling)).toEqual({ seen: 0, stored: 0 });
    // a crash after storing but before the offset moved: fetched again, nothing doubled
    tg.queue(batch[1]);
    await writeCursor(polling.id, OFFSET_CURSOR, String(batch[0].update_id));
    expect(await pollTelegram(polling)).toEqual({ seen: 1, stored: 0 });
    // and the same update posted to the webhook too (a mode change midway): one event key, no copy
    expect((await post(batch[0], undefined, polling.id)).status).toBe(200);
    expect(await events(polling.id)).toHaveLength(3);
  });

  it("a polling account removes a webhook left behind (409), and its watcher stops at once in the middle of a long poll", async () => {
    const polling = await addAccount({ mode: "polling" });
    await telegramApi(polling).setWebhook("https://old.example/hook");
    tg.queue(tg.update(siti, { text: "through the conflict" }));
    expect(await pollTelegram(polling)).toEqual({ seen: 1, stored: 1 });
    expect(tg.webhook()).toBeNull();

    const stop = adapter.watch!(polling);
    // the watcher waits at Telegram (25 s long poll); an update arrives meanwhile
    await new Promise((r) => setTimeout(r, 300));
    tg.queue(tg.update(wei, { text: "while waiting" }));
    for (let i = 0; i < 100 && (await events(polling.id)).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await events(polling.id)).length).toBe(2);
    const started = Date.now();
    await stop();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(tg.requests.filter((r) => r.endsWith("/getUpdates")).length).toBeGreaterThanOrEqual(3);
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.channelAccounts).where(eq(schema.channelAccounts.id, polling.id));
    expect(row.state).toBe("ok");
    // a webhook account has nothing to poll
    const before = tg.requests.length;
    await adapter.watch!(account)();
    expect(tg.requests.length).toBe(before);
  });

  it("downloads a customer's photo (its largest size) and document through getFile; a failed download is written at once and its file follows", async () => {
    await post(tg.update(siti, { photo: png, caption: "the broken part" }));
    tg.failNext("file", { status: 500, description: "Internal Server Error" });
    const [first] = await events();
    // the download fails: the caption is written at once, marked, and the picture follows onto it
    await processInboundEvent(first.id);
    expect((await events())[0].state).toBe("processed");
    const [ticket] = await ticketsOf();
    const [caption] = await messagesOf(ticket.id);
    expect(caption).toMatchObject({ body: "the broken part", fileKey: null, fileState: "pending" });
    await worker(() => Date.now() + 2 * 60_000).runOnce();
    const [photo, ...none] = await messagesOf(ticket.id);
    expect(none).toEqual([]);
    expect(photo).toMatchObject({
      id: caption.id,
      body: "the broken part",
      fileName: "photo.jpg",
      fileType: "image/jpeg",
      fileSize: png.length,
      fileState: null,
    });
    expect(Buffer.from(await new Response(await fileStorage().get(photo.fileKey!)).arrayBuffer())).toEqual(png);

    const pdf = Buffer.from("%PDF-1.4 invoice");
    await post(tg.update(siti, { document: pdf, name: "invoice 7.pdf", mime: "application/pdf" }));
    await post(tg.update(siti, { voice: Buffer.from("OggS voice") }));
    // larger than the 20 MB Telegram lets a bot fetch: the message is kept, the file named
    const downloads = tg.requests.filter((r) => r.startsWith("GET /file/")).length;
    await post(tg.update(siti, { document: Buffer.from("x"), name: "video.mov", mime: "video/quicktime" }, { fileSize: 25 * 1024 * 1024 }));
    await post(tg.update(siti, { contact: { phone_number: "+60 12-345 6789", first_name: "Siti", user_id: siti.id } }));
    await processAll();
    const all = await messagesOf(ticket.id);
    expect(all.slice(1).map((m) => [m.body, m.fileName, m.fileType])).toEqual([
      ["invoice 7.pdf", "invoice 7.pdf", "application/pdf"],
      ["voice.ogg", "voice.ogg", "audio/ogg"],
      ["📎 video.mov (25 MB)", null, null],
      ["Siti +60 12-345 6789", null, null],
    ]);
    // the document and the voice note; nothing was asked for the file too large to fetch
    expect(tg.requests.filter((r) => r.startsWith("GET /file/")).length).toBe(downloads + 2);
  });

  it("sends an agent's text, picture and document through the queue; Telegram has no receipts, so they stay sent", async () => {
    const ticket = await conversationWithSiti();
    const pdf = Buffer.from("%PDF-1.4 quote");
    const created = await conversation.reply(agent, ticket, {
      body: "Hello Siti, here is the quote.",
      files: [await storedFile(png, "parcel.png", "image/png"), await storedFile(pdf, "quote.pdf", "application/pdf")],
    });
    expect(await worker().runOnce()).toBe(1);
    expect(tg.sent.map((s) => [s.method, s.chatId, s.text ?? s.file?.name])).toEqual([
      ["sendMessage", String(siti.id), "Hello Siti, here is the quote."],
      ["sendPhoto", String(siti.id), "parcel.png"],
      ["sendDocument", String(siti.id), "quote.pdf"],
    ]);
    expect(tg.sent[1].file!.bytes).toEqual(png);
    expect(tg.sent[2].file!.bytes).toEqual(pdf);
    const out = await messagesOf(ticket.id);
    expect(out.slice(1).map((m) => m.deliveryState)).toEqual(["sent", "sent", "sent"]);
    const { db, schema } = t.handle;
    const ids = await db
      .select()
      .from(schema.channelMessages)
      .where(and(eq(schema.channelMessages.ticketId, ticket.id), eq(schema.channelMessages.direction, "out")))
      .orderBy(asc(schema.channelMessages.messageId));
    expect(ids.map((r) => r.providerMessageId)).toEqual(tg.sent.map((s) => `${s.chatId}:${s.messageId}`));
    expect(created.map((m) => m.id)).toEqual(ids.map((r) => r.messageId));

    // longer than one Telegram message: several, in order
    const long = `${"a".repeat(4000)} ${"b".repeat(600)}`;
    await conversation.reply(agent, ticket, { body: long, files: [] });
    await worker().runOnce();
    expect(tg.sent.slice(3).map((s) => s.text!.length)).toEqual([4001, 600]);
  });

  it("refuses a file over 50 MB before sending, shows Telegram's refusal, waits retry_after on 429 and tries 500s again", async () => {
    const ticket = await conversationWithSiti();
    const big = await conversation.reply(agent, ticket, {
      body: "",
      files: [await storedFile(Buffer.from("zip"), "backup.zip", "application/zip", 60 * 1024 * 1024)],
    });
    await worker().runOnce();
    expect(tg.sent).toEqual([]);
    expect((await messagesOf(ticket.id)).find((m) => m.id === big[0].id)).toMatchObject({
      deliveryState: "failed",
      deliveryError: "plugin_telegram.delivery.fileSize: backup.zip (60 MB > 50 MB)",
    });

    const account2 = (await loadAccount(account.id))!;
    const message = async (body: string) => {
      const [m] = await conversation.reply(agent, ticket, { body, files: [] });
      await t.handle.db.delete(t.handle.schema.jobs);
      return { ticketId: ticket.id, messageIds: [m.id], to: [], cc: [] };
    };
    tg.failNext("sendMessage", { status: 429, description: "Too Many Requests: retry after 7", parameters: { retry_after: 7 } });
    const throttled = await adapter.send(await message("slow down"), account2).catch((e) => e);
    expect(isWaitAndRetry(throttled) && throttled.delayMs).toBe(7000);
    expect(throttled.message).toBe("Too Many Requests: retry after 7");

    tg.failNext("sendMessage", { status: 500, description: "Internal Server Error" });
    const broken = await adapter.send(await message("try later"), account2).catch((e) => e);
    expect(broken.message).toBe("Internal Server Error");
    expect(isPermanentFailure(broken) || isWaitAndRetry(broken)).toBe(false);

    // through the queue: the reply waits as long as Telegram said, without using an attempt
    tg.failNext("sendMessage", { status: 429, description: "Too Many Requests: retry after 30", parameters: { retry_after: 30 } });
    const [waiting] = await conversation.reply(agent, ticket, { body: "queued and throttled", files: [] });
    const now = Date.now() + 1000;
    await worker(() => now).runOnce();
    const [job] = await t.handle.db.select().from(t.handle.schema.jobs);
    expect(job).toMatchObject({ state: "queued", attempts: 0, runAt: now + 30_000 });
    expect((await messagesOf(ticket.id)).find((m) => m.id === waiting.id)).toMatchObject({ deliveryState: "waiting" });
    await worker(() => now + 30_000).runOnce();
    expect((await messagesOf(ticket.id)).find((m) => m.id === waiting.id)).toMatchObject({ deliveryState: "sent" });

    // the customer blocked the bot: final, in Telegram's words (once the bot's pause is over)
    tg.block(siti.id);
    const [refused] = await conversation.reply(agent, ticket, { body: "are you there?", files: [] });
    await worker(() => now + 30_000).runOnce();
    expect((await messagesOf(ticket.id)).find((m) => m.id === refused.id)).toMatchObject({
      deliveryState: "failed",
      deliveryError: "Forbidden: bot was blocked by the user",
    });
    expect(tg.sent.map((s) => s.text)).toEqual(["queued and throttled"]);
  });

  it("an agent's reaction goes out with setMessageReaction (❤️ as Telegram's ❤), taking it back clears it; twice or out of order ends the same", async () => {
    const ticket = await conversationWithSiti();
    const [message] = await messagesOf(ticket.id);
    const key = `${siti.id}:1`;
    const { db, schema } = t.handle;
    await conversation.toggleReaction(agent, ticket, message.id, "👍");
    await worker().runOnce();
    expect(tg.reactions.get(key)).toEqual(["👍"]);
    // a second reaction replaces the bot's one; taking it back leaves the one still there
    await conversation.toggleReaction(agent, ticket, message.id, "❤️");
    await worker().runOnce();
    expect(tg.reactions.get(key)).toEqual(["❤"]);
    await conversation.toggleReaction(agent, ticket, message.id, "❤️");
    await worker().runOnce();
    expect(tg.reactions.get(key)).toEqual(["👍"]);

    await conversation.toggleReaction(agent, ticket, message.id, "👍");
    await worker().runOnce();
    expect(tg.reactions.get(key)).toEqual([]);

    // given and taken back: its two jobs keep their order (the conversation's lane) even when the first
    // must wait, and run again each sends what is there when it runs
    await t.handle.db.delete(schema.jobs);
    await conversation.toggleReaction(agent, ticket, message.id, "👍");
    await conversation.toggleReaction(agent, ticket, message.id, "👍");
    const jobs = await db.select().from(schema.jobs).orderBy(asc(schema.jobs.id));
    expect(jobs.map((j) => j.kind)).toEqual(["conversation.react", "conversation.react"]);
    await db
      .update(schema.jobs)
      .set({ runAt: Date.now() + 60_000 })
      .where(eq(schema.jobs.id, jobs[0].id));
    const sentBefore = tg.requests.filter((r) => r.endsWith("/setMessageReaction")).length;
    await worker().runOnce();
    expect(tg.requests.filter((r) => r.endsWith("/setMessageReaction")).length).toBe(sentBefore);
    const drain = async (now: () => number) => {
      while (await worker(now).runOnce());
    };
    await drain(() => Date.now() + 120_000);
    expect(tg.reactions.get(key)).toEqual([]);
    await db.update(schema.jobs).set({ state: "queued", runAt: Date.now() });
    await drain(() => Date.now() + 120_000);
    expect(tg.reactions.get(key)).toEqual([]);
    expect(tg.requests.filter((r) => r.endsWith("/setMessageReaction")).length).toBe(8);
    expect((await db.select().from(schema.jobs)).map((j) => j.state)).toEqual(["done", "done"]);
  });

  it("refuses in the desk a reaction Telegram does not list, with the reason; the stand-in refuses malformed ones as Telegram does", async () => {
    const ticket = await conversationWithSiti();
    const [message] = await messagesOf(ticket.id);
    expect(await channelReactions(ticket)).toEqual({ sent: true, refused: ["😄", "😮"], reason: REACTION_REFUSED });
    const refused = await conversation.toggleReaction(agent, ticket, message.id, "😮").catch((e) => e);
    expect(refused).toBeInstanceOf(conversation.ReactionRefused);
    expect(refused).toMatchObject({ message: REACTION_REFUSED, reaction: "😮" });
    // nothing kept, nothing queued, nothing sent
    const { db, schema } = t.handle;
    expect(await db.select().from(schema.messageReactions).where(eq(schema.messageReactions.messageId, message.id))).toEqual([]);
    expect((await db.select().from(schema.jobs)).filter((j) => j.kind === "conversation.react")).toEqual([]);
    // an agent's own message on Telegram takes any reaction (it stays in the desk)
    const [mine] = await conversation.reply(agent, ticket, { body: "On its way", files: [] });
    await conversation.toggleReaction(agent, ticket, mine.id, "😮");

    const api = telegramApi(account);
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => "ok",
        (e: { description?: string }) => e.description,
      );
    expect(await refusal(api.setMessageReaction(siti.id, 1, [{ type: "emoji", emoji: "😄" as "👍" }]))).toBe("Bad Request: REACTION_INVALID");
    expect(
      await refusal(
        api.setMessageReaction(siti.id, 1, [
          { type: "emoji", emoji: "👍" },
          { type: "emoji", emoji: "🙏" },
        ]),
      ),
    ).toBe("Bad Request: REACTIONS_TOO_MANY");
    expect(await refusal(api.setMessageReaction(siti.id, 999, [{ type: "emoji", emoji: "👍" }]))).toBe("Bad Request: MESSAGE_ID_INVALID");
    expect(await refusal(api.setMessageReaction(42, 1, []))).toBe("Bad Request: chat not found");
    // a refusal is final for the reaction job, in Telegram's words
    const gone = await adapter.react!(account, ticket.id, `${siti.id}:999`, "👍").catch((e) => e);
    expect(isPermanentFailure(gone) && gone.message).toBe("Bad Request: MESSAGE_ID_INVALID");
    expect(tg.reactions.size).toBe(0);
  });

  it("LINE has no reaction API: the desk says reactions are not sent there, and the reaction job sends nothing", async () => {
    expect(await channelReactions({ channel: "LINE_DM", channelAccountId: account.id })).toEqual({ sent: false, refused: [], reason: null });
    // a conversation not on a channel account: nothing to say
    expect(await channelReactions({ channel: "LINE_DM", channelAccountId: null })).toBeNull();
  });

  it("a long answer cut short by a rate limit halfway sends only the rest when tried again", async () => {
    const ticket = await conversationWithSiti();
    const long = `${"a".repeat(4000)} ${"b".repeat(4000)} ${"c".repeat(100)}`;
    const [m] = await conversation.reply(agent, ticket, { body: long, files: [] });
    // the first piece goes, then Telegram limits the bot
    tg.failNext("sendMessage", { status: 429, description: "Too Many Requests: retry after 5", parameters: { retry_after: 5 } }, 1, 1);
    const now = Date.now() + 1000;
    await worker(() => now).runOnce();
    expect(tg.sent.map((x) => x.text!.length)).toEqual([4001]);
    expect((await messagesOf(ticket.id)).find((x) => x.id === m.id)).toMatchObject({ deliveryState: "waiting" });
    await worker(() => now + 5000).runOnce();
    expect(tg.sent.map((x) => x.text![0] + x.text!.length)).toEqual(["a4001", "b4001", "c100"]);
    expect((await messagesOf(ticket.id)).find((x) => x.id === m.id)).toMatchObject({ deliveryState: "sent" });
    // the job run once more (a crash before it was marked done) sends nothing again
    await t.handle.db.update(t.handle.schema.jobs).set({ state: "queued", runAt: now });
    await worker(() => now + 6000).runOnce();
    expect(tg.sent.length).toBe(3);
  });

  it("the Test button says what is wrong: a revoked token, no secret token, no public address", async () => {
    expect(await adapter.test({ ...account, secrets: { ...account.secrets, botToken: `${tg.botId}:AAwrongwrongwrongwrongwrongwrong` } })).toEqual({
      ok: false,
      error: "Unauthorized",
    });
    expect(await adapter.test({ ...account, secrets: { botToken: tg.token } })).toEqual({ ok: false, error: NO_SECRET_TOKEN });
    delete process.env.BASE_URL;
    try {
      expect(await adapter.test(account)).toEqual({ ok: false, error: NO_BASE_URL });
      // long polling needs neither
      expect(await adapter.test({ ...account, config: { ...account.config, mode: "polling" }, secrets: { botToken: tg.token } })).toEqual({ ok: true });
    } finally {
      process.env.BASE_URL = door.url;
    }
    expect(adapter.validate!({}, { botToken: "not a token", secretToken: "has spaces" }, [])).toEqual({
      botToken: "plugin_telegram.errors.botToken",
      secretToken: "plugin_telegram.errors.secretToken",
    });
  });

  it("adds a Telegram account only from the Pro plan (spec section 9), with the reason", async () => {
    const by = { actor: { id: admin.id, name: admin.username }, ip: "203.0.113.9" };
    const form = () => {
      const body = new FormData();
      const fields: Record<string, string> = {
        kind: "TELEGRAM",
        name: "Sales bot",
        address: `@sales_${++seq}_bot`,
        department: "",
        "config.botToken": tg.token,
        "config.mode": "polling",
        "config.apiBase": tg.apiRoot,
      };
      for (const [k, v] of Object.entries(fields)) body.append(k, v);
      return body;
    };
    try {
      for (const plan of ["0", "1", "2"]) {
        await setSetting("plan", plan);
        expect(await saveAccountForm(form(), by)).toMatchObject({ ok: false, status: 403, result: { message: "plugin_channels.errors.planPro" } });
      }
      for (const plan of ["3", "4", "99"]) {
        await setSetting("plan", plan);
        expect(await saveAccountForm(form(), by)).toMatchObject({ ok: true });
      }
      // a mode that is not one of the choices is refused
      await setSetting("plan", "3");
      const odd = form();
      odd.set("config.mode", "carrier-pigeon");
      expect(await saveAccountForm(odd, by)).toMatchObject({ ok: false, result: { errors: { "config.mode": "plugin_channels.errors.choice" } } });
    } finally {
      await setSetting("plan", "3");
    }
  });
});
