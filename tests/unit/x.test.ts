// The X adapter (TW_DM accounts: direct messages, and mentions as TW_MENTION conversations) against a
// local stand-in that speaks X's API as documented (tests/support/x-standin.ts), through the product's
// own webhook route and jobs, on both dialects: X's CRC check is answered with the consumer secret;
// unsigned, wrongly signed and tampered calls leave nothing; every event of a body is processed and a
// redelivery adds nothing; our own DMs and posts coming back are ignored; DM pictures are fetched with
// OAuth (a failed fetch is tried again); DMs and reply posts go out and are recorded; a reply post
// answers the customer's last post and is held to 280 characters; X's refusals are shown in its words
// and a 429 waits until x-rate-limit-reset.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startXStandin, type XStandin } from "../support/x-standin";
import { seedDemo } from "~/seed/seed";
import { sendReply } from "~/conversation/reply.server";
import type { TicketRow } from "~/conversation/model.server";
import { createJobWorker } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import { webhookCall, webhookHandshake } from "@plugins/channels/webhook.server";
import { processInboundEvent } from "@plugins/channels/inbound.server";
import { defineMediaJob } from "@plugins/channels/pending-media.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { adapter } from "@plugins/x/adapter.server";
import { postLength } from "@plugins/x/limits";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-x-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const JPEG = Buffer.from("ffd8ffe000104a46494600010100000100010000ffd9", "hex");

