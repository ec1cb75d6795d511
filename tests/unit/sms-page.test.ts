// The /sms page's loader and action, called as Remix calls them with a signed-in user's session, on
// both dialects: single and bulk sends (each number's conversation joined or started, the text
// queued like a reply, sent through the Twilio stand-in by the real send job), refusals that keep
// what was typed with a reason per field, the user's access (accounts of their department, the
// conversations they may read), and a form sent twice sending once.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { createJobWorker } from "~/jobs/queue.server";
import { REQUEST_KEY_FIELD_NAME } from "~/request-key-field";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { defineInboundJob, storeWebhookEvents } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import { action, loader } from "@plugins/sms/routes/sms";
import { RECIPIENTS_MAX } from "@plugins/sms/limits";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-sms-page-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function call<T extends ActionFunctionArgs | LoaderFunctionArgs>(fn: (args: T) => unknown, request: Request, params: Record<string, string> = {}) {
  try {
    // a load context per request, as Remix gives (GET requests memoise the user on it)
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params } as T)) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const post = (cookie: string | undefined, fields: Record<string, string>) =>
  call(
    action,
    new Request("http://localhost/sms", {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...(cookie ? { Cookie: cookie } : {}) },
    }),
  );
const get = (cookie: string, url: string, splat?: string) =>
  call(loader, new Request(`http://localhost${url}`, { headers: { Cookie: cookie } }), splat === undefined ? {} : { "*": splat });

