// A provider's "too many" pauses the whole channel account: one 429 (Twilio 20429 with Retry-After,
// from its stand-in) keeps every other queued send of that account from asking the provider until
// the pause ends, without using their attempts; another account goes on sending; the pause is in
// the database (a new worker, as after a restart, keeps to it); afterwards each message goes once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, like } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createJobWorker, isWaitAndRetry } from "~/jobs/queue.server";
import { isRateLimited, MAX_PAUSE_MS } from "@plugins/channels/rate-limit.server";
import { graphFailure } from "@plugins/meta/graph.server";
import { telegramFailure } from "@plugins/telegram/api.server";
import { xFailure } from "@plugins/x/api.server";
import { reply, type TicketRow } from "~/conversation/model.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { defineInboundJob } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { webhookCall } from "@plugins/channels/webhook.server";
import { loader as accountLoader } from "@plugins/channels/routes/settings.channel";
import { loader as listLoader } from "@plugins/channels/routes/settings.channels";

describe.each(DIALECTS)("a provider's rate limit pauses its account (%s)", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let adminCookie: string;
  let standinA: TwilioStandin;
  let standinB: TwilioStandin;
  let a: ChannelAccount;
  let b: ChannelAccount;
  /** The workers' clock, moved on by the test. */
  let offset = 0;
  const jump = (ms: number) => void (offset += ms);
  /** One job at a time, so which send meets the 429 first is known; a new worker each pass, as after a restart. */
  const drain = async () => {
    for (let i = 0; i < 20 && (await createJobWorker({ now: () => Date.now() + offset, log: () => undefined, concurrency: 1 }).runOnce()) > 0; i++);
  };

  const twilioAccount = async (name: string, standin: TwilioStandin) => {
    const id = await saveAccount({
      kind: "SMS",
      name,
      address: standin.numbers[0],
      departmentId: 2,
      config: { gateway: "twilio", accountSid: standin.accountSid, apiBase: standin.apiBase, webhookUrl: "" },
      secrets: { authToken: standin.authToken },
    });
    return (await loadAccount(id))!;
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    const admin = (await findUserByUsername("admin"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    defineInboundJob();
    defineOutboundJob();
    standinA = await startTwilioStandin({ numbers: ["+15005550006"] });
    standinB = await startTwilioStandin({ numbers: ["+15005550007"] });
    a = await twilioAccount("Busy number", standinA);
    b = await twilioAccount("Quiet number", standinB);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([standinA?.close(), standinB?.close()]);
    await t?.cleanup();
  });

  /** A customer's signed SMS through the webhook door, processed: their conversation. */
  const customerWrites = async (account: ChannelAccount, standin: TwilioStandin, from: string) => {
    const url = `http://desk.local/hooks/channels/${account.id}`;
    const call = standin.call(url, standin.incoming({ from, body: "Hello" }));
    expect((await webhookCall(new Request(url, { method: "POST", headers: call.headers, body: call.body }), String(account.id))).status).toBe(200);
    await drain();
    const { db, schema } = t.handle;
    const [ticket] = await db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, account.id), eq(schema.tickets.customerId, from)));
    return ticket as TicketRow;
  };
  const states = async (ids: number[]) => {
    const { db, schema } = t.handle;
    const rows = await db.select().from(schema.messages).where(inArray(schema.messages.id, ids)).orderBy(schema.messages.id);
    return rows.map((r) => ({ state: r.deliveryState, error: r.deliveryError }));
  };
  const sendJobs = async (messageIds: number[]) => {
    const { db, schema } = t.handle;
    const rows = await db.select().from(schema.jobs).where(like(schema.jobs.key, "send:%"));
    return rows.filter((r) => messageIds.some((id) => JSON.parse(r.payload).messageIds?.includes(id)));
  };
  const pageOf = async (account: ChannelAccount) => {
    const response = (await accountLoader({
      request: new Request(`http://localhost/settings/channels/${account.id}`, { headers: { Cookie: adminCookie } }),
      params: { id: String(account.id) },
      context: { cspNonce: "", clientIp: "203.0.113.9" },
    } as never)) as Response;
    return (await response.json()) as { account: { pausedUntil: number | null }; timeZone: string };
  };

  it("one 429 defers the account's other sends without using their attempts, while another account sends; then each goes once", async () => {
    const busy = [];
    for (const from of ["+60123450001", "+60123450002", "+60123450003"]) busy.push(await customerWrites(a, standinA, from));
    const quiet = await customerWrites(b, standinB, "+60123450009");
    expect((await pageOf(a)).account.pausedUntil).toBeNull();

    standinA.throttle(1, 120);
    const replies = [];
    for (const [i, ticket] of busy.entries()) replies.push((await reply(agent, ticket, { body: `Answer ${i + 1}`, files: [] }))[0].id);
    const [other] = await reply(agent, quiet, { body: "Answer on the other number", files: [] });
    const asked = () => standinA.requests.filter((r) => r.includes("/Messages.json")).length;
    const askedBefore = asked();
    await drain();

    // the provider was asked once; the two other sends of that account did not ask at all
    expect(asked() - askedBefore).toBe(1);
    expect(standinA.sent).toHaveLength(0);
    expect(await states(replies)).toEqual([
      { state: "waiting", error: "Twilio 20429: Too Many Requests" },
      { state: "waiting", error: "rate-limited" },
      { state: "waiting", error: "rate-limited" },
    ]);
    // the other account was not held up
    expect(standinB.sent.map((s) => s.body)).toEqual(["Answer on the other number"]);
    expect(await states([other.id])).toEqual([{ state: "sent", error: null }]);
    // waiting is not trying: no attempt used
    const waiting = await sendJobs(replies);
    expect(waiting.map((j) => [j.state, j.attempts])).toEqual([
      ["queued", 0],
      ["queued", 0],
      ["queued", 0],
    ]);
    // the admin's account page says until when (the stand-in's Retry-After: 120 s)
    const page = await pageOf(a);
    expect(page.account.pausedUntil! - Date.now()).toBeGreaterThan(100_000);
    expect(page.account.pausedUntil! - Date.now()).toBeLessThanOrEqual(120_000);
    expect((await pageOf(b)).account.pausedUntil).toBeNull();
    // and the list of accounts too, for that account only
    const listed = (await (
      (await listLoader({
        request: new Request("http://localhost/settings/channels", { headers: { Cookie: adminCookie } }),
        params: {},
        context: { cspNonce: "", clientIp: "203.0.113.9" },
      } as never)) as Response
    ).json()) as { accounts: { id: number; pausedUntil: number | null }[] };
    expect(listed.accounts.find((x) => x.id === a.id)?.pausedUntil).toBe(page.account.pausedUntil);
    expect(listed.accounts.find((x) => x.id === b.id)?.pausedUntil).toBeNull();

    // a minute on, a fresh worker (a restart, another node): a new reply of the paused account, in
    // another conversation, waits too (the customer's message still comes in)
    jump(60_000);
    const fourth = await customerWrites(a, standinA, "+60123450004");
    const [later] = await reply(agent, fourth, { body: "One more thing", files: [] });
    await drain();
    expect(asked() - askedBefore).toBe(1);
    expect(await states([later.id])).toEqual([{ state: "waiting", error: "rate-limited" }]);

    // after the pause, everything goes, once each
    jump(61_000);
    await drain();
    expect(standinA.sent.map((s) => s.body).sort()).toEqual(["Answer 1", "Answer 2", "Answer 3", "One more thing"]);
    expect(await states([...replies, later.id])).toEqual(Array(4).fill({ state: "sent", error: null }));
    expect((await sendJobs([...replies, later.id])).map((j) => [j.state, j.attempts])).toEqual(Array(4).fill(["done", 1]));
    jump(10 * 60_000);
    await drain();
    expect(standinA.sent).toHaveLength(4);
  });
});

