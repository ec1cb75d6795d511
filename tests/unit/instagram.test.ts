// The Instagram channels (IG_PM, IG_POST, IG_MENTION of one Instagram account) against a local
// stand-in of Meta's Graph API (tests/support/instagram-standin.ts), through the channel layer's
// real webhook route function and jobs, on both dialects: signed calls become conversations,
// unsigned or wrongly signed ones leave nothing; a batch is processed whole, a redelivery adds
// nothing; files are fetched (a failed fetch is tried again); replies go out as direct messages
// within Instagram's window (tagged HUMAN_AGENT after 24 hours, refused after 7 days), as reply
// comments in a post's comment thread, or as mention replies; refusals show Meta's words.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { setSetting } from "~/models/settings.server";
import { sendReply } from "~/conversation/reply.server";
import { reply, toggleReaction, type TicketRow } from "~/conversation/model.server";
import { createJobWorker } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { saveAccountForm } from "@plugins/channels/settings.server";
import { webhookCall, webhookHandshake } from "@plugins/channels/webhook.server";
import { adapter } from "@plugins/instagram/adapter.server";
import { startInstagramStandin, type InstagramStandin } from "../support/instagram-standin";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-instagram-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const HOUR = 3_600_000;

describe.each(DIALECTS)("Instagram (%s)", (dialect) => {
  let t: TestDb;
  let ig: InstagramStandin;
  let accountId: number;
  let agent: UserRow;
  const url = () => `http://desk.test/hooks/channels/${accountId}`;
  // each worker's clock is two hours past the last one's: a retry's backoff has passed
  let skew = 0;
  const worker = () => {
    const at = (skew += 2 * HOUR);
    return createJobWorker({ log: () => undefined, now: () => Date.now() + at });
  };
  const runJobs = async () => {
    const w = worker();
    let n = 0;
    while ((await w.runOnce()) > 0 && n < 50) n++;
  };
  const call = (body: unknown, options?: { secret?: string | null }) => webhookCall(ig.webhookRequest(url(), body, options), String(accountId));
  const ticketsOf = async (customerId: string) => {
    const { db, schema } = t.handle;
    return db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, accountId), eq(schema.tickets.customerId, customerId)))
      .orderBy(schema.tickets.id);
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  };
  const eventsOf = async () => {
    const { db, schema } = t.handle;
    return db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.accountId, accountId)).orderBy(schema.inboundEvents.id);
  };
  const states = async (ticketId: number, ids: number[]) =>
    (await messagesOf(ticketId)).filter((m) => ids.includes(m.id)).map((m) => [m.deliveryState, m.deliveryError ?? null]);
  /** A customer's direct-message conversation, from their first message (written `ago` before now). */
  const dm = async (name: string, ago = 0) => {
    const from = ig.addUser(name, name.toLowerCase().replace(/\W+/g, "."));
    await call(ig.messagingBody([ig.text(from, "Hello", { at: Date.now() - ago })]));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    return { from, ticket };
  };
  const answer = async (ticket: TicketRow, message: string) => {
    const result = await sendReply(agent, ticket, { fields: { message }, files: [], fileErrors: [] });
    if (!result.ok) throw new Error(result.message);
    return result.created.map((m) => m.id);
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    ig = await startInstagramStandin();
    accountId = await saveAccount({
      kind: "IG_PM",
      name: "Instagram",
      address: `@${ig.username}`,
      departmentId: 2,
      config: { igId: ig.igId, apiBase: ig.apiBase },
      secrets: { accessToken: ig.accessToken, appSecret: ig.appSecret, verifyToken: "let-me-in" },
    });
    defineInboundJob();
    defineOutboundJob({ adapterFor: async (kind) => (kind === "IG_PM" ? adapter : undefined) });
  }, 60_000);
  afterAll(async () => {
    await ig?.close();
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
    const from = ig.addUser("Nobody", "nobody");
    const body = ig.messagingBody([ig.text(from, "hello")]);
    const before = (await eventsOf()).length;
    expect((await call(body, { secret: null })).status).toBe(401);
    expect((await call(body, { secret: "not-the-app-secret" })).status).toBe(401);
    const signed = ig.webhookRequest(url(), ig.messagingBody([ig.text(from, "other")]));
    const tampered = new Request(url(), { method: "POST", headers: signed.headers, body: JSON.stringify(body) });
    expect((await webhookCall(tampered, String(accountId))).status).toBe(401);
    expect((await eventsOf()).length).toBe(before);
    expect(await ticketsOf(from)).toEqual([]);
  });

  it("a direct message becomes an IG_PM conversation with the customer's name, asked of Instagram once; the next one joins it", async () => {
    const from = ig.addUser("Siti ‮Rahman\u200b", "siti.r");
    expect((await call(ig.messagingBody([ig.text(from, "Is my order shipped?")]))).status).toBe(200);
    await runJobs();
    await call(ig.messagingBody([ig.text(from, "Order 5521")]));
    await runJobs();
    const tickets = await ticketsOf(from);
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ channel: "IG_PM", title: "Is my order shipped?", contactName: "Siti ‮Rahman\u202c", departmentId: 2, ref: "" });
    expect((await messagesOf(tickets[0].id)).map((m) => [m.body, m.senderName])).toEqual([
      ["Is my order shipped?", "Siti ‮Rahman\u202c"],
      ["Order 5521", "Siti ‮Rahman\u202c"],
    ]);
    expect(ig.profileLookups.filter((id) => id === from)).toHaveLength(1);
  });

  it("processes every event of a batch, and a redelivery (whole or re-batched) adds nothing", async () => {
    const a = ig.addUser("Ahmad", "ahmad");
    const b = ig.addUser("Bee", "bee");
    const first = ig.text(a, "one");
    const second = ig.text(a, "two");
    const third = ig.text(b, "three");
    const batch = {
      object: "instagram",
      entry: [ig.messagingBody([first, second]).entry, ig.messagingBody([third]).entry].flat(),
    };
    expect((await call(batch)).status).toBe(200);
    expect((await call(batch)).status).toBe(200);
    expect((await call(ig.messagingBody([second]))).status).toBe(200);
    await runJobs();
    const [ta, ...more] = await ticketsOf(a);
    expect(more).toEqual([]);
    expect((await messagesOf(ta.id)).map((m) => m.body).sort()).toEqual(["one", "two"]);
    expect((await messagesOf((await ticketsOf(b))[0].id)).map((m) => m.body)).toEqual(["three"]);
  });

  it("keeps echoes, unknown changes and unreadable calls for inspection, without a conversation", async () => {
    const from = ig.addUser("Echo", "echo");
    const sent = ig.text(ig.igId, "sent from the Instagram app");
    const echo = { ...sent, recipient: { id: from }, message: { ...(sent.message as object), is_echo: true } };
    await call(ig.messagingBody([echo]));
    await call(ig.changesBody("story_insights", [{ media_id: "1", impressions: 3 }]));
    await call("{not json");
    await runJobs();
    const kept = (await eventsOf()).filter((e) => e.state === "quarantined").map((e) => e.error);
    expect(kept).toEqual(
      expect.arrayContaining([expect.stringContaining("echo"), expect.stringContaining('"story_insights"'), expect.stringContaining("unreadable")]),
    );
    expect(await ticketsOf(from)).toEqual([]);
  });

  it("fetches a customer's photo: a failed download shows the message at once and the photo follows onto it; a reaction is shown as its emoji", async () => {
    const from = ig.addUser("Photo", "photo");
    const bytes = Buffer.from("\x89PNG fake image bytes");
    ig.failMediaDownloads(1);
    await call(ig.messagingBody([ig.attachment(from, "image", ig.addMedia(bytes, "image/png"))]));
    await createJobWorker({ log: () => undefined }).runOnce();
    // the first download failed: the message is there at once, marked as waiting for its file
    const [ticket] = await ticketsOf(from);
    const [waiting] = await messagesOf(ticket.id);
    expect(waiting).toMatchObject({ body: "", fileKey: null, fileState: "pending" });
    await runJobs();
    const [message, ...none] = await messagesOf(ticket.id);
    expect(none).toEqual([]);
    expect(message).toMatchObject({ id: waiting.id, type: "image", fileType: "image/png", fileName: "image.png", fileSize: bytes.length, fileState: null });
    expect(Buffer.from(await new Response(await fileStorage().get(message.fileKey!)).arrayBuffer())).toEqual(bytes);

    await call(ig.messagingBody([ig.reaction(from, "some-mid", "❤️")]));
    await runJobs();
    expect((await messagesOf(ticket.id)).map((m) => [m.fileName, m.body])).toEqual([
      ["image.png", "image.png"],
      [null, "❤️"],
    ]);
  });

  it("sends the agent's reply and picture as direct messages; the read receipt of the last one moves both to read, and a repeated one changes nothing", async () => {
    const { from, ticket } = await dm("Ali");
    const key = await fileStorage().put(Buffer.from("\x89PNG label"));
    const created = await reply(agent, ticket, { body: "Here is your label.", files: [{ key, name: "label.png", type: "image/png", size: 10 }] });
    await runJobs();
    const out = ig.sent.filter((s) => s.to === from);
    expect(out).toMatchObject([
      { text: "Here is your label.", messagingType: "RESPONSE" },
      { attachment: { type: "image", attachmentId: ig.uploads.at(-1)!.id }, messagingType: "RESPONSE" },
    ]);
    expect(ig.uploads.at(-1)).toMatchObject({ name: "label.png", mime: "image/png", type: "image", bytes: Buffer.from("\x89PNG label") });
    const ids = created.map((m) => m.id);
    expect(await states(ticket.id, ids)).toEqual([
      ["sent", null],
      ["sent", null],
    ]);
    // Instagram names the last message read: the ones before it are read too
    await call(ig.messagingBody([ig.read(from, out[1].id)]));
    await runJobs();
    await call(ig.messagingBody([ig.read(from, out[1].id)]));
    await runJobs();
    expect(await states(ticket.id, ids)).toEqual([
      ["read", null],
      ["read", null],
    ]);
  });

  it("an agent's reaction to a direct message reaches Instagram as its one reaction, love; taking the last one back unreacts", async () => {
    const { from, ticket } = await dm("Hana");
    const [message] = await messagesOf(ticket.id);
    const { db, schema } = t.handle;
    const [mid] = await db.select().from(schema.channelMessages).where(eq(schema.channelMessages.messageId, message.id));
    await toggleReaction(agent, ticket, message.id, "👍");
    await runJobs();
    await toggleReaction(agent, ticket, message.id, "👍");
    await runJobs();
    expect(ig.reactions.filter((r) => r.to === from).map((r) => [r.action, r.messageId, r.reaction])).toEqual([
      ["react", mid.providerMessageId, "love"],
      ["unreact", mid.providerMessageId, undefined],
    ]);
  });

  it("after 24 hours a reply is tagged HUMAN_AGENT; after 7 days it is refused before sending, with the reason", async () => {
    const late = await dm("Late Lina", 30 * HOUR);
    await answer(late.ticket, "Sorry for the wait");
    await runJobs();
    expect(ig.sent.filter((s) => s.to === late.from)).toMatchObject([{ text: "Sorry for the wait", messagingType: "MESSAGE_TAG", tag: "HUMAN_AGENT" }]);

    const gone = await dm("Gone Gani", 8 * 24 * HOUR);
    const ids = await answer(gone.ticket, "Are you still there?");
    await runJobs();
    expect(await states(gone.ticket.id, ids)).toEqual([["failed", "plugin_instagram.delivery.windowClosed"]]);
    expect(ig.sent.filter((s) => s.to === gone.from)).toEqual([]);
  });

  it("files and texts Instagram would refuse are refused before anything is sent", async () => {
    const { from, ticket } = await dm("Big");
    const key = await fileStorage().put(Buffer.from("tiny"));
    const created = await reply(agent, ticket, { body: "Here it is", files: [{ key, name: "demo.mp4", type: "video/mp4", size: 40 * 1024 * 1024 }] });
    await runJobs();
    const rows = (await messagesOf(ticket.id)).filter((m) => created.some((c) => c.id === m.id));
    expect(rows.map((m) => m.deliveryState)).toEqual(["failed", "failed"]);
    expect(rows[1].deliveryError).toBe("plugin_instagram.delivery.fileSize: demo.mp4 (40 MB > 25 MB)");
    const zip = await reply(agent, ticket, { body: "", files: [{ key, name: "logs.zip", type: "application/zip", size: 4 }] });
    const long = await answer(ticket, "a".repeat(1001));
    await runJobs();
    expect(await states(ticket.id, [zip[0].id, ...long])).toEqual([
      ["failed", "plugin_instagram.delivery.fileType: logs.zip (application/zip)"],
      ["failed", "plugin_instagram.delivery.textTooLong: 1001 / 1000"],
    ]);
    expect(ig.sent.filter((s) => s.to === from)).toEqual([]);
  });

  it("a comment thread on a post is one IG_POST conversation: replies join it, the account's own comments are ignored, the answer is a reply comment", async () => {
    const mediaId = "17895695668004550";
    const top = ig.comment({ id: "9001", username: "nora.k" }, "Is this in size M?", mediaId);
    expect((await call(ig.changesBody("comments", [top]))).status).toBe(200);
    await runJobs();
    const [ticket, ...more] = await ticketsOf(String(top.id));
    expect(more).toEqual([]);
    expect(ticket).toMatchObject({ channel: "IG_POST", ref: mediaId, title: "Is this in size M?", contactName: "@nora.k" });

    const other = ig.comment({ id: "9002", username: "omar" }, "Same question, in L?", mediaId, String(top.id));
    const ours = ig.comment({ id: ig.igId, username: ig.username }, "We will check!", mediaId, String(top.id));
    // made in the Instagram app: Meta may name the account by another id, its username is the account's
    const oursElsewhere = ig.comment({ id: "555", username: ig.username.toUpperCase() }, "Checking stock now", mediaId, String(top.id));
    await call(ig.changesBody("comments", [other, ours, oursElsewhere]));
    await call(ig.changesBody("comments", [other]));
    await runJobs();
    // a reply in the shape of Meta's Business Login examples (the change on the entry itself)
    const third = ig.comment({ id: "9003", username: "pia" }, "And XL?", mediaId, String(top.id));
    await call({ object: "instagram", entry: [{ id: ig.igId, time: Math.floor(Date.now() / 1000), field: "comments", value: third }] });
    await runJobs();
    expect(await ticketsOf(String(other.id))).toEqual([]);
    expect((await messagesOf(ticket.id)).map((m) => [m.body, m.senderName])).toEqual([
      ["Is this in size M?", "@nora.k"],
      ["Same question, in L?", "@omar"],
      ["And XL?", "@pia"],
    ]);

    const [id] = await answer(ticket, "Yes, both sizes are in stock.");
    await runJobs();
    expect(ig.replies.at(-1)).toMatchObject({ commentId: top.id, message: "Yes, both sizes are in stock." });
    expect(await states(ticket.id, [id])).toEqual([["sent", null]]);
    // a comment takes no file
    const key = await fileStorage().put(Buffer.from("%PDF-1.4"));
    const [file] = await reply(agent, ticket, { body: "", files: [{ key, name: "sizes.pdf", type: "application/pdf", size: 8 }] });
    await runJobs();
    expect(await states(ticket.id, [file.id])).toEqual([["failed", "plugin_instagram.delivery.noFilesInComments: sizes.pdf"]]);
    // and the reply box says so beforehand (the Graph API's comment replies take a message only); not on a direct message
    const hint = (t: TicketRow) => adapter.composerHint!({ id: t.id, ticketNumber: t.ticketNumber, channel: t.channel, channelAccountId: t.channelAccountId });
    expect(await hint(ticket)).toEqual({ notice: "plugin_instagram.composer.filesNotSent" });
    expect(await hint((await dm("Quinn")).ticket)).toBeNull();
  });

  it("a caption mention and a comment mention become IG_MENTION conversations with their text (fetched again when Graph fails), answered through the mentions edge", async () => {
    const mediaId = ig.addMentionedMedia("travel.with.mei", "Loving my new bag from @standin.shop!");
    ig.failLookups(1);
    await call(ig.changesBody("mentions", [{ media_id: mediaId }]));
    // Graph failed to show the caption: nothing written, the event waits for its retry
    await worker().runOnce();
    expect(await ticketsOf(mediaId)).toEqual([]);
    await runJobs();
    const [caption] = await ticketsOf(mediaId);
    expect(caption).toMatchObject({ channel: "IG_MENTION", contactName: "@travel.with.mei", title: "Loving my new bag from @standin.shop!" });
    expect((await messagesOf(caption.id))[0].body).toBe(`Loving my new bag from @standin.shop!\nhttps://www.instagram.com/p/${mediaId}/`);
    await answer(caption, "Thank you, Mei!");
    await runJobs();
    expect(ig.mentionReplies.at(-1)).toEqual({ id: expect.any(String), mediaId, message: "Thank you, Mei!" });

    const commentId = ig.addMentionedComment(mediaId, "friend.of.mei", "@standin.shop do you ship to Penang?");
    await call(ig.changesBody("mentions", [{ media_id: mediaId, comment_id: commentId }]));
    await call(ig.changesBody("mentions", [{ media_id: mediaId, comment_id: commentId }]));
    await runJobs();
    const [mention, ...more] = await ticketsOf(commentId);
    expect(more).toEqual([]);
    expect(mention).toMatchObject({ channel: "IG_MENTION", contactName: "@friend.of.mei", title: "@standin.shop do you ship to Penang?" });
    await answer(mention, "We do, in 2 days.");
    await runJobs();
    expect(ig.mentionReplies.at(-1)).toEqual({ id: expect.any(String), mediaId, commentId, message: "We do, in 2 days." });

    // a mention Instagram will not show (deleted, or made private) is kept for an admin
    await call(ig.changesBody("mentions", [{ media_id: "404404" }]));
    await runJobs();
    expect((await eventsOf()).at(-1)).toMatchObject({ state: "quarantined", error: expect.stringContaining("does not mention this user") });
  });

  it("a story mention becomes an IG_MENTION conversation with the story's link, apart from the customer's direct messages; the answer is a direct message", async () => {
    const { from, ticket: direct } = await dm("Story Sara");
    const story = "https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=17951234&signature=abc";
    await call(ig.messagingBody([ig.attachment(from, "story_mention", story)]));
    await runJobs();
    const tickets = await ticketsOf(from);
    expect(tickets.map((x) => x.channel)).toEqual(["IG_PM", "IG_MENTION"]);
    const mention = tickets[1];
    expect(mention).toMatchObject({ ref: "story", contactName: "Story Sara" });
    expect((await messagesOf(mention.id)).map((m) => m.body)).toEqual([story]);
    expect((await messagesOf(direct.id)).map((m) => m.body)).toEqual(["Hello"]);
    await answer(mention, "Thanks for the shout-out!");
    await runJobs();
    expect(ig.sent.filter((s) => s.to === from).map((s) => s.text)).toEqual(["Thanks for the shout-out!"]);
  });

  it("shows Meta's words when it refuses, and waits (no attempt used) when it rate-limits", async () => {
    const { ticket } = await dm("Mei");
    const { db, schema } = t.handle;
    ig.failSends(1, 429, 4, "(#4) Application request limit reached", { retryAfter: 120 });
    const [limited] = await answer(ticket, "One moment");
    await worker().runOnce();
    expect((await states(ticket.id, [limited]))[0]).toEqual(["waiting", "(#4) Application request limit reached"]);
    const [job] = await db
      .select()
      .from(schema.jobs)
      .where(eq(schema.jobs.key, `send:${limited}`));
    expect(job).toMatchObject({ state: "queued", attempts: 0 });
    await runJobs();
    expect(await states(ticket.id, [limited])).toEqual([["sent", null]]);

    ig.failSends(1, 400, 613, "(#613) Calls to this api have exceeded the rate limit.");
    const [throttled] = await answer(ticket, "Still here");
    await worker().runOnce();
    expect((await states(ticket.id, [throttled]))[0][0]).toBe("waiting");
    await db.delete(schema.jobs);

    ig.failSends(1, 400, 551, "(#551) This person isn't available right now.");
    const [refused] = await answer(ticket, "Are you there?");
    await worker().runOnce();
    expect(await states(ticket.id, [refused])).toEqual([["failed", "(#551) This person isn't available right now."]]);
  });

  it("one Meta app's Instagram accounts share a webhook URL: each entry reaches its own account, a stranger's is set aside", async () => {
    const otherIgId = "17841400000000002";
    const otherId = await saveAccount({
      kind: "IG_PM",
      name: "Instagram outlet",
      address: "@outlet",
      departmentId: 2,
      config: { igId: otherIgId, apiBase: ig.apiBase },
      secrets: { accessToken: ig.accessToken, appSecret: ig.appSecret, verifyToken: "outlet" },
    });
    const customer = "9988776655";
    const entry = (id: string, text: string) => ({
      time: Date.now(),
      id,
      messaging: [{ sender: { id: customer }, recipient: { id }, timestamp: Date.now(), message: { mid: `m_${id}_${text.length}`, text } }],
    });
    // the outlet's entry arrives at the first account's URL, beside a stranger account's
    await call({ object: "instagram", entry: [entry(otherIgId, "to the outlet"), entry("17841499999999999", "to a stranger")] });
    await runJobs();
    expect(await ticketsOf(customer)).toEqual([]);
    const { db, schema } = t.handle;
    const [outlet, ...more] = await db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, otherId), eq(schema.tickets.customerId, customer)));
    expect(more).toEqual([]);
    expect(outlet).toMatchObject({ channel: "IG_PM", title: "to the outlet" });
    expect((await eventsOf()).filter((e) => e.state === "quarantined").map((e) => e.error)).toContainEqual(
      expect.stringContaining("for Instagram account 17841499999999999"),
    );
  });

  it("the Test button reaches the account, and reports a wrong token in Meta's words", async () => {
    const account = (await loadAccount(accountId))!;
    expect(await adapter.test(account)).toEqual({ ok: true });
    expect(await adapter.test({ ...account, secrets: { ...account.secrets, accessToken: "wrong" } })).toEqual({
      ok: false,
      error: expect.stringContaining("Invalid OAuth access token"),
    });
  });

  it("Instagram accounts are added from the Basic plan on (spec section 9)", async () => {
    const admin = (await findUserByUsername("admin"))!;
    const by = { actor: { id: admin.id, name: admin.username } };
    const form = (address: string) => {
      const body = new FormData();
      const fields = {
        kind: "IG_PM",
        name: "Instagram",
        address,
        department: "",
        "config.igId": "17841400000000001",
        "config.accessToken": "t",
        "config.appSecret": "s",
        "config.verifyToken": "v",
      };
      for (const [k, v] of Object.entries(fields)) body.append(k, v);
      return body;
    };
    try {
      await setSetting("plan", "1");
      expect(await saveAccountForm(form("@starter"), by)).toMatchObject({ ok: false, status: 403, result: { message: "plugin_channels.errors.planBasic" } });
      await setSetting("plan", "2");
      expect(await saveAccountForm(form("@basic"), by)).toMatchObject({ ok: true });
    } finally {
      await setSetting("plan", "3");
    }
  });
});
