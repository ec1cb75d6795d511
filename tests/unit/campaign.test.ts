// Campaigns on both dialects against a real channel: the SMS adapter talking to the Twilio
// stand-in (tests/support/twilio-standin.ts), the customer's messages coming in through the
// channel layer's webhook door behind a small HTTP bridge, and every job (the campaign's sending,
// the outbound sends, the inbound messages) run by the real job worker.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createJobWorker } from "~/jobs/queue.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { webhookCall } from "@plugins/channels/webhook.server";
import { campaignDetail, listCampaigns, saveCampaign, setPaused, startCampaign } from "@plugins/campaign/campaign.server";
import { defineSendJob, fillTemplate } from "@plugins/campaign/send.server";
import { addManualOptOut, registerOptOutResponder } from "@plugins/campaign/optout.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-campaign-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The product's webhook door behind a real HTTP address, for the stand-in to post to. */
async function startBridge() {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers.set(k, v);
    const hook = /^\/hooks\/channels\/(\d+)$/.exec(url.pathname);
    const answer =
      req.method === "POST" && hook
        ? await webhookCall(new Request(url, { method: "POST", headers, body: Buffer.concat(chunks) }), hook[1])
        : new Response("Not Found", { status: 404 });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("a campaign's template", () => {
  it("fills in the contact's name and salutation, and tidies what an empty one leaves", () => {
    expect(fillTemplate("Hello {{salutation}} {{name}}, your offer is ready.", { name: "Aminah", salutation: "Puan" })).toBe(
      "Hello Puan Aminah, your offer is ready.",
    );
    expect(fillTemplate("Hello {{salutation}} {{ name }}, hi!", { name: "", salutation: "" })).toBe("Hello, hi!");
  });
});

describe.each(DIALECTS)("Campaigns (%s)", (dialect) => {
  let t: TestDb;
  let twilio: TwilioStandin;
  let bridge: Awaited<ReturnType<typeof startBridge>>;
  let sms: ChannelAccount;
  let admin: UserRow;
  let offset = 0;
  const timeZone = "Asia/Kuala_Lumpur";
  const clock = () => Date.now() + offset;
  const worker = () => createJobWorker({ now: clock, log: () => undefined });
  /** Runs every due job until none is left (a campaign waiting for its throttle does nothing in a pass: a few idle passes end it). */
  const drain = async () => {
    for (let i = 0, idle = 0; i < 500 && idle < 3; i++) idle = (await worker().runOnce()) > 0 ? 0 : idle + 1;
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    defineInboundJob();
    defineOutboundJob();
    defineSendJob({ now: clock });
    registerOptOutResponder();
    twilio = await startTwilioStandin({ numbers: ["+15005550006"] });
    bridge = await startBridge();
    const input = {
      kind: "SMS" as const,
      name: "Twilio",
      address: twilio.numbers[0],
      departmentId: 2,
      config: { gateway: "twilio", accountSid: twilio.accountSid, apiBase: twilio.apiBase },
      secrets: { authToken: twilio.authToken },
    };
    const id = await saveAccount(input);
    await saveAccount({ ...input, config: { ...input.config, webhookUrl: `${bridge.url}/hooks/channels/${id}` } }, id);
    sms = (await loadAccount(id))!;
  });
  afterAll(async () => {
    await Promise.all([twilio?.close(), bridge?.close()]);
    await t?.cleanup();
  });
  beforeEach(() => {
    offset = 0;
  });

  /** Contacts named `${tag}-N` with a phone each (+6012 and seven digits from `base`); their phones. */
  const addContacts = async (tag: string, n: number, base: number) => {
    const { db, schema } = t.handle;
    const phones: string[] = [];
    for (let i = 0; i < n; i++) {
      const phone = `+6012${String(base + i).padStart(7, "0")}`;
      const [c] = await db
        .insert(schema.contacts)
        .values({ uid: `${tag}${i}`, name: `${tag}-${i}`, salutation: "Encik", createdAt: Date.now(), updatedAt: Date.now() })
        .returning({ id: schema.contacts.id });
      await db.insert(schema.contactIdentities).values({ contactId: c.id, kind: "phone", value: phone });
      phones.push(phone);
    }
    return phones;
  };
  const fields = (tag: string, more: Partial<Record<string, string>> = {}) => ({
    name: `Offer ${tag}`,
    account: String(sms.id),
    template: "Hi {{salutation}} {{name}}, 20% off this week. Reply STOP to opt out.",
    perMinute: "1000",
    startsAt: "",
    audience: "search",
    query: `${tag}-`,
    ...more,
  });
  const create = async (tag: string, more: Partial<Record<string, string>> = {}) => {
    const saved = await saveCampaign(admin, fields(tag, more), timeZone);
    if (!saved.ok) throw new Error(JSON.stringify(saved.result));
    return saved.id;
  };
  const sentTo = (phones: string[]) => twilio.sent.filter((s) => phones.includes(s.to));
  const recipients = async (campaignId: number) => {
    const { db, schema } = t.handle;
    const r = schema.campaignRecipients;
    return db.select().from(r).where(eq(r.campaignId, campaignId)).orderBy(r.id);
  };

  it("sends 200 recipients once each although the worker is stopped halfway and started again", async () => {
    const phones = await addContacts("bulk", 200, 1_000_000);
    const id = await create("bulk");
    const started = await startCampaign(id, admin);
    expect(started).toMatchObject({ ok: true, recipients: 200 });
    expect((await campaignDetail(id))!.state).toBe("sending");

    const first = createJobWorker({ now: clock, log: () => undefined, pollMs: 5, concurrency: 4 }).start();
    for (let i = 0; i < 2000 && sentTo(phones).length < 60; i++) await new Promise((r) => setTimeout(r, 5));
    // the node goes down mid-campaign: its running jobs are given back, whatever they were doing
    await first.stop(Date.now());
    const atStop = sentTo(phones).length;
    expect(atStop).toBeGreaterThan(0);
    expect(atStop).toBeLessThan(200);

    await drain();
    const sent = sentTo(phones);
    expect(sent).toHaveLength(200);
    expect(new Set(sent.map((s) => s.to)).size).toBe(200);
    expect(sent.find((s) => s.to === phones[7])!.body).toBe("Hi Encik bulk-7, 20% off this week. Reply STOP to opt out.");
    const rows = await recipients(id);
    expect(rows.every((r) => r.state === "sent" && r.ticketId && r.messageId)).toBe(true);
    const { db, schema } = t.handle;
    const tickets = await db
      .select({ campaignId: schema.tickets.campaignId, channel: schema.tickets.channel, phone: schema.tickets.contactPhone })
      .from(schema.tickets)
      .where(
        inArray(
          schema.tickets.id,
          rows.map((r) => r.ticketId!),
        ),
      );
    expect(tickets).toHaveLength(200);
    expect(tickets.every((x) => x.campaignId === id && x.channel === "SMS")).toBe(true);
    const detail = (await campaignDetail(id))!;
    expect(detail.state).toBe("done");
    expect(detail.counts).toMatchObject({ total: 200, sent: 200, pending: 0, failed: 0, optedOut: 0 });
  }, 120_000);

  it("sends no more than its per-minute throttle, and pauses and resumes", async () => {
    const phones = await addContacts("slow", 12, 2_000_000);
    const id = await create("slow", { perMinute: "5" });
    expect((await startCampaign(id, admin)).ok).toBe(true);
    await drain();
    expect(sentTo(phones)).toHaveLength(5);
    offset = 30_000;
    await drain();
    expect(sentTo(phones)).toHaveLength(5);

    // paused: the next minute sends nobody; resumed: it goes on from where it stopped
    expect((await setPaused(id, true, admin)).ok).toBe(true);
    offset = 61_000;
    await drain();
    expect(sentTo(phones)).toHaveLength(5);
    expect((await campaignDetail(id))!.state).toBe("paused");
    expect((await setPaused(id, false, admin, clock())).ok).toBe(true);
    await drain();
    expect(sentTo(phones)).toHaveLength(10);
    offset = 125_000;
    await drain();
    expect(sentTo(phones)).toHaveLength(12);
    expect(new Set(sentTo(phones).map((s) => s.to)).size).toBe(12);
    expect((await campaignDetail(id))!).toMatchObject({ state: "done", counts: { sent: 12, pending: 0 } });
  }, 60_000);

  it("skips a customer who wrote STOP before the campaign reached them, and one an admin opted out; the others' answers land in the campaign's conversation", async () => {
    const phones = await addContacts("optout", 3, 3_000_000);
    // the first customer wrote STOP on the SMS number some time ago
    expect((await twilio.post(`${bridge.url}/hooks/channels/${sms.id}`, twilio.incoming({ from: phones[0], body: "Stop" }))).status).toBe(200);
    await drain();
    // the admin types the third one's number the local way
    expect(await addManualOptOut(`012-${phones[2].slice(5, 8)} ${phones[2].slice(8)}`)).toEqual({ ok: true, value: phones[2] });

    const id = await create("optout");
    expect((await startCampaign(id, admin)).ok).toBe(true);
    await drain();
    expect(sentTo(phones).map((s) => s.to)).toEqual([phones[1]]);
    const rows = await recipients(id);
    expect(rows.map((r) => [r.address, r.state])).toEqual([
      [phones[0], "opted_out"],
      [phones[1], "sent"],
      [phones[2], "opted_out"],
    ]);
    expect((await campaignDetail(id))!.counts).toMatchObject({ sent: 1, optedOut: 2, pending: 0 });

    // the customer answers: it joins the campaign's conversation, which carries the campaign's id
    expect((await twilio.post(`${bridge.url}/hooks/channels/${sms.id}`, twilio.incoming({ from: phones[1], body: "Yes please, book me in" }))).status).toBe(
      200,
    );
    await drain();
    const { db, schema } = t.handle;
    const ticketId = rows[1].ticketId!;
    const messages = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
    expect(messages.map((m) => m.body)).toEqual(["Hi Encik optout-1, 20% off this week. Reply STOP to opt out.", "Yes please, book me in"]);
    const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, ticketId));
    expect(ticket.campaignId).toBe(id);
    const mine = await db
      .select({ id: schema.tickets.id })
      .from(schema.tickets)
      .where(and(eq(schema.tickets.customerId, phones[1]), eq(schema.tickets.channelAccountId, sms.id)));
    expect(mine).toHaveLength(1);
  }, 60_000);

  it("refuses a campaign without a template, without an account or on WhatsApp, keeping what was typed", async () => {
    const typed = fields("refused", { template: "  " });
    const noTemplate = await saveCampaign(admin, typed, timeZone);
    expect(noTemplate).toMatchObject({ ok: false, status: 400, result: { errors: { template: "plugin_campaign.errors.templateRequired" }, values: typed } });

    const noAccount = await saveCampaign(admin, fields("refused", { account: "" }), timeZone);
    expect(noAccount).toMatchObject({ ok: false, result: { errors: { account: "plugin_campaign.errors.account" }, values: { name: "Offer refused" } } });

    const wa = await saveAccount({ kind: "WHATSAPP", name: "WA", address: "60312345678", departmentId: 2, config: { phoneNumberId: "1" }, secrets: {} });
    const onWhatsApp = await saveCampaign(admin, fields("refused", { account: String(wa) }), timeZone);
    expect(onWhatsApp).toMatchObject({ ok: false, result: { errors: { account: "plugin_campaign.errors.whatsappTemplate" } } });

    const badThrottle = await saveCampaign(admin, fields("refused", { perMinute: "0", startsAt: "2026-02-30T10:00" }), timeZone);
    expect(badThrottle).toMatchObject({
      ok: false,
      result: { errors: { perMinute: "plugin_campaign.errors.perMinute", startsAt: "plugin_campaign.errors.startsAt" } },
    });

    // nobody matches: starting is refused and the draft stays a draft
    const id = await create("nobody-matches-this");
    expect(await startCampaign(id, admin)).toMatchObject({ ok: false, result: { message: "plugin_campaign.errors.noRecipients" } });
    expect((await campaignDetail(id))!.state).toBe("draft");
  });

  it("lists campaigns newest first, 5 a page, with the total", async () => {
    const newest = await create("newest");
    const first = await listCampaigns({ page: 1 });
    expect(first.campaigns[0]).toMatchObject({ id: newest, state: "draft", counts: { total: 0 } });
    expect(first.campaigns).toHaveLength(5);
    expect(first.total).toBeGreaterThanOrEqual(4);
    const ids = first.campaigns.map((c) => c.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const bulk = first.campaigns.find((c) => c.name === "Offer bulk") ?? (await listCampaigns({ page: 2 })).campaigns.find((c) => c.name === "Offer bulk");
    expect(bulk).toMatchObject({ state: "done", accountName: "Twilio", kind: "SMS", counts: { sent: 200 } });
  });
});