describe("which provider answers pause the whole account", () => {
  const graph = (status: number, code: number, headers: Record<string, string> = {}) =>
    graphFailure(new Response(JSON.stringify({ error: { message: `(#${code}) limit`, code } }), { status, headers }));

  it("Meta's account and throughput limits (130429, 80007, HTTP 429) pause it, for Retry-After; the per-customer pair limit only waits", async () => {
    const throughput = await graph(400, 130429, { "retry-after": "30" });
    expect(isRateLimited(throughput) && throughput.delayMs).toBe(30_000);
    expect(isRateLimited(await graph(400, 80007))).toBe(true);
    expect(isRateLimited(await graph(429, 0))).toBe(true);
    const pair = await graph(400, 131056);
    expect([isWaitAndRetry(pair), isRateLimited(pair)]).toEqual([true, false]);
  });

  it("Telegram's retry_after and X's x-rate-limit-reset pause it, at most an hour", () => {
    const tg = telegramFailure(
      Object.assign(new Error("x"), { error_code: 429, description: "Too Many Requests: retry after 9000", parameters: { retry_after: 9000 } }),
    );
    expect(isRateLimited(tg) && tg.delayMs).toBe(MAX_PAUSE_MS);
    const reset = Math.floor(Date.now() / 1000) + 120;
    const x = xFailure({ type: "response", code: 429, data: { title: "Too Many Requests" }, headers: { "x-rate-limit-reset": String(reset) } });
    expect(isRateLimited(x) && x.delayMs).toBeGreaterThan(100_000);
  });
});
