// The WHATSAPP channel against a local stand-in of Meta's Graph API (tests/support/meta-standin.ts),
// through the channel layer's real webhook route function and jobs, on both dialects: signed calls
// become conversations, unsigned or wrongly signed ones leave nothing; a batch is processed whole,
// a redelivery adds nothing; receipts move a message forward only; media are downloaded (and a
// failed download is tried again); replies, files and refusals go out through the outbound job.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sendReply } from "~/conversation/reply.server";
import { reply, toggleReaction } from "~/conversation/model.server";
import { createJobWorker } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { decorateMessages } from "~/conversation/message-view.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { webhookCall, webhookHandshake } from "@plugins/channels/webhook.server";
import { adapter } from "@plugins/whatsapp/adapter.server";
import { forgetTemplates, sendTemplate, templateConversation } from "@plugins/whatsapp/templates.server";
import { startMetaStandin, waContact, waStatus, waText, whatsappBody, type MetaStandin } from "../support/meta-standin";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-whatsapp-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe.each(DIALECTS)("WhatsApp Cloud API (%s)", (dialect) => {
  let t: TestDb;
  let meta: MetaStandin;
  let accountId: number;
  let agent: UserRow;
  let phone = 60123450000;
  const url = () => `http://desk.test/hooks/channels/${accountId}`;
  // each worker's clock is two hours past the last one's: a retry's backoff has passed
  let skew = 0;
  const worker = () => {
    const at = (skew += 2 * 3_600_000);
    return createJobWorker({ log: () => undefined, now: () => Date.now() + at });
  };
  /** Runs the due jobs until none is left (inbound events, sends). */
  const runJobs = async () => {
    const w = worker();
    let n = 0;
    while ((await w.runOnce()) > 0 && n < 50) n++;
  };
  const call = (body: unknown, options?: { secret?: string | null }) => webhookCall(meta.webhookRequest(url(), body, options), String(accountId));
  const ticketsOf = async (customerId: string) => {
    const { db, schema } = t.handle;
    return db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, accountId), eq(schema.tickets.customerId, customerId)));
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  };
  const eventCount = async () => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.accountId, accountId))).length;
  };
  const nextCustomer = () => String(++phone);

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    meta = await startMetaStandin();
    accountId = await saveAccount({
      kind: "WHATSAPP",
      name: "WhatsApp support",
      address: "+15550100",
      departmentId: 2,
      config: { phoneNumberId: meta.phoneNumberId, businessAccountId: meta.businessAccountId, apiBase: meta.apiBase },
      secrets: { accessToken: meta.accessToken, appSecret: meta.appSecret, verifyToken: "let-me-in" },
    });
    defineInboundJob();
    defineOutboundJob({ adapterFor: async (kind) => (kind === "WHATSAPP" ? adapter : undefined) });
    forgetTemplates();
    meta.addTemplate({
      name: "order_update",
      language: "en_US",
      category: "UTILITY",
      components: [
        { type: "HEADER", format: "TEXT", text: "Your order" },
        { type: "BODY", text: "Hello {{1}}, your order {{2}} has shipped." },
        { type: "FOOTER", text: "Reply STOP to opt out" },
      ],
    });
    meta.addTemplate({ name: "order_update", language: "ms", components: [{ type: "BODY", text: "Hai {{1}}, pesanan {{2}} telah dihantar." }] });
    meta.addTemplate({ name: "follow_up", language: "en_US", components: [{ type: "BODY", text: "Are you still there? We are happy to help." }] });
    // not offered: a header that needs a picture, and one still waiting for Meta's approval
    meta.addTemplate({
      name: "promo",
      language: "en_US",
      components: [
        { type: "HEADER", format: "IMAGE" },
        { type: "BODY", text: "Sale {{1}}" },
      ],
    });
    meta.addTemplate({ name: "draft", language: "en_US", status: "PENDING", components: [{ type: "BODY", text: "Soon" }] });
    // not offered: buttons that need a value at send time (a one-time code, a catalog); offered: a quick reply
    meta.addTemplate({
      name: "login_code",
      language: "en_US",
      category: "AUTHENTICATION",
      components: [
        { type: "BODY", text: "{{1}} is your verification code." },
        { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] },
      ],
    });
    meta.addTemplate({
      name: "shop_now",
      language: "en_US",
      category: "MARKETING",
      components: [
        { type: "BODY", text: "Our new collection is here." },
        { type: "BUTTONS", buttons: [{ type: "CATALOG", text: "View catalog" }] },
      ],
    });
    meta.addTemplate({
      name: "rate_us",
      language: "en_US",
      category: "UTILITY",
      components: [
        { type: "BODY", text: "Was this helpful?" },
        { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "Yes" }] },
      ],
    });
  });
  afterAll(async () => {
    await meta?.close();
    await t?.cleanup();
  });
  beforeEach(async () => {
    await t.handle.db.delete(t.handle.schema.jobs);
  });

  it("answers Meta's subscription handshake only with the verify token", async () => {
    const ok = await webhookHandshake(new Request(`${url()}?hub.mode=subscribe&hub.verify_token=let-me-in&hub.challenge=1158201444`), String(accountId));
    expect([ok.status, await ok.text()]).toEqual([200, "1158201444"]);
    const wrong = await webhookHandshake(new Request(`${url()}?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1`), String(accountId));
    expect(wrong.status).toBe(403);
    expect((await webhookHandshake(new Request(url()), "999999")).status).toBe(404);
  });

  it("refuses unsigned and wrongly signed calls with 401 and keeps nothing", async () => {
    const from = nextCustomer();
    const body = whatsappBody(meta.phoneNumberId, { messages: [waText(from, "hello")] });
    const before = await eventCount();
    expect((await call(body, { secret: null })).status).toBe(401);
    expect((await call(body, { secret: "not-the-app-secret" })).status).toBe(401);
    // the signature of another body does not cover this one
    const signed = meta.webhookRequest(url(), whatsappBody(meta.phoneNumberId, { messages: [waText(from, "other")] }));
    const tampered = new Request(url(), { method: "POST", headers: signed.headers, body: JSON.stringify(body) });
    expect((await webhookCall(tampered, String(accountId))).status).toBe(401);
    expect(await eventCount()).toBe(before);
  });

  it("refuses a call over 1 MB unread", async () => {
    const huge = whatsappBody(meta.phoneNumberId, { messages: [waText(nextCustomer(), "x".repeat(1_100_000))] });
    expect((await call(huge)).status).toBe(413);
  });

  it("a signed message becomes a conversation with the customer's name and number; the next one joins it", async () => {
    const from = nextCustomer();
    const response = await call(
      whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Siti ‮Rahman\u200b")], messages: [waText(from, "Is my order shipped?")] }),
    );
    expect(response.status).toBe(200);
    await runJobs();
    const [ticket] = await ticketsOf(from);
    expect(ticket).toMatchObject({
      channel: "WHATSAPP",
      kind: "ticket",
      title: "Is my order shipped?",
      contactPhone: `+${from}`,
      customerId: from,
      departmentId: 2,
    });
    // zero-width characters are dropped, the rest of the name is kept as written, its right-to-left override closed at its end
    expect(ticket.contactName).toBe("Siti ‮Rahman\u202c");
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Siti")], messages: [waText(from, "Order 5521")] }));
    await runJobs();
    expect(await ticketsOf(from)).toHaveLength(1);
    expect((await messagesOf(ticket.id)).map((m) => m.body)).toEqual(["Is my order shipped?", "Order 5521"]);
  });

  it("an agent's reaction to the customer's message goes out as WhatsApp's reaction message; taking it back sends an empty emoji", async () => {
    const from = nextCustomer();
    const incoming = waText(from, "Thank you!");
    await call(whatsappBody(meta.phoneNumberId, { messages: [incoming] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const [message] = await messagesOf(ticket.id);
    await toggleReaction(agent, ticket, message.id, "🙏");
    await runJobs();
    await toggleReaction(agent, ticket, message.id, "🙏");
    await runJobs();
    const reactions = meta.sent.filter((s) => s.to === from && s.type === "reaction").map((s) => s.body.reaction);
    expect(reactions).toEqual([
      { message_id: incoming.id, emoji: "🙏" },
      { message_id: incoming.id, emoji: "" },
    ]);
  });

  it("processes every message of a batch, and a redelivery (whole or re-batched) adds nothing", async () => {
    const a = nextCustomer();
    const b = nextCustomer();
    const first = waText(a, "one");
    const second = waText(a, "two");
    const third = waText(b, "three");
    const batch = {
      object: "whatsapp_business_account",
      entry: [
        whatsappBody(meta.phoneNumberId, { contacts: [waContact(a, "A")], messages: [first, second] }).entry[0],
        whatsappBody(meta.phoneNumberId, { contacts: [waContact(b, "B")], messages: [third] }).entry[0],
      ],
    };
    expect((await call(batch)).status).toBe(200);
    expect((await call(batch)).status).toBe(200);
    expect((await call(whatsappBody(meta.phoneNumberId, { messages: [second] }))).status).toBe(200);
    await runJobs();
    const [ta, ...more] = await ticketsOf(a);
    expect(more).toEqual([]);
    const [tb] = await ticketsOf(b);
    // both, once each (their order within one call is not kept yet when jobs run side by side: noted in ADR 046)
    expect((await messagesOf(ta.id)).map((m) => m.body).sort()).toEqual(["one", "two"]);
    expect((await messagesOf(tb.id)).map((m) => m.body)).toEqual(["three"]);
  });

  it("keeps an unreadable signed call and an unknown change for inspection, without a conversation", async () => {
    expect((await call("{not json")).status).toBe(200);
    expect(
      (await call({ object: "whatsapp_business_account", entry: [{ id: "1", changes: [{ field: "account_update", value: { event: "x" } }] }] })).status,
    ).toBe(200);
    await runJobs();
    const { db, schema } = t.handle;
    const kept = await db
      .select()
      .from(schema.inboundEvents)
      .where(and(eq(schema.inboundEvents.accountId, accountId), inArray(schema.inboundEvents.state, ["quarantined"])));
    expect(kept.map((e) => e.error)).toEqual(expect.arrayContaining([expect.stringContaining("unreadable"), expect.stringContaining('"account_update"')]));
  });

  it("a photo whose download fails: the agent sees the message at once, marked, and the photo comes onto that same message", async () => {
    const from = nextCustomer();
    const bytes = Buffer.from("\x89PNG fake image bytes");
    const mediaId = meta.addMedia(bytes, "image/png");
    meta.failMediaDownloads(1);
    const photo = {
      from,
      id: `wamid.photo${from}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "image",
      image: { id: mediaId, mime_type: "image/png", caption: "My receipt" },
    };
    const delivery = whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Photo")], messages: [photo] });
    await call(delivery);
    // first try (now, before any retry is due): the download fails; the text is written all the same, marked as waiting for its file
    await createJobWorker({ log: () => undefined }).runOnce();
    const [ticket] = await ticketsOf(from);
    const [written] = await messagesOf(ticket.id);
    expect(written).toMatchObject({ body: "My receipt", fileKey: null, fileState: "pending" });
    const seen = await decorateMessages(ticket, [written]);
    expect(seen.map((m) => [m.body, m.file, m.fileState])).toEqual([["My receipt", null, "pending"]]);

    // the retry downloads it: the photo is set on that same message, the mark goes
    await runJobs();
    const after = await messagesOf(ticket.id);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      id: written.id,
      body: "My receipt",
      type: "image",
      fileType: "image/png",
      fileName: "image.png",
      fileSize: bytes.length,
      fileState: null,
    });
    expect(Buffer.from(await new Response(await fileStorage().get(after[0].fileKey!)).arrayBuffer())).toEqual(bytes);

    // the provider delivers the event again and the media job is run again (a restart): nothing doubles
    await call(delivery);
    const { db, schema } = t.handle;
    await db
      .update(schema.jobs)
      .set({ state: "queued", runAt: 0 })
      .where(eq(schema.jobs.key, `media:${written.id}`));
    await runJobs();
    expect((await messagesOf(ticket.id)).map((m) => [m.id, m.fileKey])).toEqual([[written.id, after[0].fileKey]]);
  });

  it("a photo that never downloads: the message and the customer's next one arrive at once, and the mark says so once the retries are over", async () => {
    const from = nextCustomer();
    const mediaId = meta.addMedia(Buffer.from("\x89PNG never fetched"), "image/png");
    meta.failMediaDownloads(1_000);
    const photo = {
      from,
      id: `wamid.lost${from}`,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "image",
      image: { id: mediaId, mime_type: "image/png", caption: "" },
    };
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Unlucky")], messages: [photo] }));
    await call(whatsappBody(meta.phoneNumberId, { messages: [waText(from, "Did you get it?")] }));
    // the first pass writes both: the photo's message (no caption) marked, then the next one
    await worker().runOnce();
    const [ticket] = await ticketsOf(from);
    const row = async () => (await messagesOf(ticket.id)).map((m) => [m.body, m.fileKey, m.fileState]);
    expect(await row()).toEqual([
      ["", null, "pending"],
      ["Did you get it?", null, null],
    ]);
    // the retries, each later than the last one's backoff; after the last, the mark says it could not be downloaded
    for (let i = 0; i < 11; i++) await worker().runOnce();
    expect(await row()).toEqual([
      ["", null, "failed"],
      ["Did you get it?", null, null],
    ]);
    meta.failMediaDownloads(0);
  });

  it("sends the agent's reply and file; receipts move it to delivered and read, never back", async () => {
    const from = nextCustomer();
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Ali")], messages: [waText(from, "Hi")] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const key = await fileStorage().put(Buffer.from("%PDF-1.4 invoice"));
    // the agent's reply with the stored file (what the reply form writes once its upload is stored)
    const created = await reply(agent, ticket, { body: "Here is your invoice.", files: [{ key, name: "invoice.pdf", type: "application/pdf", size: 16 }] });
    await runJobs();
    const out = meta.sent.filter((s) => s.to === from);
    expect(out.map((s) => s.type)).toEqual(["text", "document"]);
    expect(out[0].body).toMatchObject({ text: { body: "Here is your invoice." } });
    expect(out[1].body).toMatchObject({ document: { filename: "invoice.pdf" } });
    expect(meta.uploads.at(-1)).toMatchObject({ name: "invoice.pdf", type: "application/pdf" });
    const ids = created.map((m) => m.id);
    const states = async () => (await messagesOf(ticket.id)).filter((m) => ids.includes(m.id)).map((m) => m.deliveryState);
    expect(await states()).toEqual(["sent", "sent"]);

    // read arrives before delivered (out of order), and "sent" again after both
    await call(whatsappBody(meta.phoneNumberId, { statuses: [waStatus(out[0].id, "read", from)] }));
    await call(whatsappBody(meta.phoneNumberId, { statuses: [waStatus(out[0].id, "delivered", from), waStatus(out[1].id, "delivered", from)] }));
    await call(whatsappBody(meta.phoneNumberId, { statuses: [waStatus(out[0].id, "sent", from)] }));
    await runJobs();
    expect(await states()).toEqual(["read", "delivered"]);
  });

  it("shows the provider's words when it refuses, and waits when it rate-limits", async () => {
    const from = nextCustomer();
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Mei")], messages: [waText(from, "Hello?")] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);

    meta.failSends(1, 400, 131056, "(#131056) (Business Account, Consumer Account) pair rate limit hit");
    const limited = await sendReply(agent, ticket, { fields: { message: "One moment" }, files: [], fileErrors: [] });
    if (!limited.ok) throw new Error(limited.message);
    await worker().runOnce();
    const [waiting] = (await messagesOf(ticket.id)).filter((m) => m.id === limited.created[0].id);
    expect(waiting).toMatchObject({ deliveryState: "waiting", deliveryError: expect.stringContaining("pair rate limit") });
    const { db, schema } = t.handle;
    const [job] = await db
      .select()
      .from(schema.jobs)
      .where(eq(schema.jobs.key, `send:${limited.created[0].id}`));
    // no attempt used up by waiting
    expect(job).toMatchObject({ state: "queued", attempts: 0 });

    await db.delete(schema.jobs);
    meta.failSends(1, 400, 131026, "(#131026) Message undeliverable");
    const refused = await sendReply(agent, ticket, { fields: { message: "Are you there?" }, files: [], fileErrors: [] });
    if (!refused.ok) throw new Error(refused.message);
    await worker().runOnce();
    const [failed] = (await messagesOf(ticket.id)).filter((m) => m.id === refused.created[0].id);
    expect(failed).toMatchObject({ deliveryState: "failed", deliveryError: "(#131026) Message undeliverable" });
  });

  it("a reply whose second part is rate-limited sends only that part again, once the wait is over", async () => {
    const from = nextCustomer();
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Two parts")], messages: [waText(from, "Send the form please")] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const key = await fileStorage().put(Buffer.from("%PDF-1.4 form"));
    meta.failSends(1, 400, 131056, "(#131056) (Business Account, Consumer Account) pair rate limit hit", 1);
    const created = await reply(agent, ticket, { body: "Here is the form.", files: [{ key, name: "form.pdf", type: "application/pdf", size: 13 }] });
    await worker().runOnce();
    const states = async () => (await messagesOf(ticket.id)).filter((m) => created.some((c) => c.id === m.id)).map((m) => m.deliveryState);
    // the text went out and stays sent while the file waits
    expect(await states()).toEqual(["sent", "waiting"]);
    await runJobs();
    expect(await states()).toEqual(["sent", "sent"]);
    expect(meta.sent.filter((s) => s.to === from).map((s) => s.type)).toEqual(["text", "document"]);
  });

  it("a failure receipt is not undone by a late 'sent'; a receipt for a message sent elsewhere is set aside", async () => {
    const from = nextCustomer();
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Late")], messages: [waText(from, "Hi")] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const [created] = await reply(agent, ticket, { body: "Hello!", files: [] });
    await runJobs();
    const wamid = meta.sent.find((s) => s.to === from)!.id;
    await call(
      whatsappBody(meta.phoneNumberId, {
        statuses: [waStatus(wamid, "failed", from, [{ code: 131049, title: "Not delivered to maintain healthy ecosystem engagement" }])],
      }),
    );
    await runJobs();
    await call(whatsappBody(meta.phoneNumberId, { statuses: [waStatus(wamid, "sent", from)] }));
    await runJobs();
    const [message] = (await messagesOf(ticket.id)).filter((m) => m.id === created.id);
    expect(message).toMatchObject({ deliveryState: "failed", deliveryError: "(#131049) Not delivered to maintain healthy ecosystem engagement" });

    // a status for a message another tool sent from this number, still unknown ten minutes on
    await call(whatsappBody(meta.phoneNumberId, { statuses: [waStatus("wamid.elsewhere", "delivered", from)] }));
    const { db, schema } = t.handle;
    const e = schema.inboundEvents;
    await db
      .update(e)
      .set({ receivedAt: Date.now() - 11 * 60_000 })
      .where(eq(e.eventKey, "status:wamid.elsewhere:delivered"));
    await runJobs();
    const [event] = await db.select().from(e).where(eq(e.eventKey, "status:wamid.elsewhere:delivered"));
    expect(event).toMatchObject({ state: "quarantined", error: expect.stringContaining("not sent from here") });
  });

  it("an account id that is not one answers 404 without a query", async () => {
    for (const id of ["abc", "1.5", "99999999999", ""]) expect((await webhookCall(meta.webhookRequest(url(), {}), id)).status).toBe(404);
  });

  it("outside the 24-hour window free text is refused before sending, with the reason", async () => {
    const from = nextCustomer();
    const old = { ...waText(from, "Long ago"), timestamp: String(Math.floor(Date.now() / 1000) - 30 * 3600) };
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Old")], messages: [old] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const sentBefore = meta.sent.length;
    const result = await sendReply(agent, ticket, { fields: { message: "Sorry for the wait" }, files: [], fileErrors: [] });
    if (!result.ok) throw new Error(result.message);
    await runJobs();
    const [message] = (await messagesOf(ticket.id)).filter((m) => m.id === result.created[0].id);
    expect(message).toMatchObject({ deliveryState: "failed", deliveryError: "plugin_whatsapp.delivery.windowClosed" });
    expect(meta.sent.length).toBe(sentBefore);
  });

  /** A conversation whose customer last wrote `hours` ago. */
  const conversationFrom = async (hours: number, name = "Late") => {
    const from = nextCustomer();
    const message = { ...waText(from, "Hello?"), timestamp: String(Math.floor(Date.now() / 1000) - hours * 3600) };
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, name)], messages: [message] }));
    await runJobs();
    return (await ticketsOf(from))[0];
  };

  it("outside the window the reply box says so and leads to the templates; inside it says nothing", async () => {
    const late = await conversationFrom(30);
    expect(await adapter.composerHint!({ ...late })).toEqual({
      notice: "plugin_whatsapp.delivery.windowClosed",
      link: { href: `/whatsapp/template/${late.ticketNumber}`, label: "plugin_whatsapp.template.open" },
    });
    const fresh = await conversationFrom(1);
    expect(await adapter.composerHint!({ ...fresh })).toBeNull();
  });

  it("offers the approved templates an agent can fill: not those needing a picture, a code or a catalog, not those awaiting approval", async () => {
    const late = await conversationFrom(30);
    const found = await templateConversation(agent, late.ticketNumber);
    expect(found.error).toBeNull();
    expect(found.templates.map((x) => `${x.name}:${x.language}:${x.params}`)).toEqual([
      "follow_up:en_US:0",
      "order_update:en_US:2",
      "order_update:ms:2",
      "rate_us:en_US:0",
    ]);
    expect(found.templates[1]).toMatchObject({ header: "Your order", footer: "Reply STOP to opt out" });
  });

  it("a template goes out as the template with its values; the conversation shows what the customer reads", async () => {
    const late = await conversationFrom(30, "Aiko");
    const outcome = await sendTemplate(agent, late.ticketNumber, { template: "order_update:en_US", v1: "Aiko", v2: "#A-42" });
    expect(outcome).toMatchObject({ ok: true });
    await runJobs();
    const mine = (await messagesOf(late.id)).filter((m) => m.senderUserId === agent.id);
    expect(mine).toMatchObject([{ body: "Hello Aiko, your order #A-42 has shipped.", deliveryState: "sent" }]);
    const last = meta.sent.at(-1)!;
    expect(last).toMatchObject({ to: late.customerId, type: "template" });
    expect(last.body.template).toEqual({
      name: "order_update",
      language: { code: "en_US" },
      components: [
        {
          type: "body",
          parameters: [
            { type: "text", text: "Aiko" },
            { type: "text", text: "#A-42" },
          ],
        },
      ],
    });
    // free text afterwards is still refused until the customer writes again
    const text = await sendReply(agent, late, { fields: { message: "Anything else?" }, files: [], fileErrors: [] });
    if (!text.ok) throw new Error(text.message);
    await runJobs();
    expect((await messagesOf(late.id)).at(-1)).toMatchObject({ deliveryState: "failed", deliveryError: "plugin_whatsapp.delivery.windowClosed" });
  });

  it("refuses an unknown template and values WhatsApp would refuse, writing nothing", async () => {
    const late = await conversationFrom(30);
    const before = (await messagesOf(late.id)).length;
    expect(await sendTemplate(agent, late.ticketNumber, { template: "promo:en_US", v1: "x" })).toEqual({
      ok: false,
      errors: { template: "plugin_whatsapp.template.choose" },
    });
    expect(await sendTemplate(agent, late.ticketNumber, { template: "order_update:ms", v1: " ", v2: "two\nlines" })).toEqual({
      ok: false,
      errors: { v1: "plugin_whatsapp.template.valueRequired", v2: "plugin_whatsapp.template.valueBad" },
    });
    expect(await sendTemplate(agent, late.ticketNumber, { template: "order_update:ms", v1: "a     b", v2: "x".repeat(1025) })).toEqual({
      ok: false,
      errors: { v1: "plugin_whatsapp.template.valueBad", v2: "plugin_whatsapp.template.valueLong" },
    });
    expect((await messagesOf(late.id)).length).toBe(before);
  });

  it("a template WhatsApp no longer knows fails with WhatsApp's words", async () => {
    const late = await conversationFrom(30);
    // listed a moment ago (the list is kept five minutes), then deleted at Meta: the send is refused
    await templateConversation(agent, late.ticketNumber);
    const { schema } = t.handle;
    const created = await reply(agent, late, {
      body: "Gone",
      files: [],
      attach: (tx, [m]) =>
        tx
          .insert(schema.whatsappTemplateMessages)
          .values({ messageId: m.id, name: "deleted_one", language: "en_US", params: "[]" })
          .then(() => undefined),
    });
    await runJobs();
    expect((await messagesOf(late.id)).find((m) => m.id === created[0].id)).toMatchObject({
      deliveryState: "failed",
      deliveryError: expect.stringContaining("Template name does not exist"),
    });
  });

  it("a file WhatsApp would refuse is refused before anything is sent", async () => {
    const from = nextCustomer();
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Big")], messages: [waText(from, "Send me the video")] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const key = await fileStorage().put(Buffer.from("tiny"));
    const sentBefore = meta.sent.length;
    const created = await reply(agent, ticket, { body: "Here it is", files: [{ key, name: "demo.mp4", type: "video/mp4", size: 40 * 1024 * 1024 }] });
    await runJobs();
    const states = (await messagesOf(ticket.id)).filter((m) => created.some((c) => c.id === m.id));
    expect(states.map((m) => m.deliveryState)).toEqual(["failed", "failed"]);
    expect(states[1].deliveryError).toBe("plugin_whatsapp.delivery.fileSize: demo.mp4 (40 MB > 16 MB)");
    expect(meta.sent.length).toBe(sentBefore);
  });

  it("two numbers of one Meta app share a webhook URL: each message reaches its number's account; another app's number is set aside", async () => {
    const secondId = await saveAccount({
      kind: "WHATSAPP",
      name: "WhatsApp sales",
      address: "+15550199",
      departmentId: 2,
      config: { phoneNumberId: "5550199", apiBase: meta.apiBase },
      secrets: { accessToken: meta.accessToken, appSecret: meta.appSecret, verifyToken: "let-me-in" },
    });
    const strangerId = await saveAccount({
      kind: "WHATSAPP",
      name: "Other app",
      address: "+15550177",
      departmentId: 2,
      config: { phoneNumberId: "5550177", apiBase: meta.apiBase },
      secrets: { accessToken: meta.accessToken, appSecret: "another app's secret", verifyToken: "x" },
    });
    const [a, b] = [nextCustomer(), nextCustomer()];
    // both calls go to the first account's URL, signed with the app's secret
    await call(whatsappBody("5550199", { contacts: [waContact(a, "Sales lead")], messages: [waText(a, "Price list please")] }));
    await call(whatsappBody("5550177", { contacts: [waContact(b, "Stray")], messages: [waText(b, "Hello?")] }));
    await runJobs();
    const { db, schema } = t.handle;
    const [sales] = await db.select().from(schema.tickets).where(eq(schema.tickets.customerId, a));
    expect(sales).toMatchObject({ channelAccountId: secondId, title: "Price list please" });
    expect(await db.select().from(schema.tickets).where(eq(schema.tickets.customerId, b))).toEqual([]);
    const stray = (await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.accountId, accountId))).filter((e) =>
      JSON.stringify(e.payload).includes(b),
    );
    expect(stray).toMatchObject([{ state: "quarantined", error: expect.stringContaining("5550177") }]);
    expect(strangerId).toBeGreaterThan(0);
  });

  it("a tapped button or list row and a template's quick reply arrive as the customer's choice", async () => {
    const from = nextCustomer();
    const interactive = (kind: "button_reply" | "list_reply", id: string, title: string) => ({
      ...waText(from, ""),
      type: "interactive",
      text: undefined,
      interactive: { type: kind, [kind]: { id, title, ...(kind === "list_reply" ? { description: "Delivered in 3 days" } : {}) } },
    });
    const quickReply = { ...waText(from, ""), type: "button", text: undefined, button: { payload: "STOP_PROMOS", text: "Stop promotions" } };
    await call(
      whatsappBody(meta.phoneNumberId, {
        contacts: [waContact(from, "Chooser")],
        messages: [interactive("button_reply", "yes-1", "Yes, please")],
      }),
    );
    await runJobs();
    await call(whatsappBody(meta.phoneNumberId, { messages: [interactive("list_reply", "ship-std", "Standard shipping")] }));
    await runJobs();
    await call(whatsappBody(meta.phoneNumberId, { messages: [quickReply] }));
    await runJobs();
    const [ticket, ...more] = await ticketsOf(from);
    expect(more).toEqual([]);
    expect((await messagesOf(ticket.id)).map((m) => m.body)).toEqual(["Yes, please", "Standard shipping", "Stop promotions"]);
  });

  it("a message after the conversation was resolved reopens it within the account's window, else starts a new one", async () => {
    const { db, schema } = t.handle;
    const HOUR = 3_600_000;
    const resolvedAgo = async (ticketId: number, ms: number) =>
      db
        .update(schema.tickets)
        .set({ status: 2, updatedAt: Date.now() - ms })
        .where(eq(schema.tickets.id, ticketId));
    const write = async (from: string, text: string) => {
      await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Returning")], messages: [waText(from, text)] }));
      await runJobs();
      return ticketsOf(from);
    };
    // the default window, 24 hours
    const a = nextCustomer();
    const [first] = await write(a, "Where is my parcel?");
    await resolvedAgo(first.id, 23 * HOUR);
    const reopened = await write(a, "It has still not come");
    expect(reopened.map((x) => x.id)).toEqual([first.id]);
    expect(reopened[0].status).toBe(0);
    await resolvedAgo(first.id, 25 * HOUR);
    const later = await write(a, "New question");
    expect(later).toHaveLength(2);
    const fresh = later.find((x) => x.id !== first.id)!;
    expect((await messagesOf(fresh.id)).map((m) => m.body)).toEqual(["New question"]);
    const texts = async (ticketId: number) => (await messagesOf(ticketId)).filter((m) => m.type === "text").map((m) => m.body);
    expect(await texts(first.id)).toEqual(["Where is my parcel?", "It has still not come"]);

    // an admin's window of 2 hours
    const [row] = await db.select().from(schema.channelAccounts).where(eq(schema.channelAccounts.id, accountId));
    const config = row.config;
    await db
      .update(schema.channelAccounts)
      .set({ config: JSON.stringify({ ...JSON.parse(config), reopenHours: "2" }) })
      .where(eq(schema.channelAccounts.id, accountId));
    try {
      const b = nextCustomer();
      const [own] = await write(b, "Hello");
      await resolvedAgo(own.id, 1.5 * HOUR);
      expect((await write(b, "Me again")).map((x) => x.id)).toEqual([own.id]);
      await resolvedAgo(own.id, 3 * HOUR);
      expect(await write(b, "And again")).toHaveLength(2);
    } finally {
      await db.update(schema.channelAccounts).set({ config }).where(eq(schema.channelAccounts.id, accountId));
    }
  });

  it("a WhatsApp that answers 500 for an hour: the send backs off, stays queued with the reason, and goes out once when it recovers", async () => {
    const from = nextCustomer();
    await call(whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Patient")], messages: [waText(from, "Anyone?")] }));
    await runJobs();
    const [ticket] = await ticketsOf(from);
    const MINUTE = 60_000;
    let clock = Date.now();
    const w = createJobWorker({ log: () => undefined, now: () => clock });
    const { db, schema } = t.handle;
    meta.failSends(1_000_000, 500, 2, "Service temporarily unavailable");
    const sent = await sendReply(agent, ticket, { fields: { message: "Yes, we are here" }, files: [], fileErrors: [] });
    if (!sent.ok) throw new Error(sent.message);
    const messageId = sent.created[0].id;
    const job = async () =>
      (
        await db
          .select()
          .from(schema.jobs)
          .where(eq(schema.jobs.key, `send:${messageId}`))
      )[0];
    const message = async () => (await messagesOf(ticket.id)).find((m) => m.id === messageId)!;
    // a pass every minute through the hour of 500s
    const start = clock;
    for (; clock < start + 60 * MINUTE; clock += MINUTE) await w.runOnce();
    // backed off (tries at 0, 1, 3, 7, 15 and 31 minutes), not given up, the customer has nothing yet
    expect(await job()).toMatchObject({ state: "queued", attempts: 6 });
    expect(await message()).toMatchObject({ deliveryState: "queued", deliveryError: expect.stringContaining("Service temporarily unavailable") });
    expect(meta.sent.filter((s) => s.to === from)).toEqual([]);
    // WhatsApp is back: the next try (63 minutes) sends it, once
    meta.failSends(0, 0, 0, "");
    for (; clock < start + 120 * MINUTE; clock += MINUTE) await w.runOnce();
    expect(meta.sent.filter((s) => s.to === from).map((s) => s.body)).toMatchObject([{ text: { body: "Yes, we are here" } }]);
    expect(await job()).toMatchObject({ state: "done", attempts: 7 });
    expect(await message()).toMatchObject({ deliveryState: "sent" });
  });

  it("the Test button reaches the number, and reports a wrong token in Meta's words", async () => {
    const account = (await loadAccount(accountId))!;
    expect(await adapter.test(account)).toEqual({ ok: true });
    expect(await adapter.test({ ...account, secrets: { ...account.secrets, accessToken: "wrong" } })).toEqual({
      ok: false,
      error: expect.stringContaining("Invalid OAuth access token"),
    });
  });
});
