// The SMS channel on both dialects, in both gateway dialects: Twilio's Messages API against its
// local stand-in (tests/support/twilio-standin.ts) and the plain signed webhook against a tiny
// gateway of the test's own. Webhooks go through the channel layer's real door (webhookCall), here
// behind a small HTTP bridge so the stand-in posts to a real URL (status callbacks, and the MMS
// files Twilio fetches from us); inbound and send jobs run on the real job worker.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createJobWorker, isPermanentFailure, isWaitAndRetry, type WaitAndRetry } from "~/jobs/queue.server";
import { reply, type TicketRow } from "~/conversation/model.server";
import { fileStorage } from "~/storage.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { webhookCall } from "@plugins/channels/webhook.server";
import { adapter } from "@plugins/sms/adapter.server";
import { gatewaySignature } from "@plugins/sms/gateway.server";
import { twilioSignature } from "@plugins/sms/twilio.server";
import { loader as mediaLoader } from "@plugins/sms/routes/media";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-sms-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

describe("Twilio's request signature", () => {
  it("matches the example in Twilio's documentation", () => {
    const params = { CallSid: "CA1234567890ABCDE", Caller: "+14158675310", Digits: "1234", From: "+14158675310", To: "+18005551212" };
    expect(twilioSignature("12345", "https://mycompany.com/myapp.php?foo=1&bar=2", Object.entries(params))).toBe("GvWf1cFY/Q7PnoempGyD5oXAezc=");
  });
});

