// The Facebook Page channel (FB_PM Messenger, FB_PAGE_POST comment threads) against a local
// stand-in of Meta's Graph API (tests/support/facebook-standin.ts), through the channel layer's real
// webhook route function and jobs, on both dialects: signed calls become conversations, unsigned
// ones leave nothing; batches are processed whole, redeliveries add nothing; receipts by watermark
// move messages forward only; Messenger's windows decide how (and whether) a reply goes out; a
// comment thread is one ticket answered with reply comments; one app's Pages share a webhook URL.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerResponder } from "@plugins/channels/responders.server";
import { defineAnswerJob, responder } from "@plugins/wauchat/bot.server";
import { setBotForAccount } from "@plugins/wauchat/config.server";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sendReply } from "~/conversation/reply.server";
import { reply, toggleReaction } from "~/conversation/model.server";
import { createJobWorker } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { webhookCall, webhookHandshake } from "@plugins/channels/webhook.server";
import { adapter } from "@plugins/facebook/adapter.server";
import { startFacebookStandin, type FacebookStandin } from "../support/facebook-standin";
import { startPublicFilesDoor } from "../support/public-files-door";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-facebook-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const DAY = 24 * 3_600_000;

describe.each(DIALECTS)("Facebook Page: Messenger and comments (%s)", (dialect) => {
  let t: TestDb;
  let fb: FacebookStandin;
  let accountId: number;
  let pageId: string;
  let agent: UserRow;
  const url = (id = accountId) => `http://desk.test/hooks/channels/${id}`;
  let skew = 0;
  // each worker's clock is two hours past the last one's: a retry's backoff has passed
  const worker = () => {
    const at = (skew += 2 * 3_600_000);
    return createJobWorker({ log: () => undefined, now: () => Date.now() + at });
  };
  const runJobs = async () => {
    const w = worker();
    let n = 0;
    while ((await w.runOnce()) > 0 && n < 50) n++;
  };
  const call = (body: unknown, options?: { secret?: string | null; id?: number }) =>
    webhookCall(fb.webhookRequest(url(options?.id), body, options), String(options?.id ?? accountId));
  const messenger = (...messaging: unknown[]) => fb.body([{ pageId, messaging }]);
  const ticketsOf = async (customerId: string, account = accountId) => {
    const { db, schema } = t.handle;
    return db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, account), eq(schema.tickets.customerId, customerId)));
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  };
  const eventCount = async () => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.inboundEvents)).length;
  };
  /** A customer who has written "Hi" and has their ticket. */
  const customerWithTicket = async (first: string, options: { at?: number } = {}) => {
    const psid = fb.addUser(first, "Tan");
    await call(messenger(fb.text(pageId, psid, "Hi", options)));
    await runJobs();
    const [ticket] = await ticketsOf(psid);
    return { psid, ticket };
  };
  const say = async (ticket: { id: number }, text: string) => {
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, ticket.id));
    const result = await sendReply(agent, row, { fields: { message: text }, files: [], fileErrors: [] });
    if (!result.ok) throw new Error(result.message);
    return result.created[0].id;
  };
  const stateOf = async (ticketId: number, messageId: number) => (await messagesOf(ticketId)).find((m) => m.id === messageId)!;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    fb = await startFacebookStandin();
    pageId = fb.page.id;
    accountId = await saveAccount({
      kind: "FB_PM",
      name: "Stand-in Store",
      address: "stand-in store",
      departmentId: 2,
      config: { pageId, apiBase: fb.apiBase },
      secrets: { accessToken: fb.page.accessToken, appSecret: fb.appSecret, verifyToken: "let-me-in" },
    });
    defineInboundJob();
    defineOutboundJob({ adapterFor: async (kind) => (kind === "FB_PM" ? adapter : undefined) });
  });
  afterAll(async () => {
    await fb?.close();
    await t?.cleanup();
  });
  beforeEach(async () => {
    await t.handle.db.delete(t.handle.schema.jobs);
  });

  it("answers Meta's subscription handshake only with the verify token", async () => {
    const ok = await webhookHandshake(new Request(`${url()}?hub.mode=subscribe&hub.verify_token=let-me-in&hub.challenge=8675309`), String(accountId));
    expect([ok.status, await ok.text()]).toEqual([200, "8675309"]);
    const wrong = await webhookHandshake(new Request(`${url()}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1`), String(accountId));
    expect(wrong.status).toBe(403);
  });

  it("refuses unsigned and wrongly signed calls with 401 and keeps nothing", async () => {
    const psid = fb.addUser("Nobody", "Signed");
    const body = messenger(fb.text(pageId, psid, "hello"));
    const before = await eventCount();
    expect((await call(body, { secret: null })).status).toBe(401);
    expect((await call(body, { secret: "not-the-app-secret" })).status).toBe(401);
    expect(await eventCount()).toBe(before);
    await runJobs();
    expect(await ticketsOf(psid)).toHaveLength(0);
  });

  it("a message becomes a conversation named from the customer's profile (asked once); echoes are not messages", async () => {
    const psid = fb.addUser("Siti", "Rahman\u200b");
    expect((await call(messenger(fb.text(pageId, psid, "Is my order shipped?")))).status).toBe(200);
    await runJobs();
    const [ticket] = await ticketsOf(psid);
    expect(ticket).toMatchObject({ channel: "FB_PM", title: "Is my order shipped?", contactName: "Siti Rahman", customerId: psid, departmentId: 2 });
    await call(
      messenger(
        fb.echo(pageId, psid, "Thanks, checking"),
        fb.text(pageId, psid, "Order 5521", { quickReply: "ORDER" }),
        fb.postback(pageId, psid, "Talk to us", "HUMAN"),
      ),
    );
    await runJobs();
    expect(await ticketsOf(psid)).toHaveLength(1);
    expect((await messagesOf(ticket.id)).map((m) => m.body).sort()).toEqual(["Is my order shipped?", "Order 5521", "Talk to us"]);
    expect(fb.profileLookups.filter((p) => p === psid)).toHaveLength(1);
    // a quick reply without its title: the payload is the text
    const quick = fb.text(pageId, psid, "", { quickReply: "SIZE_M" });
    await call(messenger(quick));
    await runJobs();
    expect((await messagesOf(ticket.id)).map((m) => m.body)).toContain("SIZE_M");
  });

  it("processes every entry and event of a batch, and a redelivery adds nothing", async () => {
    const a = fb.addUser("Ana", "A");
    const b = fb.addUser("Ben", "B");
    const first = fb.text(pageId, a, "one");
    const second = fb.text(pageId, a, "two");
    const third = fb.text(pageId, b, "three");
    const batch = fb.body([
      { pageId, messaging: [first, second] },
      { pageId, messaging: [third] },
    ]);
    expect((await call(batch)).status).toBe(200);
    expect((await call(batch)).status).toBe(200);
    expect((await call(messenger(second))).status).toBe(200);
    await runJobs();
    const [ta, ...more] = await ticketsOf(a);
    expect(more).toEqual([]);
    const [tb] = await ticketsOf(b);
    expect((await messagesOf(ta.id)).map((m) => m.body).sort()).toEqual(["one", "two"]);
    expect((await messagesOf(tb.id)).map((m) => m.body)).toEqual(["three"]);
  });

  it("keeps an unreadable signed call, an unknown change and a reaction for inspection, without a conversation", async () => {
    const psid = fb.addUser("Reacts", "Only");
    expect((await call("{not json")).status).toBe(200);
    const reaction = { sender: { id: psid }, recipient: { id: pageId }, timestamp: Date.now(), reaction: { mid: "m_x", action: "react", emoji: "❤" } };
    expect((await call(fb.body([{ pageId, messaging: [reaction], changes: [{ field: "feed", value: { item: "like", verb: "add" } }] }]))).status).toBe(200);
    await runJobs();
    expect(await ticketsOf(psid)).toHaveLength(0);
    const { db, schema } = t.handle;
    const kept = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.state, "quarantined"));
    expect(kept.map((e) => e.error)).toEqual(
      expect.arrayContaining([expect.stringContaining("unreadable"), expect.stringContaining('"feed/like"'), expect.stringContaining('"reaction"')]),
    );
  });

  it("stores a customer's photo and file from the CDN; one that fails to download follows when a retry gets it", async () => {
    const psid = fb.addUser("Photo", "Sender");
    const photo = Buffer.from("\x89PNG fake image bytes");
    const pdf = Buffer.from("%PDF-1.4 receipt");
    fb.failFileDownloads(1);
    await call(
      messenger(
        fb.attachments(pageId, psid, [
          { type: "image", url: fb.addFile(photo, "image/png", "IMG_0042.png") },
          { type: "file", url: fb.addFile(pdf, "application/pdf", "receipt.pdf") },
        ]),
      ),
    );
    // first try (before any retry is due): the photo fails; what came is written at once, marked as waiting for the rest
    await createJobWorker({ log: () => undefined }).runOnce();
    const [ticket] = await ticketsOf(psid);
    expect((await messagesOf(ticket.id)).map((m) => [m.fileName, m.fileState])).toEqual([["receipt.pdf", "pending"]]);
    await runJobs();
    const stored = await messagesOf(ticket.id);
    expect(stored.map((m) => [m.fileName, m.fileType, m.fileSize, m.fileState])).toEqual([
      ["receipt.pdf", "application/pdf", pdf.length, null],
      ["IMG_0042.png", "image/png", photo.length, null],
    ]);
    expect(Buffer.from(await new Response(await fileStorage().get(stored[1].fileKey!)).arrayBuffer())).toEqual(photo);
  });

  it("leaves out a customer's file whose address is off Meta's file hosts; the rest of the message arrives", async () => {
    const psid = fb.addUser("Odd", "Link");
    const photo = Buffer.from("\x89PNG good");
    await call(
      messenger(
        fb.attachments(pageId, psid, [
          { type: "image", url: fb.addFile(photo, "image/png", "good.png") },
          { type: "file", url: "http://169.254.169.254/latest/meta-data/iam" },
        ]),
      ),
    );
    await runJobs();
    const [ticket] = await ticketsOf(psid);
    expect((await messagesOf(ticket.id)).map((m) => [m.fileName, m.fileSize])).toEqual([["good.png", photo.length]]);
  });

  it("sends the agent's text and file as a standard answer within 24 hours", async () => {
    const { psid, ticket } = await customerWithTicket("Ali");
    const key = await fileStorage().put(Buffer.from("%PDF-1.4 invoice"));
    const created = await reply(agent, ticket, { body: "Here is your invoice.", files: [{ key, name: "invoice.pdf", type: "application/pdf", size: 16 }] });
    await runJobs();
    const out = fb.sent.filter((s) => s.recipient === psid);
    expect(out.map((s) => [s.messagingType, s.tag, s.text, s.attachment?.type, s.attachment?.name])).toEqual([
      ["RESPONSE", undefined, "Here is your invoice.", undefined, undefined],
      ["RESPONSE", undefined, undefined, "file", "invoice.pdf"],
    ]);
    expect(out[1].attachment?.bytes.toString()).toBe("%PDF-1.4 invoice");
    expect((await messagesOf(ticket.id)).filter((m) => created.some((c) => c.id === m.id)).map((m) => m.deliveryState)).toEqual(["sent", "sent"]);
  });

  it("after 24 hours answers with the HUMAN_AGENT tag; after 7 days refuses before sending, with the reason", async () => {
    const late = await customerWithTicket("Late", { at: Date.now() - 2 * DAY });
    const id = await say(late.ticket, "Sorry for the wait");
    await runJobs();
    expect(fb.sent.filter((s) => s.recipient === late.psid).map((s) => [s.messagingType, s.tag])).toEqual([["MESSAGE_TAG", "HUMAN_AGENT"]]);
    expect((await stateOf(late.ticket.id, id)).deliveryState).toBe("sent");

    const gone = await customerWithTicket("Gone", { at: Date.now() - 8 * DAY });
    const sentBefore = fb.sent.length;
    const refused = await say(gone.ticket, "Are you still there?");
    await runJobs();
    expect(await stateOf(gone.ticket.id, refused)).toMatchObject({ deliveryState: "failed", deliveryError: "plugin_facebook.delivery.windowClosed" });
    expect(fb.sent.length).toBe(sentBefore);
  });

  it("a file over Messenger's 25 MB is refused before anything is sent", async () => {
    const { ticket } = await customerWithTicket("Big");
    const key = await fileStorage().put(Buffer.from("tiny"));
    const sentBefore = fb.sent.length;
    const created = await reply(agent, ticket, { body: "Here it is", files: [{ key, name: "demo.mp4", type: "video/mp4", size: 40 * 1024 * 1024 }] });
    await runJobs();
    const rows = (await messagesOf(ticket.id)).filter((m) => created.some((c) => c.id === m.id));
    expect(rows.map((m) => m.deliveryState)).toEqual(["failed", "failed"]);
    expect(rows[1].deliveryError).toBe("plugin_facebook.delivery.fileSize: demo.mp4 (40 MB > 25 MB)");
    expect(fb.sent.length).toBe(sentBefore);
  });

  it("delivery and read receipts move every message up to their watermark forward, never back", async () => {
    const { psid, ticket } = await customerWithTicket("Watch");
    const first = await say(ticket, "First");
    await runJobs();
    const between = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    const second = await say(ticket, "Second");
    await runJobs();
    const states = async () => [(await stateOf(ticket.id, first)).deliveryState, (await stateOf(ticket.id, second)).deliveryState];
    expect(await states()).toEqual(["sent", "sent"]);

    // read up to a moment between the two (arriving before any delivery receipt), then delivered for both
    await call(messenger(fb.read(pageId, psid, between)));
    await runJobs();
    expect(await states()).toEqual(["read", "sent"]);
    await call(messenger(fb.delivery(pageId, psid, Date.now())));
    await runJobs();
    expect(await states()).toEqual(["read", "delivered"]);
    // a late delivery receipt with an old watermark, and the same read again, change nothing
    await call(messenger(fb.delivery(pageId, psid, between)));
    await call(messenger(fb.read(pageId, psid, between)));
    await runJobs();
    expect(await states()).toEqual(["read", "delivered"]);
    await call(messenger(fb.read(pageId, psid, Date.now())));
    await runJobs();
    expect(await states()).toEqual(["read", "read"]);
  });

  it("shows Graph's words when a send is refused, and waits (no attempt used) on a rate limit", async () => {
    const { ticket } = await customerWithTicket("Mei");
    const { db, schema } = t.handle;
    for (const [status, code, words, retryAfter] of [
      [429, 4, "(#4) Application request limit reached", 120],
      [400, 613, "(#613) Calls to this api have exceeded the rate limit.", 0],
    ] as const) {
      await db.delete(schema.jobs);
      fb.failSends(1, status, code, words, { retryAfter });
      const id = await say(ticket, `One moment (${code})`);
      await worker().runOnce();
      expect(await stateOf(ticket.id, id)).toMatchObject({ deliveryState: "waiting", deliveryError: words });
      const [job] = await db
        .select()
        .from(schema.jobs)
        .where(eq(schema.jobs.key, `send:${id}`));
      expect(job).toMatchObject({ state: "queued", attempts: 0 });
      await runJobs();
      expect((await stateOf(ticket.id, id)).deliveryState).toBe("sent");
    }

    await db.delete(schema.jobs);
    fb.failSends(1, 400, 551, "(#551) This person isn't available right now.");
    const refused = await say(ticket, "Are you there?");
    await worker().runOnce();
    expect(await stateOf(ticket.id, refused)).toMatchObject({ deliveryState: "failed", deliveryError: "(#551) This person isn't available right now." });
  });

  it("sends an answer over 2,000 characters as several messages; after a rate limit halfway only the rest goes", async () => {
    const { psid, ticket } = await customerWithTicket("Aisyah");
    const { db, schema } = t.handle;
    await db.delete(schema.jobs);
    const long = `${"a".repeat(2000)}${"b".repeat(2000)}${"c".repeat(10)}`;
    // Graph takes the first piece, then limits the app
    fb.failSends(1, 429, 4, "(#4) Application request limit reached", { after: 1, retryAfter: 1 });
    const id = await say(ticket, long);
    await worker().runOnce();
    expect(await stateOf(ticket.id, id)).toMatchObject({ deliveryState: "waiting" });
    await runJobs();
    expect((await stateOf(ticket.id, id)).deliveryState).toBe("sent");
    const texts = fb.sent.filter((s) => s.recipient === psid).map((s) => s.text);
    expect(texts).toEqual(["a".repeat(2000), "b".repeat(2000), "c".repeat(10)]);
    // the message stands for its first piece, so the customer's receipts find it
    const [row] = await db.select().from(schema.channelMessages).where(eq(schema.channelMessages.messageId, id));
    expect(row.providerMessageId).toBe(fb.sent.find((s) => s.text === "a".repeat(2000))!.id);
  });

  it("an agent's reaction to the customer's message reaches Messenger; changing it sends the new one, taking it back unreacts", async () => {
    const { psid, ticket } = await customerWithTicket("Rina");
    const [customerMessage] = await messagesOf(ticket.id);
    const { db, schema } = t.handle;
    const [mid] = await db.select().from(schema.channelMessages).where(eq(schema.channelMessages.messageId, customerMessage.id));
    const mine = () => fb.reactions.filter((r) => r.recipient === psid).map((r) => [r.action, r.messageId, r.reaction]);
    await toggleReaction(agent, ticket, customerMessage.id, "👍");
    await runJobs();
    expect(mine()).toEqual([["react", mid.providerMessageId, "👍"]]);
    // a second agent's heart, then the first takes the thumbs back: the heart stays
    const admin = (await findUserByUsername("admin"))!;
    await toggleReaction(admin, ticket, customerMessage.id, "❤️");
    await toggleReaction(agent, ticket, customerMessage.id, "👍");
    await runJobs();
    expect(mine().slice(1)).toEqual([
      ["react", mid.providerMessageId, "❤️"],
      ["react", mid.providerMessageId, "❤️"],
    ]);
    await toggleReaction(admin, ticket, customerMessage.id, "❤️");
    await runJobs();
    expect(mine().at(-1)).toEqual(["unreact", mid.providerMessageId, undefined]);
    // a reaction to the agent's own answer stays in the desk
    const answer = await say(ticket, "Done");
    await runJobs();
    const before = fb.reactions.length;
    await toggleReaction(admin, ticket, answer, "👍");
    await runJobs();
    expect(fb.reactions.length).toBe(before);
  });

  it("a post's comment thread is one FB_PAGE_POST ticket; the Page's own comments are not messages", async () => {
    const post = fb.post(pageId);
    const top = fb.comment(pageId, post, { id: "5551001", name: "Farah" }, "Do you ship to Penang?");
    expect((await call(fb.body([{ pageId, changes: [top] }]))).status).toBe(200);
    await runJobs();
    const [ticket, ...more] = await ticketsOf(top.value.comment_id);
    expect(more).toEqual([]);
    expect(ticket).toMatchObject({ channel: "FB_PAGE_POST", ref: post, contactName: "Farah", title: "Do you ship to Penang?" });

    // another person's reply in the thread joins it; the Page's own reply (an answer given on Facebook) does not
    const other = fb.comment(pageId, post, { id: "5551002", name: "Kumar" }, "Same question, to Ipoh", { parent: top.value.comment_id });
    const own = fb.comment(pageId, post, { id: pageId, name: "Stand-in Store" }, "We do!", { parent: top.value.comment_id });
    await call(fb.body([{ pageId, changes: [other, own] }]));
    await call(fb.body([{ pageId, changes: [other] }]));
    await runJobs();
    expect(await ticketsOf(top.value.comment_id)).toHaveLength(1);
    expect((await messagesOf(ticket.id)).map((m) => [m.senderName, m.body])).toEqual([
      ["Farah", "Do you ship to Penang?"],
      ["Kumar", "Same question, to Ipoh"],
    ]);

    // an edited comment shows its new words in the thread; a removed one changes nothing
    const edited = fb.comment(pageId, post, { id: "5551002", name: "Kumar" }, "Same question, to Ipoh and Perak", {
      parent: top.value.comment_id,
      id: other.value.comment_id,
      verb: "edited",
    });
    const removed = fb.comment(pageId, post, { id: "5551002", name: "Kumar" }, "", {
      parent: top.value.comment_id,
      id: other.value.comment_id,
      verb: "remove",
    });
    await call(fb.body([{ pageId, changes: [edited, removed] }]));
    await runJobs();
    expect((await messagesOf(ticket.id)).map((m) => m.body)).toEqual(["Do you ship to Penang?", "Same question, to Ipoh", "Same question, to Ipoh and Perak"]);

    // a new top-level comment on the same post is a thread of its own
    const second = fb.comment(pageId, post, { id: "5551001", name: "Farah" }, "And to Sabah?");
    await call(fb.body([{ pageId, changes: [second] }]));
    await runJobs();
    expect(await ticketsOf(second.value.comment_id)).toHaveLength(1);
  });

  it("with the chat bot on for the Page, Messenger chats are the bot's but public comment threads go straight to agents", async () => {
    const unregister = registerResponder("wauchat", responder);
    defineAnswerJob();
    const admin = (await findUserByUsername("admin"))!;
    await setBotForAccount(accountId, true, { actor: admin });
    try {
      const post = fb.post(pageId);
      const comment = fb.comment(pageId, post, { id: "5559001", name: "Public Pat" }, "Is this in stock?");
      const psid = fb.addUser("Private", "Pia");
      await call(fb.body([{ pageId, changes: [comment] }]));
      await call(messenger(fb.text(pageId, psid, "hello")));
      await runJobs();
      const [thread] = await ticketsOf(comment.value.comment_id);
      expect(thread).toMatchObject({ channel: "FB_PAGE_POST", status: 0 });
      // nobody but Pat wrote in the thread, and nothing went out as a public reply
      expect((await messagesOf(thread.id)).map((m) => m.senderName)).toEqual(["Public Pat"]);
      expect(fb.replies.filter((r) => r.commentId === comment.value.comment_id)).toEqual([]);
      const [chat] = await ticketsOf(psid);
      expect(chat).toMatchObject({ channel: "FB_PM", status: 1 });
      expect((await messagesOf(chat.id)).length).toBeGreaterThan(1);
    } finally {
      await setBotForAccount(accountId, false, { actor: admin });
      unregister();
    }
  });

  it("the agent's answer on a comment thread goes out as a reply comment; a picture as a photo comment Facebook fetches, other files refused", async () => {
    const post = fb.post(pageId);
    const top = fb.comment(pageId, post, { id: "5552001", name: "Hui Min" }, "Is this in stock?");
    await call(fb.body([{ pageId, changes: [top] }]));
    await runJobs();
    const [ticket] = await ticketsOf(top.value.comment_id);
    const id = await say(ticket, "Yes, all sizes.");
    await runJobs();
    expect(fb.replies.filter((r) => r.commentId === top.value.comment_id).map((r) => r.message)).toEqual(["Yes, all sizes."]);
    expect((await stateOf(ticket.id, id)).deliveryState).toBe("sent");
    // our reply coming back in the feed (from the Page) adds nothing
    const back = fb.comment(pageId, post, { id: pageId, name: "Stand-in Store" }, "Yes, all sizes.", {
      parent: top.value.comment_id,
      id: fb.replies.at(-1)!.id,
    });
    await call(fb.body([{ pageId, changes: [back] }]));
    await runJobs();
    expect(await messagesOf(ticket.id)).toHaveLength(2);

    const door = await startPublicFilesDoor();
    const previousBase = process.env.BASE_URL;
    process.env.BASE_URL = door.url;
    try {
      const pdf = await fileStorage().put(Buffer.from("%PDF-1.4"));
      const repliesBefore = fb.replies.length;
      const refused = await reply(agent, ticket, { body: "See the sheet", files: [{ key: pdf, name: "sizes.pdf", type: "application/pdf", size: 8 }] });
      await runJobs();
      const rows = (await messagesOf(ticket.id)).filter((m) => refused.some((c) => c.id === m.id));
      expect(rows[1]).toMatchObject({ deliveryState: "failed", deliveryError: "plugin_facebook.delivery.commentFile: sizes.pdf" });
      expect(fb.replies.length).toBe(repliesBefore);

      const png = Buffer.from("\x89PNG\r\n\x1a\nsizes", "latin1");
      const key = await fileStorage().put(png);
      const created = await reply(agent, ticket, { body: "See the photo", files: [{ key, name: "sizes.png", type: "image/png", size: png.length }] });
      await runJobs();
      const sent = (await messagesOf(ticket.id)).filter((m) => created.some((c) => c.id === m.id));
      expect(sent.map((m) => m.deliveryState)).toEqual(["sent", "sent"]);
      const photo = fb.replies.at(-1)!;
      expect(photo).toMatchObject({ commentId: top.value.comment_id, message: "", photo: { type: "image/png", bytes: png } });
      expect(photo.photo!.url).toMatch(new RegExp(`^${door.url}/hooks/channels/files/${created[1].id}\\.`));
    } finally {
      if (previousBase === undefined) delete process.env.BASE_URL;
      else process.env.BASE_URL = previousBase;
      await door.close();
    }
  });

  it("one Meta app's Pages share a webhook URL: each entry reaches its own Page's account", async () => {
    const second = fb.addPage("Stand-in Outlet");
    const otherId = await saveAccount({
      kind: "FB_PM",
      name: "Outlet",
      address: "outlet",
      departmentId: 2,
      config: { pageId: second.id, apiBase: fb.apiBase },
      secrets: { accessToken: second.accessToken, appSecret: fb.appSecret, verifyToken: "outlet" },
    });
    const a = fb.addUser("Store", "Customer");
    const b = fb.addUser("Outlet", "Customer");
    // both Pages' entries in one call to the first Page's URL
    await call(
      fb.body([
        { pageId, messaging: [fb.text(pageId, a, "to the store")] },
        { pageId: second.id, messaging: [fb.text(second.id, b, "to the outlet")] },
      ]),
    );
    await runJobs();
    expect(await ticketsOf(a)).toHaveLength(1);
    expect(await ticketsOf(b)).toHaveLength(0);
    const [outlet] = await ticketsOf(b, otherId);
    expect(outlet).toMatchObject({ channel: "FB_PM", channelAccountId: otherId });
    // the answer goes out from the outlet's Page with its token
    await say(outlet, "Hello from the outlet");
    await runJobs();
    expect(fb.sent.filter((s) => s.recipient === b).map((s) => [s.pageId, s.text])).toEqual([[second.id, "Hello from the outlet"]]);

    // a Page no account here serves (or served by another app) is set aside, not made a ticket
    const stranger = fb.addUser("Stranger", "Page");
    await call(fb.body([{ pageId: "999000999", messaging: [fb.text("999000999", stranger, "hi")] }]));
    await runJobs();
    const { db, schema } = t.handle;
    const kept = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.state, "quarantined"));
    expect(kept.map((e) => e.error)).toContainEqual(expect.stringContaining("for Page 999000999"));
  });

  it("the Test button reaches the Page, and reports a wrong token in Meta's words", async () => {
    const account = (await loadAccount(accountId))!;
    expect(await adapter.test(account)).toEqual({ ok: true });
    expect(await adapter.test({ ...account, secrets: { ...account.secrets, accessToken: "wrong" } })).toEqual({
      ok: false,
      error: expect.stringContaining("Invalid OAuth access token"),
    });
  });
});