describe.each(DIALECTS)("X direct messages and mentions (%s)", (dialect) => {
  let t: TestDb;
  let x: XStandin;
  let account: ChannelAccount;
  let agent: UserRow;
  let clock = Date.now();
  let seq = 0;
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
  beforeEach(async () => {
    clock = Date.now();
    x = await startXStandin();
    const id = await saveAccount({
      kind: "TW_DM",
      name: "X",
      address: `@${x.screenName}${++seq}`,
      departmentId: 2,
      config: { userId: x.userId, consumerKey: x.consumerKey, apiBase: x.apiBase },
      secrets: { consumerSecret: x.consumerSecret, accessToken: x.accessToken, accessTokenSecret: x.accessTokenSecret },
    });
    account = (await loadAccount(id))!;
  });
  afterEach(async () => {
    await x.close();
    await t.handle.db.delete(t.handle.schema.jobs);
  });

  const url = () => `http://localhost/hooks/channels/${account.id}`;
  const hook = (body: Record<string, unknown>, signature?: "valid" | "none" | "wrong") =>
    webhookCall(x.webhook(url(), body, { signature }), String(account.id));
  const events = async () => (await db.select().from(schema.inboundEvents).orderBy(schema.inboundEvents.id)).filter((e) => e.accountId === account.id);
  const processAll = async () => {
    for (const e of await events()) if (e.state === "received") await processInboundEvent(e.id);
  };
  const tickets = async () => db.select().from(schema.tickets).where(eq(schema.tickets.channelAccountId, account.id)).orderBy(schema.tickets.id);
  const messages = async (ticketId: number) => db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  const answer = async (ticket: TicketRow, message: string, files: File[] = []) => {
    const result = await sendReply(agent, ticket, { fields: { message }, files, fileErrors: [] });
    if (!result.ok) throw new Error(result.message);
    return result.created.map((m) => m.id);
  };
  const states = async (ids: number[]) =>
    (await db.select().from(schema.messages).orderBy(schema.messages.id)).filter((m) => ids.includes(m.id)).map((m) => [m.deliveryState, m.deliveryError]);
  const dmConversation = async (customer: string, text = "Hello") => {
    await hook(x.dmBody([x.dm(customer, text)]));
    await processAll();
    return (await tickets()).find((k) => k.customerId === customer && k.channel === "TW_DM")!;
  };

  it("answers X's CRC check with the consumer secret; another secret's answer is one X refuses", async () => {
    const check = x.crc(url());
    expect(await check.valid(await webhookHandshake(check.request, String(account.id)))).toBe(true);
    // an account whose consumer secret is not the app's: the answer does not match what X expects
    const other = await saveAccount({
      kind: "TW_DM",
      name: "X other",
      address: `@other${seq}`,
      departmentId: 2,
      config: { userId: x.userId, consumerKey: x.consumerKey, apiBase: x.apiBase },
      secrets: { consumerSecret: "not-the-app-secret", accessToken: x.accessToken, accessTokenSecret: x.accessTokenSecret },
    });
    const wrong = x.crc(`http://localhost/hooks/channels/${other}`);
    const response = await webhookHandshake(wrong.request, String(other));
    expect(response.status).toBe(200);
    expect(await wrong.valid(response)).toBe(false);
    // no crc_token: no answer X could take
    expect((await webhookHandshake(new Request(url()), String(account.id))).status).toBe(400);
  });

  it("unsigned, wrongly signed and tampered calls get 401 and leave nothing behind", async () => {
    const customer = x.addUser("Mallory");
    expect((await hook(x.dmBody([x.dm(customer, "no signature")]), "none")).status).toBe(401);
    expect((await hook(x.dmBody([x.dm(customer, "other secret")]), "wrong")).status).toBe(401);
    const signed = x.webhook(url(), x.dmBody([x.dm(customer, "pay 10")]));
    const body = (await signed.text()).replace("pay 10", "pay 99");
    expect((await webhookCall(new Request(signed.url, { method: "POST", headers: signed.headers, body }), String(account.id))).status).toBe(401);
    expect(await events()).toEqual([]);
    expect(await tickets()).toEqual([]);
  });

  it("processes every DM and post of a call; redelivery adds nothing; our own DMs and posts and typing are ignored", async () => {
    const [ana, ben] = [x.addUser("Ana 🌸"), x.addUser("Ben", "ben_b")];
    const first = x.dm(ana, "one");
    const echo = x.dm(x.userId, "our answer from X's app", { to: ana });
    expect((await hook(x.dmBody([first, x.dm(ana, "two"), x.dm(ben, "three"), echo]))).status).toBe(200);
    const mention = x.post(ben, "my order is late");
    expect((await hook(x.postBody([mention, x.post(x.userId, "our own announcement", { mention: false })]))).status).toBe(200);
    // typing indicators are not kept at all
    expect((await hook(x.typingBody(ana))).status).toBe(200);
    expect(await events()).toHaveLength(6);
    await processAll();

    const all = await tickets();
    expect(all.map((k) => [k.channel, k.customerId, k.contactName])).toEqual([
      ["TW_DM", ana, "Ana 🌸"],
      ["TW_DM", ben, "Ben"],
      ["TW_MENTION", ben, "Ben"],
    ]);
    expect((await messages(all[0].id)).map((m) => m.body)).toEqual(["one", "two"]);
    expect((await messages(all[1].id)).map((m) => m.body)).toEqual(["three"]);
    expect((await messages(all[2].id)).map((m) => m.body)).toEqual([`@${x.screenName} my order is late`]);
    const byState = (await events()).map((e) => [e.state, e.error ?? ""]);
    expect(byState.filter(([s]) => s === "processed")).toHaveLength(4);
    expect(byState.filter(([s]) => s === "quarantined").map(([, e]) => e)).toEqual(["our own direct message", "our own post"]);

    // X sends the first DM and the mention again, alone and with a new one
    expect((await hook(x.dmBody([first]))).status).toBe(200);
    expect((await hook(x.dmBody([first, x.dm(ben, "four")]))).status).toBe(200);
    expect((await hook(x.postBody([mention]))).status).toBe(200);
    expect(await events()).toHaveLength(7);
    await processAll();
    expect((await messages(all[0].id)).map((m) => m.body)).toEqual(["one", "two"]);
    expect((await messages(all[1].id)).map((m) => m.body)).toEqual(["three", "four"]);
    expect(await messages(all[2].id)).toHaveLength(1);
  });

  it("fetches DM pictures and videos with the account's OAuth signature; a failed fetch is written at once and its file follows", async () => {
    const customer = x.addUser("Chen");
    const picture = x.addMedia(JPEG, "image/jpeg", "3Tw7.jpg");
    const video = x.addMedia(Buffer.from("mp4 bytes"), "video/mp4", "clip.mp4");
    x.failMedia(video, 2);
    await hook(x.dmBody([x.dm(customer, "see this", { media: { url: picture } }), x.dm(customer, "", { media: { url: video, type: "video" } })]));
    const [e1, e2] = await events();
    await processInboundEvent(e1.id);
    // the video does not come: its message is written all the same, marked, and the download tried again later
    await processInboundEvent(e2.id);
    expect((await events()).map((e) => e.state)).toEqual(["processed", "processed"]);
    const [ticket] = await tickets();
    expect((await messages(ticket.id)).map((m) => m.fileState)).toEqual([null, null, "pending"]);
    clock = Date.now() + 2 * 60_000;
    await runJobs(); // fails once more
    clock += 10 * 60_000;
    await runJobs();

    const got = await messages(ticket.id);
    expect(got.map((m) => m.fileState)).toEqual([null, null, null]);
    // the t.co link X appends for the attachment is not the customer's text
    expect(got[0]).toMatchObject({ body: "see this", fileKey: null });
    expect(got.slice(1).map((m) => [m.fileName, m.fileType, m.fileSize])).toEqual([
      [expect.stringMatching(/^dm-\d+\.jpg$/), "image/jpeg", JPEG.length],
      [expect.stringMatching(/^dm-\d+\.mp4$/), "video/mp4", 9],
    ]);
    const stored = await fileStorage().get(got[1].fileKey!);
    expect(Buffer.from(await new Response(stored as ReadableStream).arrayBuffer())).toEqual(JPEG);
    // the best MP4 variant, not the thumbnail or the playlist
    expect(x.requests.filter((r) => r.startsWith("GET /media/"))).toHaveLength(4);
  });

  it("a DM answer goes out to the customer, its dm_event_id recorded; a read receipt of the last one marks it and those before read", async () => {
    const customer = x.addUser("Dana");
    const ticket = await dmConversation(customer);
    const [text, picture] = await answer(ticket, "Thanks, we are looking.", [new File([JPEG], "label.jpg", { type: "image/jpeg" })]);
    expect(await runJobs()).toBe(1);
    expect(x.sent.map((s) => [s.kind, s.to, s.text, s.mediaIds.length])).toEqual([
      ["dm", customer, "Thanks, we are looking.", 0],
      ["dm", customer, undefined, 1],
    ]);
    const [upload] = x.uploads();
    expect(upload).toMatchObject({ id: x.sent[1].mediaIds[0], type: "image/jpeg", category: "dm_image", bytes: JPEG });
    expect(await states([text, picture])).toEqual([
      ["sent", null],
      ["sent", null],
    ]);
    const out = (await db.select().from(schema.channelMessages).where(eq(schema.channelMessages.ticketId, ticket.id))).filter((r) => r.direction === "out");
    expect(out.map((r) => r.providerMessageId)).toEqual(x.sent.map((s) => s.id));

    // X echoes what we sent: no new message; then the customer reads it
    await hook(x.dmBody([{ ...x.dm(x.userId, "Thanks, we are looking.", { to: customer }), id: x.sent[0].id }]));
    await hook(x.readBody(customer, x.sent[1].id));
    await processAll();
    expect(await messages(ticket.id)).toHaveLength(3);
    // X names the last message read: the text before the picture is read too
    expect(await states([text, picture])).toEqual([
      ["read", null],
      ["read", null],
    ]);
  });

  it("a mention and the replies in its thread are one conversation; the answer replies to the customer's last post", async () => {
    const customer = x.addUser("Eli", "eli_e");
    const first = x.post(customer, "my washer is broken");
    await hook(x.postBody([first]));
    await processAll();
    const [ticket] = await tickets();
    expect(ticket).toMatchObject({ channel: "TW_MENTION", customerId: customer, title: `@${x.screenName} my washer is broken` });

    await answer(ticket, "Sorry! Which model is it?");
    await runJobs();
    expect(x.sent[0]).toMatchObject({ kind: "post", text: "Sorry! Which model is it?", replyTo: first.id_str });
    // our answer comes back on the webhook (ignored); the customer answers it without mentioning us
    const reply = x.post(customer, "the WM-200", { replyTo: { id: x.sent[0].id, userId: x.userId }, mention: false });
    // a long post: its whole text is in extended_tweet
    const longer = x.post(customer, `and ${"it leaks water everywhere ".repeat(8)}`, {
      replyTo: { id: reply.id_str as string, userId: customer },
      mention: false,
      long: true,
    });
    await hook(x.postBody([x.ownPost(x.sent[0]), reply]));
    await processAll();
    await hook(x.postBody([longer]));
    // a post that neither mentions us nor answers a conversation of ours
    await hook(x.postBody([x.post(customer, "unrelated", { mention: false })]));
    await processAll();
    expect(await tickets()).toHaveLength(1);
    expect((await messages(ticket.id)).map((m) => m.body)).toEqual([
      `@${x.screenName} my washer is broken`,
      "Sorry! Which model is it?",
      "the WM-200",
      `and ${"it leaks water everywhere ".repeat(8)}`,
    ]);
    expect((await events()).at(-1)).toMatchObject({ state: "quarantined", error: "an X post that does not mention this account" });

    // a picture goes up with the media upload (as a post's) and out as a reply post of its own
    await answer(ticket, "A technician will call you today.", [new File([JPEG], "route.png", { type: "image/png" })]);
    await runJobs();
    expect(x.sent.slice(1).map((s) => [s.kind, s.text, s.replyTo, s.mediaIds.length])).toEqual([
      ["post", "A technician will call you today.", longer.id_str, 0],
      ["post", undefined, longer.id_str, 1],
    ]);
    expect(x.uploads()).toMatchObject([{ id: x.sent[2].mediaIds[0], type: "image/png", category: "tweet_image" }]);
  });

  it("holds a reply post to 280 characters as X counts them, before anything is sent", async () => {
    expect(postLength("a".repeat(280))).toBe(280);
    expect(postLength("あ".repeat(140))).toBe(280);
    expect(postLength(`see https://example.com/${"x".repeat(100)}`)).toBe(27);
    const customer = x.addUser("Fumi");
    await hook(x.postBody([x.post(customer, "help")]));
    await processAll();
    const [ticket] = await tickets();
    const [id] = await answer(ticket, "ご".repeat(141));
    await runJobs();
    expect(await states([id])).toEqual([["failed", "plugin_x.delivery.postTooLong: 282"]]);
    expect(x.sent).toEqual([]);
    // a document is no file X takes
    const ids = await answer(ticket, "", [new File(["%PDF"], "manual.pdf", { type: "application/pdf" })]);
    await runJobs();
    expect(await states(ids)).toEqual([["failed", "plugin_x.delivery.fileType: manual.pdf"]]);
  });

  it("shows X's own words for a refusal (v2 problem and v1.1 errors) and waits out a 429 until x-rate-limit-reset", async () => {
    const customer = x.addUser("Gina");
    const ticket = await dmConversation(customer);
    x.failNextSend({ status: 403, body: { detail: "You cannot send messages to this user.", type: "about:blank", title: "Forbidden", status: 403 } });
    const [refused] = await answer(ticket, "first");
    await runJobs();
    expect(await states([refused])).toEqual([["failed", "You cannot send messages to this user."]]);

    x.failNextSend({ status: 401, body: { errors: [{ code: 89, message: "Invalid or expired token." }] } });
    const [expired] = await answer(ticket, "second");
    await runJobs();
    expect(await states([expired])).toEqual([["failed", "Invalid or expired token. (code 89)"]]);

    x.throttle(1, 120);
    const [throttled] = await answer(ticket, "third");
    await runJobs();
    expect(await states([throttled])).toEqual([["waiting", "Too Many Requests"]]);
    const [job] = await db
      .select()
      .from(schema.jobs)
      .where(eq(schema.jobs.key, `send:${throttled}`));
    expect(job.attempts).toBe(0);
    // until the reset X gave, not the queue's minute
    expect(job.runAt - clock).toBeGreaterThan(115_000);
    expect(job.runAt - clock).toBeLessThanOrEqual(120_000);
    clock += 120_000;
    await runJobs();
    expect(await states([throttled])).toEqual([["sent", null]]);
    expect(x.sent.map((s) => s.text)).toEqual(["third"]);
  });

  it("one X app's accounts share a webhook URL: an event for_user_id another account reaches it, a stranger's is set aside", async () => {
    const outletId = await saveAccount({
      kind: "TW_DM",
      name: "X outlet",
      address: `@outlet${++seq}`,
      departmentId: 2,
      config: { userId: "2244994945", consumerKey: x.consumerKey, apiBase: x.apiBase },
      secrets: { consumerSecret: x.consumerSecret, accessToken: x.accessToken, accessTokenSecret: x.accessTokenSecret },
    });
    const customer = x.addUser("Nadia");
    await hook({ ...x.dmBody([x.dm(customer, "to the outlet")]), for_user_id: "2244994945" });
    await hook({ ...x.dmBody([x.dm(customer, "to a stranger")]), for_user_id: "783214" });
    await processAll();
    expect(await tickets()).toEqual([]);
    const outlet = await db.select().from(schema.tickets).where(eq(schema.tickets.channelAccountId, outletId));
    expect(outlet.map((k) => [k.channel, k.customerId, k.title])).toEqual([["TW_DM", customer, "to the outlet"]]);
    expect((await events()).filter((e) => e.state === "quarantined").map((e) => e.error)).toEqual([
      expect.stringContaining("an event for X user 783214, which no enabled X account of this app serves"),
    ]);
  });

  it("the Test button asks X who the credentials are; wrong secrets and another account are reported", async () => {
    expect(await adapter.test(account)).toEqual({ ok: true });
    // an OAuth 2.0 user token instead of OAuth 1.0a
    expect(await adapter.test({ ...account, secrets: { consumerSecret: x.consumerSecret, userBearerToken: x.bearerToken } })).toEqual({ ok: true });
    expect(await adapter.test({ ...account, secrets: { ...account.secrets, accessTokenSecret: "wrong" } })).toEqual({ ok: false, error: "Unauthorized" });
    expect(await adapter.test({ ...account, config: { ...account.config, userId: "12345" } })).toEqual({
      ok: false,
      error: `plugin_x.delivery.otherUser: @${x.screenName} (${x.userId})`,
    });
    // a media download signed with the wrong secret is refused by X in v1.1's words
    const picture = x.addMedia(JPEG, "image/jpeg");
    const wrong = { ...account, secrets: { ...account.secrets, accessTokenSecret: "wrong" } };
    await expect(adapter.downloadMedia!(wrong, { id: picture })).rejects.toThrow("Could not authenticate you. (code 32)");
  });

  it("an account needs a numeric user id and a user token (OAuth 1.0a pair or OAuth 2.0)", () => {
    expect(adapter.validate!({ userId: "@omnidesk" }, { consumerSecret: "s" }, [])).toEqual({
      userId: "plugin_x.errors.userId",
      accessToken: "plugin_x.errors.userToken",
    });
    expect(adapter.validate!({ userId: "123" }, { accessToken: "a" }, [])).toEqual({ accessTokenSecret: "plugin_x.errors.userToken" });
    expect(adapter.validate!({ userId: "123" }, {}, ["accessToken", "accessTokenSecret"])).toEqual({});
    expect(adapter.validate!({ userId: "123" }, { userBearerToken: "b" }, [])).toEqual({});
  });
});