describe.each(DIALECTS)("the /sms page (%s)", (dialect) => {
  let t: TestDb;
  let twilio: TwilioStandin;
  let support: ChannelAccount;
  let shared: ChannelAccount;
  let agent: string;
  let agent2: string;
  let admin: string;
  const drain = async () => {
    for (let i = 0; i < 10 && (await createJobWorker({ log: () => undefined }).runOnce()) > 0; i++);
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    defineInboundJob();
    defineOutboundJob();
    twilio = await startTwilioStandin({ numbers: ["+15005550006", "+14155550100"] });
    const account = async (address: string, departmentId: number | null) =>
      (await loadAccount(
        await saveAccount({
          kind: "SMS",
          name: `Line ${address}`,
          address,
          departmentId,
          config: { gateway: "twilio", accountSid: twilio.accountSid, apiBase: twilio.apiBase },
          secrets: { authToken: twilio.authToken },
        }),
      ))!;
    // Support's line (department 2: the agent's) and a line of no department (everyone's)
    support = await account(twilio.numbers[0], 2);
    shared = await account(twilio.numbers[1], null);
    const cookieOf = async (userId: number) => sessionCookie().serialize((await createSession(userId)).token);
    [admin, agent, agent2] = await Promise.all([cookieOf(1), cookieOf(2), cookieOf(3)]);
  });
  afterAll(async () => {
    await twilio?.close();
    await t?.cleanup();
  });

  const messages = async (ids: number[]) => {
    const { db, schema } = t.handle;
    const m = schema.messages;
    const x = schema.tickets;
    return db
      .select({ id: m.id, body: m.body, state: m.deliveryState, senderUserId: m.senderUserId, ticketId: x.id, phone: x.contactPhone, channel: x.channel })
      .from(m)
      .innerJoin(x, eq(x.id, m.ticketId))
      .where(inArray(m.id, ids))
      .orderBy(m.id);
  };
  const sentIds = (response: Response) => {
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("Location")!, "http://localhost");
    expect(location.pathname).toBe("/sms/sent");
    return location.searchParams.get("m")!.split(",").map(Number);
  };

  it("sends logged-out visitors to the login form", async () => {
    const response = await post(undefined, { account: String(support.id), to: "+60123456789", message: "hi" });
    expect([response.status, response.headers.get("Location")]).toEqual([302, "/"]);
  });

  it("refuses bad input with a reason per field and keeps what was typed", async () => {
    const typed = { account: String(support.id), to: "+60123456789\n012-3456", message: "  " };
    const response = await post(agent, typed);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      errors: { to: "plugin_sms.errors.badNumber", message: "plugin_sms.errors.messageRequired" },
      values: typed,
      messageValues: { number: "012-3456" },
    });
    const empty = await (await post(agent, { account: "999", to: " \n ", message: "x".repeat(1601) })).json();
    expect(empty.errors).toEqual({ account: "plugin_sms.errors.account", to: "plugin_sms.errors.toRequired", message: "plugin_sms.errors.messageTooLong" });
    const many = Array.from({ length: RECIPIENTS_MAX + 1 }, (_, i) => `+6012${String(1000000 + i)}`).join("\n");
    const tooMany = await (await post(agent, { account: String(support.id), to: many, message: "Sale!" })).json();
    expect([tooMany.errors, tooMany.messageValues]).toEqual([{ to: "plugin_sms.errors.tooMany" }, { max: String(RECIPIENTS_MAX) }]);
    const { db, schema } = t.handle;
    expect(await db.select().from(schema.tickets).where(eq(schema.tickets.channel, "SMS"))).toEqual([]);
  });

  it("sends a bulk SMS: one conversation per number, queued like a reply, each recipient's state shown and moving", async () => {
    const response = await post(agent, {
      account: String(support.id),
      to: "+60123456789\n+60 12-345 6789, +60198765432;\n\n+61412345678",
      message: "Our office is closed on Friday.",
      [REQUEST_KEY_FIELD_NAME]: "bulk-1",
    });
    const ids = sentIds(response);
    // the same number written twice is sent to once
    const rows = await messages(ids);
    expect(rows.map((r) => [r.phone, r.body, r.state, r.senderUserId, r.channel])).toEqual([
      ["+60123456789", "Our office is closed on Friday.", "queued", 2, "SMS"],
      ["+60198765432", "Our office is closed on Friday.", "queued", 2, "SMS"],
      ["+61412345678", "Our office is closed on Friday.", "queued", 2, "SMS"],
    ]);
    const { db, schema } = t.handle;
    const tickets = await db
      .select()
      .from(schema.tickets)
      .where(
        inArray(
          schema.tickets.id,
          rows.map((r) => r.ticketId),
        ),
      );
    expect(tickets.every((x) => x.channelAccountId === support.id && x.customerId === x.contactPhone && x.departmentId === 2 && x.responded)).toBe(true);
    // the agent takes part in the conversations they started
    const people = await db.select().from(schema.participants).where(eq(schema.participants.userId, 2));
    expect(rows.every((r) => people.some((p) => p.ticketId === r.ticketId))).toBe(true);

    // the page of this send: each recipient queued, then sent once the send job ran
    const page = await (await get(agent, `/sms/sent?m=${ids.join(",")}`, "sent")).json();
    expect(page.sent.map((s: { phone: string; state: string }) => [s.phone, s.state])).toEqual([
      ["+60123456789", "queued"],
      ["+60198765432", "queued"],
      ["+61412345678", "queued"],
    ]);
    await drain();
    // the send jobs run side by side: in any order
    expect(twilio.sent.map((s) => [s.to, s.from, s.body]).sort()).toEqual([
      ["+60123456789", support.address, "Our office is closed on Friday."],
      ["+60198765432", support.address, "Our office is closed on Friday."],
      ["+61412345678", support.address, "Our office is closed on Friday."],
    ]);
    const after = await (await get(agent, `/sms/sent?m=${ids.join(",")}`, "sent")).json();
    expect(after.sent.map((s: { state: string }) => s.state)).toEqual(["sent", "sent", "sent"]);
    // and /sms lists the agent's latest
    const home = await (await get(agent, "/sms")).json();
    expect(home.sent).toBeNull();
    expect(home.recent.map((s: { messageId: number }) => s.messageId)).toEqual([...ids].reverse());
    expect(home.accounts.map((a: { id: number }) => a.id)).toEqual([support.id, shared.id]);

    // sent again with its key (a double click, a reload of the answer): the same result, nothing new
    const again = await post(agent, {
      account: String(support.id),
      to: "+60123456789\n+60 12-345 6789, +60198765432;\n\n+61412345678",
      message: "Our office is closed on Friday.",
      [REQUEST_KEY_FIELD_NAME]: "bulk-1",
    });
    expect(sentIds(again)).toEqual(ids);
    await drain();
    expect(twilio.sent).toHaveLength(3);
  });

  it("joins the customer's own conversation, and refuses one the agent may not read", async () => {
    // a customer wrote to the shared line first
    await storeWebhookEvents(shared.id, "SMS", [
      {
        key: `${shared.id}:msg:SMfirst`,
        payload: {
          gateway: "twilio",
          kind: "message",
          params: { MessageSid: "SMfirst", From: "+6591234567", To: shared.address, Body: "hello?" },
          at: Date.now(),
        },
      },
    ]);
    await drain();
    const { db, schema } = t.handle;
    const [theirs] = await db
      .select()
      .from(schema.tickets)
      .where(and(eq(schema.tickets.channelAccountId, shared.id), eq(schema.tickets.customerId, "+6591234567")));
    // of no department and without participants: only admins read it
    const denied = await post(agent, { account: String(shared.id), to: "+6591234567\n+60111111111", message: "Hi!" });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ errors: { to: "plugin_sms.errors.noAccess" }, messageValues: { numbers: "+6591234567" } });

    const [id] = sentIds(await post(admin, { account: String(shared.id), to: "+6591234567", message: "Hello, how can we help?" }));
    const [row] = await messages([id]);
    expect(row.ticketId).toBe(theirs.id);
    // the agent now reads it through the department it was given
    await db.update(schema.tickets).set({ departmentId: 2 }).where(eq(schema.tickets.id, theirs.id));
    const [joined] = sentIds(await post(agent, { account: String(shared.id), to: "+6591234567", message: "Following up." }));
    expect((await messages([joined]))[0].ticketId).toBe(theirs.id);
  });

  it("lets an agent send only from the lines of their department or of none", async () => {
    const page = await (await get(agent2, "/sms")).json();
    expect(page.accounts.map((a: { id: number }) => a.id)).toEqual([shared.id]);
    const refused = await post(agent2, { account: String(support.id), to: "+60123456789", message: "Hi" });
    expect(refused.status).toBe(400);
    expect((await refused.json()).errors).toEqual({ account: "plugin_sms.errors.account" });
    // what another agent sent is not shown to one who may not read it
    const others = await (await get(agent2, `/sms/sent?m=1,2,3`, "sent")).json();
    expect(others.sent).toEqual([]);
    expect((await get(agent2, "/sms/other", "other")).status).toBe(404);
  });
});