/** A port nothing listens on. */
async function closedPort() {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The product's webhook door and MMS file links behind a real HTTP address. */
async function startBridge() {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers.set(k, v);
    const hook = /^\/hooks\/channels\/(\d+)$/.exec(url.pathname);
    const media = /^\/hooks\/sms\/media\/([^/]+)$/.exec(url.pathname);
    let answer: Response;
    if (req.method === "POST" && hook) answer = await webhookCall(new Request(url, { method: "POST", headers, body: Buffer.concat(chunks) }), hook[1]);
    else if (req.method === "GET" && media)
      answer = await mediaLoader({ request: new Request(url), params: { token: media[1] }, context: {} } as unknown as LoaderFunctionArgs);
    else answer = new Response("Not Found", { status: 404 });
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

/** A plain SMS gateway: records what it is sent (signature checked as the protocol says), answers as told. */
async function startGateway(secret: string) {
  const received: { body: Record<string, unknown>; signed: boolean }[] = [];
  let next: { status: number; body: unknown; headers?: Record<string, string> }[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const timestamp = String(req.headers["x-timestamp"] ?? "");
    const signed = req.headers["x-signature"] === gatewaySignature(secret, timestamp, raw) && Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
    received.push({ body: JSON.parse(raw.toString("utf8")), signed });
    const answer = next.shift() ?? { status: 200, body: { id: `gw-${received.length}` } };
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`,
    received,
    answer: (...answers: typeof next) => void (next = answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(DIALECTS)("SMS (%s)", (dialect) => {
  let t: TestDb;
  let twilio: TwilioStandin;
  let bridge: Awaited<ReturnType<typeof startBridge>>;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let tw: ChannelAccount;
  let gw: ChannelAccount;
  let agent: UserRow;
  let offset = 0;
  const secret = "a-shared-secret-of-32-characters";
  const worker = () => createJobWorker({ now: () => Date.now() + offset, log: () => undefined });
  /** Runs every due job (inbound and sends) until none is left. */
  const drain = async () => {
    for (let i = 0; i < 20 && (await worker().runOnce()) > 0; i++);
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    defineInboundJob();
    defineOutboundJob();
    twilio = await startTwilioStandin({ numbers: ["+15005550006", "+14155550100"] });
    bridge = await startBridge();
    gateway = await startGateway(secret);
    const twInput = {
      kind: "SMS" as const,
      name: "Twilio",
      address: twilio.numbers[0],
      departmentId: 2,
      config: { gateway: "twilio", accountSid: twilio.accountSid, apiBase: twilio.apiBase },
      secrets: { authToken: twilio.authToken },
    };
    const twId = await saveAccount(twInput);
    await saveAccount({ ...twInput, config: { ...twInput.config, webhookUrl: `${bridge.url}/hooks/channels/${twId}` } }, twId);
    tw = (await loadAccount(twId))!;
    const gwId = await saveAccount({
      kind: "SMS",
      name: "Gateway",
      address: "+60198765432",
      departmentId: 2,
      config: { gateway: "webhook", sendUrl: gateway.url, webhookUrl: "" },
      secrets: { sharedSecret: secret },
    });
    gw = (await loadAccount(gwId))!;
  });
  afterAll(async () => {
    await Promise.all([twilio?.close(), bridge?.close(), gateway?.close()]);
    await t?.cleanup();
  });
  beforeEach(() => {
    offset = 0;
  });

  const hookUrl = (account: ChannelAccount) => `${bridge.url}/hooks/channels/${account.id}`;
  const events = async (account: ChannelAccount) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.accountId, account.id)).orderBy(schema.inboundEvents.id);
  };
  const ticketsOf = async (account: ChannelAccount, customerId: string) => {
    const { db, schema } = t.handle;
    const x = schema.tickets;
    return db
      .select()
      .from(x)
      .where(and(eq(x.channelAccountId, account.id), eq(x.customerId, customerId)));
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(schema.messages.id);
  };
  const stateOf = async (messageId: number) => {
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.messages).where(eq(schema.messages.id, messageId));
    return { state: row.deliveryState, error: row.deliveryError };
  };
  /** A customer's SMS into a conversation of `account` (Twilio), processed: the conversation. */
  const customerWrites = async (from: string, body = "Hello") => {
    const response = await twilio.post(hookUrl(tw), twilio.incoming({ from, body }));
    expect(response.status).toBe(200);
    await drain();
    const [ticket] = await ticketsOf(tw, from);
    return ticket as TicketRow;
  };
  const agentReplies = (ticket: TicketRow, body: string, files: { key: string; name: string; type: string; size: number }[] = []) =>
    reply(agent, ticket, { body, files });

  describe("Twilio", () => {
    it("makes a signed incoming SMS a conversation of the number, answered with empty TwiML", async () => {
      const params = twilio.incoming({ from: "+60123456789", body: "Is my order shipped? 📦" });
      const response = await twilio.post(hookUrl(tw), params);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/xml/);
      expect(await response.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
      const [event] = await events(tw);
      expect(event).toMatchObject({ provider: "SMS", eventKey: `${tw.id}:msg:${params.MessageSid}`, state: "received" });
      await drain();
      const [ticket] = await ticketsOf(tw, "+60123456789");
      expect(ticket).toMatchObject({ channel: "SMS", kind: "ticket", contactName: "+60123456789", contactPhone: "+60123456789", departmentId: 2 });
      expect((await messagesOf(ticket.id)).map((m) => [m.body, m.senderName])).toEqual([["Is my order shipped? 📦", "+60123456789"]]);
      expect((await events(tw)).map((e) => e.state)).toEqual(["processed"]);
    });

    it("refuses unsigned, wrongly signed and re-addressed calls with 401 and keeps nothing", async () => {
      const before = (await events(tw)).length;
      const params = twilio.incoming({ from: "+60123456780", body: "forged" });
      const call = twilio.call(hookUrl(tw), params);
      const unsigned = await fetch(hookUrl(tw), { method: "POST", headers: { "Content-Type": call.headers["Content-Type"] }, body: call.body });
      expect(unsigned.status).toBe(401);
      const wrong = await fetch(hookUrl(tw), {
        method: "POST",
        headers: { ...call.headers, "X-Twilio-Signature": twilioSignature("not-the-token", hookUrl(tw), Object.entries(params)) },
        body: call.body,
      });
      expect(wrong.status).toBe(401);
      // signed for another URL, or with the body changed after signing
      const elsewhere = twilio.call(`${bridge.url}/hooks/channels/999`, params);
      expect((await fetch(hookUrl(tw), { method: "POST", headers: elsewhere.headers, body: elsewhere.body })).status).toBe(401);
      const tampered = call.body.replace("forged", "tampered");
      expect((await fetch(hookUrl(tw), { method: "POST", headers: call.headers, body: tampered })).status).toBe(401);
      expect(await events(tw)).toHaveLength(before);
      expect(await ticketsOf(tw, "+60123456780")).toEqual([]);
    });

    it("checks the URL Twilio signed behind a proxy: X-Forwarded-Proto/Host, or the account's public webhook URL", async () => {
      const id = await saveAccount({
        kind: "SMS",
        name: "Behind a proxy",
        address: twilio.numbers[1],
        departmentId: null,
        config: { gateway: "twilio", accountSid: twilio.accountSid, apiBase: twilio.apiBase },
        secrets: { authToken: twilio.authToken },
      });
      const params = twilio.incoming({ from: "+61412345678", to: twilio.numbers[1], body: "via proxy" });
      const signed = twilio.call(`https://desk.example.com/hooks/channels/${id}`, params);
      const inside = `http://10.0.0.5:3000/hooks/channels/${id}`;
      const send = (headers: Record<string, string>) =>
        webhookCall(new Request(inside, { method: "POST", headers: { ...signed.headers, ...headers }, body: signed.body }), String(id));
      expect((await send({})).status).toBe(401);
      expect((await send({ "X-Forwarded-Proto": "https", "X-Forwarded-Host": "desk.example.com" })).status).toBe(200);
      // the default port written out is the same URL
      const withPort = twilio.call(`https://desk.example.com:443/hooks/channels/${id}`, { ...params, MessageSid: "SMwithport" });
      const again = await webhookCall(
        new Request(inside, {
          method: "POST",
          headers: { ...withPort.headers, "X-Forwarded-Proto": "https", "X-Forwarded-Host": "desk.example.com" },
          body: withPort.body,
        }),
        String(id),
      );
      expect(again.status).toBe(200);
      // once the admin gives the public URL, only that one is signed for
      const account = (await loadAccount(id))!;
      await saveAccount({ ...account, kind: "SMS", config: { ...account.config, webhookUrl: "https://sms.example.org/hooks/in" }, secrets: {} }, id);
      const other = { ...params, MessageSid: "SMother" };
      const proxied = twilio.call(`https://desk.example.com/hooks/channels/${id}`, other);
      expect(
        (
          await webhookCall(
            new Request(inside, {
              method: "POST",
              headers: { ...proxied.headers, "X-Forwarded-Proto": "https", "X-Forwarded-Host": "desk.example.com" },
              body: proxied.body,
            }),
            String(id),
          )
        ).status,
      ).toBe(401);
      const configured = twilio.call("https://sms.example.org/hooks/in", other);
      expect((await webhookCall(new Request(inside, { method: "POST", headers: configured.headers, body: configured.body }), String(id))).status).toBe(200);
    });

    it("makes a redelivered SMS no second message", async () => {
      const params = twilio.incoming({ from: "+6591234567", body: "only once" });
      for (let i = 0; i < 3; i++) expect((await twilio.post(hookUrl(tw), params)).status).toBe(200);
      await drain();
      const [ticket, more] = await ticketsOf(tw, "+6591234567");
      expect(more).toBeUndefined();
      expect((await messagesOf(ticket.id)).map((m) => m.body)).toEqual(["only once"]);
      expect((await events(tw)).filter((e) => e.eventKey.endsWith(params.MessageSid))).toHaveLength(1);
    });

    it("downloads an MMS's files with the account's credentials; after a failed download the text is there at once and the file follows onto it", async () => {
      twilio.failMedia(1);
      const params = twilio.incoming({ from: "+601112345678", body: "photo of the damage", media: [{ bytes: PNG, contentType: "image/png" }] });
      expect((await twilio.post(hookUrl(tw), params)).status).toBe(200);
      await drain();
      // the first download answered 500: the text is written at once, marked as waiting for its file
      const [event] = (await events(tw)).filter((e) => e.eventKey.endsWith(params.MessageSid));
      expect(event.state).toBe("processed");
      const [ticket] = await ticketsOf(tw, "+601112345678");
      expect((await messagesOf(ticket.id)).map((m) => [m.type, m.body, m.fileType, m.fileState])).toEqual([["text", "photo of the damage", null, "pending"]]);
      offset = 5 * 60_000;
      await drain();
      // the retry: the file on that same message
      const messages = await messagesOf(ticket.id);
      expect(messages.map((m) => [m.type, m.body, m.fileName, m.fileType, m.fileState])).toEqual([
        ["image", "photo of the damage", "media-1.png", "image/png", null],
      ]);
      const stored = await new Response(await fileStorage().get(messages[0].fileKey!)).arrayBuffer();
      expect(Buffer.from(stored).equals(PNG)).toBe(true);
    });

    it("sends an agent's text and file (MMS fetched from a signed link of ours); status callbacks only move forward", async () => {
      const ticket = await customerWrites("+60123456781");
      const key = await fileStorage().put(PNG);
      const [text, image] = await agentReplies(ticket, "Here is your label.", [{ key, name: "label.png", type: "image/png", size: PNG.length }]);
      await drain();
      const sent = twilio.sent.slice(-2);
      expect(sent.map((s) => [s.to, s.from, s.body, s.statusCallback])).toEqual([
        ["+60123456781", tw.address, "Here is your label.", hookUrl(tw)],
        ["+60123456781", tw.address, "", hookUrl(tw)],
      ]);
      expect(sent[1].media).toHaveLength(1);
      expect(sent[1].media[0].url).toMatch(new RegExp(`^${bridge.url}/hooks/sms/media/${tw.id}\\.${image.id}\\.\\d+\\.[0-9a-f]{64}$`));
      expect(sent[1].media[0].contentType).toBe("image/png");
      expect(sent[1].media[0].disposition).toContain("label.png");
      expect(sent[1].media[0].bytes.equals(PNG)).toBe(true);
      expect(await stateOf(text.id)).toEqual({ state: "sent", error: null });
      // a forged or altered link opens nothing
      const forged = sent[1].media[0].url.replace(/[0-9a-f]{4}$/, "0000");
      expect((await fetch(forged)).status).toBe(404);

      expect((await twilio.callback(sent[0].sid, "delivered")).status).toBe(200);
      await drain();
      expect(await stateOf(text.id)).toEqual({ state: "delivered", error: null });
      // late and out of order: "sent" after "delivered" changes nothing, nor does a failure
      expect((await twilio.callback(sent[0].sid, "sent")).status).toBe(200);
      expect((await twilio.callback(sent[0].sid, "undelivered", "30003")).status).toBe(200);
      await drain();
      expect(await stateOf(text.id)).toEqual({ state: "delivered", error: null });
      // "queued" and "sending" steps are not even stored
      const before = (await events(tw)).length;
      expect((await twilio.callback(sent[1].sid, "sending")).status).toBe(200);
      expect(await events(tw)).toHaveLength(before);
      // a failure of the MMS, in Twilio's words
      await twilio.callback(sent[1].sid, "undelivered", "30003");
      await drain();
      expect(await stateOf(image.id)).toEqual({ state: "failed", error: "Twilio 30003: Unreachable destination handset" });
    });

    it("refuses what an SMS cannot carry before sending, and shows Twilio's refusal in its words", async () => {
      const ticket = await customerWrites("+60123456782");
      const count = twilio.sent.length;
      const zip = await fileStorage().put(Buffer.from("PK\u0003\u0004"));
      const [withZip] = await agentReplies(ticket, "", [{ key: zip, name: "logs.zip", type: "application/zip", size: 4 }]);
      const [long] = await agentReplies(ticket, "x".repeat(1601));
      await drain();
      expect(await stateOf(withZip.id)).toEqual({ state: "failed", error: "plugin_sms.delivery.fileType: logs.zip (application/zip)" });
      expect(await stateOf(long.id)).toEqual({ state: "failed", error: "plugin_sms.delivery.tooLong: 1601 > 1600" });
      expect(twilio.sent).toHaveLength(count);

      twilio.refuseNextSend(400, 21610, "Attempt to send to unsubscribed recipient");
      const [refused] = await agentReplies(ticket, "Are you there?");
      await drain();
      expect(await stateOf(refused.id)).toEqual({ state: "failed", error: "Twilio 21610: Attempt to send to unsubscribed recipient" });
    });

    it("waits as long as Retry-After says on 429, and tries again after a 500 without sending twice", async () => {
      const ticket = await customerWrites("+60123456783");
      const [message] = await agentReplies(ticket, "Soon.");
      const outbound = { ticketId: ticket.id, messageIds: [message.id], to: [], cc: [] };
      twilio.throttle(1, 7);
      const waited = await adapter.send(outbound, tw).catch((e) => e);
      expect(isWaitAndRetry(waited)).toBe(true);
      expect((waited as WaitAndRetry).delayMs).toBe(7000);
      expect(waited.message).toBe("Twilio 20429: Too Many Requests");

      twilio.failServer(1);
      const count = twilio.sent.length;
      await drain();
      expect(await stateOf(message.id)).toMatchObject({ state: "queued", error: "Twilio 20500: Internal Server Error" });
      offset = 5 * 60_000;
      await drain();
      expect(await stateOf(message.id)).toEqual({ state: "sent", error: null });
      expect(twilio.sent.slice(count).map((s) => s.body)).toEqual(["Soon."]);
    });

    it("the Test button calls Twilio and says what is wrong", async () => {
      expect(await adapter.test(tw)).toEqual({ ok: true });
      expect(await adapter.test({ ...tw, secrets: { authToken: "wrong" } })).toEqual({ ok: false, error: "Twilio 20003: Authenticate" });
      expect(await adapter.test({ ...tw, config: { ...tw.config, apiBase: `http://127.0.0.1:${await closedPort()}` } })).toEqual({
        ok: false,
        error: "Twilio could not be reached: ECONNREFUSED",
      });
    });
  });

  describe("plain HTTP gateway", () => {
    const signedCall = (body: unknown, at = Date.now(), key = secret) => {
      const raw = JSON.stringify(body);
      const timestamp = String(Math.floor(at / 1000));
      return { "Content-Type": "application/json", "X-Timestamp": timestamp, "X-Signature": gatewaySignature(key, timestamp, raw), raw };
    };
    const post = (body: unknown, at?: number, key?: string) => {
      const { raw, ...headers } = signedCall(body, at, key);
      return webhookCall(new Request(`http://desk.local/hooks/channels/${gw.id}`, { method: "POST", headers, body: raw }), String(gw.id));
    };

    it("takes a signed batch whole, each message once, and refuses unsigned, wrongly signed and replayed calls", async () => {
      const batch = [
        { id: "in-1", from: "+60123450001", to: gw.address, text: "first", at: new Date().toISOString() },
        { id: "in-2", from: "+60123450002", to: gw.address, text: "second", at: Math.floor(Date.now() / 1000), name: "Siti\u200b 🌸" },
        { id: "in-3", from: "+60123450001", to: gw.address, text: "third" },
      ];
      const before = (await events(gw)).length;
      const raw = JSON.stringify(batch);
      const unsigned = await webhookCall(new Request(`http://desk.local/hooks/channels/${gw.id}`, { method: "POST", body: raw }), String(gw.id));
      expect(unsigned.status).toBe(401);
      expect((await post(batch, Date.now(), "another-secret-of-enough-length")).status).toBe(401);
      // a valid signature of a call made six minutes ago: a replay
      expect((await post(batch, Date.now() - 6 * 60_000)).status).toBe(401);
      expect(await events(gw)).toHaveLength(before);

      expect((await post(batch)).status).toBe(200);
      expect((await post([batch[2]])).status).toBe(200);
      await drain();
      const [one] = await ticketsOf(gw, "+60123450001");
      const [two] = await ticketsOf(gw, "+60123450002");
      // one customer's messages are written one at a time (never two conversations), not necessarily in batch order
      expect((await messagesOf(one.id)).map((m) => m.body).sort()).toEqual(["first", "third"]);
      expect(two).toMatchObject({ contactName: "Siti 🌸", contactPhone: "+60123450002" });
      expect((await events(gw)).slice(before).map((e) => e.state)).toEqual(["processed", "processed", "processed"]);
    });

    it("keeps a signed but unreadable call for inspection, without crashing", async () => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const raw = "{not json";
      const response = await webhookCall(
        new Request(`http://desk.local/hooks/channels/${gw.id}`, {
          method: "POST",
          headers: { "X-Timestamp": timestamp, "X-Signature": gatewaySignature(secret, timestamp, raw) },
          body: raw,
        }),
        String(gw.id),
      );
      expect(response.status).toBe(200);
      await drain();
      const last = (await events(gw)).at(-1)!;
      expect(last.eventKey).toMatch(/^unreadable:/);
      expect(last.state).toBe("quarantined");
    });

    it("sends signed JSON with its own id, keeps the gateway's id for receipts, and maps the gateway's answers", async () => {
      const { raw: _raw, ...headers } = signedCall([{ id: "in-9", from: "+60123450009", text: "hi" }]);
      void _raw;
      expect(
        (
          await webhookCall(
            new Request(`http://desk.local/hooks/channels/${gw.id}`, {
              method: "POST",
              headers,
              body: JSON.stringify([{ id: "in-9", from: "+60123450009", text: "hi" }]),
            }),
            String(gw.id),
          )
        ).status,
      ).toBe(200);
      await drain();
      const [ticket] = (await ticketsOf(gw, "+60123450009")) as TicketRow[];
      gateway.answer({ status: 202, body: { id: "gw-abc" } });
      const [message] = await agentReplies(ticket, "Thanks, noted.");
      await drain();
      const last = gateway.received.at(-1)!;
      expect(last.signed).toBe(true);
      expect(last.body).toMatchObject({ id: `omnidesk-${message.id}`, from: gw.address, to: "+60123450009", text: "Thanks, noted." });
      expect(await stateOf(message.id)).toEqual({ state: "sent", error: null });
      // the gateway's receipts name its own id
      expect((await post({ type: "status", id: "gw-abc", status: "delivered", at: new Date().toISOString() })).status).toBe(200);
      await drain();
      expect(await stateOf(message.id)).toEqual({ state: "delivered", error: null });

      const outbound = (id: number) => ({ ticketId: ticket.id, messageIds: [id], to: [], cc: [] });
      const [second] = await agentReplies(ticket, "One more thing.");
      gateway.answer({ status: 429, body: { error: "slow down" }, headers: { "retry-after": "3" } });
      const waited = await adapter.send(outbound(second.id), gw).catch((e) => e);
      expect(isWaitAndRetry(waited) && waited.delayMs).toBe(3000);
      gateway.answer({ status: 503, body: { message: "upstream busy" } });
      const busy = await adapter.send(outbound(second.id), gw).catch((e) => e);
      expect([busy.message, isPermanentFailure(busy), isWaitAndRetry(busy)]).toEqual(["upstream busy", false, false]);
      gateway.answer({ status: 422, body: { error: { message: "number is on the do-not-contact list" } } });
      const refused = await adapter.send(outbound(second.id), gw).catch((e) => e);
      expect([refused.message, isPermanentFailure(refused)]).toEqual(["number is on the do-not-contact list", true]);
      // the Test button pings the send URL, signed
      expect(await adapter.test(gw)).toEqual({ ok: true });
      expect(gateway.received.at(-1)).toMatchObject({ signed: true, body: { type: "ping" } });
      expect(await adapter.test({ ...gw, config: { ...gw.config, sendUrl: `http://127.0.0.1:${await closedPort()}/send` } })).toEqual({
        ok: false,
        error: "The gateway could not be reached: ECONNREFUSED",
      });
    });

    it("downloads a customer's files from the URLs the gateway gives", async () => {
      const files = http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "image/png" });
        res.end(PNG);
      });
      await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
      try {
        const url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/m/1`;
        expect((await post({ id: "in-media", from: "+60123450010", text: "", media: [{ url, type: "image/png", name: "receipt.png" }] })).status).toBe(200);
        await drain();
        const [ticket] = await ticketsOf(gw, "+60123450010");
        expect((await messagesOf(ticket.id)).map((m) => [m.type, m.fileName, m.fileSize])).toEqual([["image", "receipt.png", PNG.length]]);
      } finally {
        files.closeAllConnections();
        files.close();
      }
    });
  });

  describe("account settings", () => {
    it("asks each gateway for what it needs, keeping stored secrets", () => {
      const validate = adapter.validate!;
      expect(validate({ gateway: "twilio", accountSid: "nope" }, {}, [])).toEqual({
        accountSid: "plugin_sms.errors.accountSid",
        authToken: "plugin_channels.errors.required",
      });
      expect(validate({ gateway: "twilio", accountSid: twilio.accountSid }, {}, ["authToken"])).toEqual({});
      expect(validate({ gateway: "webhook" }, { sharedSecret: "short" }, [])).toEqual({
        sendUrl: "plugin_channels.errors.required",
        sharedSecret: "plugin_sms.errors.secretShort",
      });
      expect(validate({ gateway: "webhook", sendUrl: "https://gw.example/send" }, {}, ["sharedSecret"])).toEqual({});
    });
  });
});
