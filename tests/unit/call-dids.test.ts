// DIDs, on both dialects: the /call_config DID form's validation (E.164, a queue, the ring timeout
// of 5 to 120 s with 20 by default, the greeting's length) with its messages in all five locales,
// the form posted without JavaScript (a refusal keeps what was typed), one DID per number, and the
// DID -> extensions lookup Kamailio asks over the DID hook (a department's agents and the agents
// named, only active accounts of users who are not disabled; 403 without the secret, 404 for a
// number that is no DID). Then the real thing (SQLite): Kamailio and rtpengine started here, the
// product's hooks and its voicemail answering, a call from the trunk (sipp on loopback) to a DID
// whose agent does not answer within the ring timeout goes to voicemail: the caller hears the
// greeting, speaks, hangs up, and the message is the call's recording on /voicemail.
import { spawnSync } from "node:child_process";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import type { AppLoadContext } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { saveSipAccount, sipHookSecret } from "@plugins/calls/sip.server";
import {
  DEFAULT_RING_TIMEOUT,
  MAX_SERIAL_RING_SECONDS,
  didForm,
  didHook,
  didOf,
  didTargets,
  listDids,
  roundRobinOrder,
  saveDid,
  deleteDid,
} from "@plugins/calls/dids.server";
import { listVoicemails } from "@plugins/calls/recording.server";
import { fileStorage } from "~/storage.server";
import { imcUsersApi } from "@plugins/calls/call-api.server";
import { recordAfterCallWork, recordCallEvent } from "@plugins/calls/calls.server";
import { startVoicemail, type VoicemailServer } from "@plugins/calls/voicemail.server";
import * as configRoute from "@plugins/calls/routes/call_config";
import * as authHook from "@plugins/calls/routes/hook.auth";
import * as eventHook from "@plugins/calls/routes/hook.event";
import * as didRoute from "@plugins/calls/routes/hook.did";
import { sipBinariesPresent, startSipServers, type SipServers } from "@plugins/calls/sip/servers";
import { fakePhone, register, type FakePhone } from "../support/sip-client";
import { sippPresent, spokenUlaw, tempDir, trunkCall } from "../support/trunk-call";

const LOCALES = ["en", "zh", "ms", "ja", "ko"];
const locale = (lang: string) => JSON.parse(fs.readFileSync(path.resolve(`plugins/calls/locales/${lang}.json`), "utf8"));
const text = (lang: string, key: string) => key.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], locale(lang));

type Fn = (args: { request: Request; context: AppLoadContext; params: Record<string, string> }) => unknown;
async function call(fn: Fn, request: Request) {
  try {
    return (await fn({ request, context: { clientIp: "192.0.2.10" } as unknown as AppLoadContext, params: {} })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const post = (url: string, cookie: string, body: URLSearchParams) =>
  new Request(`http://localhost${url}`, { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } });

describe("the DID form", () => {
  const errorOf = (values: Record<string, string>) => {
    const r = didForm.safeParse(values);
    return r.success ? null : Object.fromEntries(r.error.issues.map((i) => [String(i.path[0]), i.message]));
  };
  it("takes an E.164 number, a queue, a ring timeout (20 s when empty) and a greeting", () => {
    const ok = didForm.parse({ number: "+60 3-1234 5678", departmentId: "2", agentIds: "", ringTimeout: "", voicemail: "1", greeting: " Hello " });
    expect(ok).toEqual({
      number: "+60312345678",
      departmentId: 2,
      agentIds: [],
      ringTimeout: DEFAULT_RING_TIMEOUT,
      voicemail: true,
      greeting: "Hello",
      strategy: "ring_all",
    });
    expect(didForm.parse({ number: "+60312345678", departmentId: "2", strategy: "longest_idle" }).strategy).toBe("longest_idle");
    expect(DEFAULT_RING_TIMEOUT).toBe(20);
    expect(didForm.parse({ number: "0060312345678", agentIds: "2\n3", ringTimeout: "45" })).toMatchObject({
      number: "+60312345678",
      departmentId: null,
      agentIds: [2, 3],
      ringTimeout: 45,
      voicemail: false,
    });
  });
  it("refuses what is not a DID, no queue, a timeout out of range and a long greeting, with the spec's style of messages in five locales", () => {
    expect(errorOf({ number: "12345", departmentId: "1" })).toEqual({ number: "plugin_calls.errors.did" });
    expect(errorOf({ number: "+0312345678", departmentId: "1" })).toEqual({ number: "plugin_calls.errors.did" });
    expect(errorOf({ number: "", departmentId: "1" })).toEqual({ number: "plugin_calls.errors.did" });
    expect(errorOf({ number: "+60312345678" })).toEqual({ agentIds: "plugin_calls.errors.didQueue" });
    for (const ringTimeout of ["4", "121", "1.5", "abc", "-5"])
      expect(errorOf({ number: "+60312345678", departmentId: "1", ringTimeout })).toEqual({ ringTimeout: "plugin_calls.errors.ringTimeout" });
    expect(errorOf({ number: "+60312345678", departmentId: "1", greeting: "x".repeat(501) })).toEqual({ greeting: "plugin_calls.errors.greeting" });
    expect(errorOf({ number: "+60312345678", agentIds: "x" })).not.toBeNull();
    expect(errorOf({ number: "+60312345678", departmentId: "1", strategy: "random" })).toEqual({ strategy: "plugin_calls.errors.strategy" });
    for (const key of ["did", "didQueue", "ringTimeout", "greeting", "didTaken", "didGone", "didAgents", "strategy"])
      for (const lang of LOCALES) expect(text(lang, `plugin_calls.errors.${key}`), `${lang} ${key}`).toEqual(expect.any(String));
    expect(text("en", "plugin_calls.errors.did")).toBe("Please check the DID number: + and 7 to 15 digits.");
  });
  it("reads a DID as a trunk sends it", () => {
    expect(didOf("60312345678")).toBe("+60312345678");
    expect(didOf("+60312345678")).toBe("+60312345678");
    expect(didOf("0060312345678")).toBe("+60312345678");
    expect(didOf("1001")).toBeNull();
  });
  it("starts a round robin after the DID's last agent, wrapping round, also when that agent left the queue", () => {
    expect(roundRobinOrder(["3000", "3001", "3002"], "")).toEqual(["3000", "3001", "3002"]);
    expect(roundRobinOrder(["3000", "3001", "3002"], "3000")).toEqual(["3001", "3002", "3000"]);
    expect(roundRobinOrder(["3000", "3001", "3002"], "3002")).toEqual(["3000", "3001", "3002"]);
    expect(roundRobinOrder(["3000", "3002"], "3001")).toEqual(["3002", "3000"]);
    expect(roundRobinOrder([], "3001")).toEqual([]);
  });
});

describe.each(DIALECTS)("DIDs and whom they ring (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let agent2: UserRow;
  let adminCookie: string;
  const by = () => ({ actor: { id: admin.id, name: admin.username } });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!; // department 2 (Support)
    agent2 = (await findUserByUsername("agent2"))!; // department 1 (Sales)
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    await saveSipAccount({ userId: agent.id, sipNumber: "3001", password: "agent-sip-pass", active: true }, by());
    await saveSipAccount({ userId: agent2.id, sipNumber: "3002", password: "agent2-sip-pass", active: true }, by());
    await saveSipAccount({ userId: admin.id, sipNumber: "3000", password: "admin-sip-pass", active: false }, by());
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
  });

  it("saves DIDs, one per number, and names the extensions each rings", async () => {
    const support = await saveDid(null, didForm.parse({ number: "+60312345678", departmentId: "2", ringTimeout: "15", voicemail: "1", greeting: "Hi" }), by());
    expect(support.ok).toBe(true);
    // the department's agents and one named agent; the admin's account is switched off
    const mixed = await saveDid(null, didForm.parse({ number: "+60387654321", departmentId: "2", agentIds: `${agent2.id}\n${admin.id}` }), by());
    expect(mixed.ok).toBe(true);
    expect(await saveDid(null, didForm.parse({ number: "+60312345678", agentIds: String(agent.id) }), by())).toEqual({
      ok: false,
      errors: { number: "plugin_calls.errors.didTaken" },
    });
    expect(await saveDid(null, didForm.parse({ number: "+60311111111", agentIds: "999999" }), by())).toEqual({
      ok: false,
      errors: { agentIds: "plugin_calls.errors.didAgents" },
    });

    expect(await didTargets("60312345678")).toEqual({
      did: "+60312345678",
      departmentId: 2,
      strategy: "ring_all",
      extensions: ["3001"],
      ringTimeoutSeconds: 15,
      voicemail: true,
      greeting: "Hi",
    });
    expect((await didTargets("+60387654321"))?.extensions).toEqual(["3001", "3002"]);
    expect((await didTargets("+60387654321"))?.ringTimeoutSeconds).toBe(20);
    expect(await didTargets("+60399999999")).toBeNull();

    // a disabled user's extension is rung no more
    const { db, schema } = t.handle;
    await db.update(schema.users).set({ disabledAt: Date.now() }).where(eq(schema.users.id, agent2.id));
    expect((await didTargets("+60387654321"))?.extensions).toEqual(["3001"]);
    await db.update(schema.users).set({ disabledAt: null }).where(eq(schema.users.id, agent2.id));
    // nor the extension of an agent who is not Online (Away, a break, the admin's own status)
    for (const status of ["AWAY", "MEAL_BREAK", "Training"]) {
      await db.update(schema.users).set({ status }).where(eq(schema.users.id, agent2.id));
      expect((await didTargets("+60387654321"))?.extensions, status).toEqual(["3001"]);
    }
    await db.update(schema.users).set({ status: "ONLINE" }).where(eq(schema.users.id, agent2.id));
    expect((await didTargets("+60387654321"))?.extensions).toEqual(["3001", "3002"]);

    // an edit replaces the named agents
    await saveDid(mixed.ok ? mixed.id : 0, didForm.parse({ number: "+60387654321", agentIds: String(agent2.id), voicemail: "" }), by());
    expect(await didTargets("+60387654321")).toMatchObject({ extensions: ["3002"], voicemail: false, departmentId: null });
    const listed = await listDids();
    expect(listed.map((d) => [d.number, d.departmentName, d.agents])).toEqual([
      ["+60312345678", "Support", []],
      ["+60387654321", "", ["agent2"]],
    ]);
    // the JSON twin of the DID list (spec section 7: /api/proxy/imc_user)
    expect(await (await imcUsersApi()).json()).toEqual([
      { DIDnumber: "+60312345678", accountDescription: "Support" },
      { DIDnumber: "+60387654321", accountDescription: "agent2" },
    ]);
  });

  it("answers Kamailio's DID hook: 403 without the secret, 404 for no DID, the timeout, voicemail and extensions", async () => {
    expect(await didHook("wrong", "+60312345678")).toEqual({ status: 403, body: "forbidden" });
    expect(await didHook(sipHookSecret(), "+60399999999")).toEqual({ status: 404, body: "" });
    expect(await didHook(sipHookSecret(), "60312345678")).toEqual({ status: 200, body: "15;1;3001;all" });
    const response = await didRoute.action({
      request: new Request("http://127.0.0.1/hooks/sip/did", {
        method: "POST",
        body: "did=%2B60387654321",
        headers: { "X-Sip-Hook-Secret": sipHookSecret(), "Content-Type": "application/x-www-form-urlencoded" },
      }),
      context: {} as AppLoadContext,
      params: {},
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("20;0;3002;all");
  });

  it("keeps a call from the trunk as inbound on the DID; the agent who answers becomes its agent", async () => {
    const { db, schema } = t.handle;
    const ringing = await recordCallEvent({ event: "invite", call_id: `trunk-${dialect}`, from: "60123456789", to: "60312345678", source: "trunk" });
    expect(ringing).toMatchObject({ direction: "inbound", did: "+60312345678", fromNumber: "+60123456789", toNumber: "+60312345678", agentUserId: null });
    const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, ringing!.ticketId));
    expect(ticket.departmentId).toBe(2);
    const answered = await recordCallEvent({ event: "answer", call_id: `trunk-${dialect}`, agent: "3001" });
    expect(answered).toMatchObject({ state: "talking", agentUserId: agent.id });
    const people = await db.select().from(schema.participants).where(eq(schema.participants.ticketId, ringing!.ticketId));
    expect(people.map((p) => [p.userId, p.assignee])).toEqual([[agent.id, true]]);
    // a call the voicemail took ends with that cause, not as answered
    await recordCallEvent({ event: "invite", call_id: `vm-${dialect}`, from: "+60123456789", to: "+60312345678", source: "trunk" });
    await db
      .update(schema.calls)
      .set({ voicemail: true })
      .where(eq(schema.calls.sipCallId, `vm-${dialect}`));
    expect(await recordCallEvent({ event: "end", call_id: `vm-${dialect}`, code: 200 })).toMatchObject({ hangupCause: "voicemail", answeredAt: null });
  });

  it("rings a round robin DID's agents one at a time, each call starting after the last one tried or who answered", async () => {
    await saveSipAccount({ userId: admin.id, sipNumber: "3000", password: "admin-sip-pass", active: true }, by());
    const all = `${admin.id}\n${agent.id}\n${agent2.id}`;
    const rr = await saveDid(null, didForm.parse({ number: "+60322220000", agentIds: all, ringTimeout: "10", strategy: "round_robin" }), by());
    expect(rr.ok).toBe(true);
    // looking (the page) does not move it on; each call from the trunk does
    expect((await didTargets("+60322220000"))?.extensions).toEqual(["3000", "3001", "3002"]);
    expect((await didTargets("+60322220000"))?.strategy).toBe("round_robin");
    const hook = async () => (await didHook(sipHookSecret(), "+60322220000")).body;
    expect(await hook()).toBe("10;0;3000,3001,3002;serial");
    expect(await hook()).toBe("10;0;3001,3002,3000;serial");
    // the call that started with 3001 was answered by 3002: the next starts after 3002
    await recordCallEvent({ event: "invite", call_id: `rr-${dialect}`, from: "+60123456789", to: "+60322220000", source: "trunk" });
    await recordCallEvent({ event: "answer", call_id: `rr-${dialect}`, agent: "3002" });
    expect(await hook()).toBe("10;0;3000,3001,3002;serial");
    // two calls at once start with different agents
    const both = await Promise.all([hook(), hook()]);
    expect(both.map((b) => b.split(";")[2].split(",")[0]).sort()).toEqual(["3001", "3002"]);
    // one at a time for at most MAX_SERIAL_RING_SECONDS: at 120 s each, only the first two of three
    await saveDid(rr.ok ? rr.id : 0, didForm.parse({ number: "+60322220000", agentIds: all, ringTimeout: "120", strategy: "round_robin" }), by());
    expect(MAX_SERIAL_RING_SECONDS).toBe(300);
    expect((await hook()).split(";")[2].split(",")).toHaveLength(2);
    // ring all keeps every agent, all at once
    await saveDid(rr.ok ? rr.id : 0, didForm.parse({ number: "+60322220000", agentIds: all, ringTimeout: "120" }), by());
    expect(await hook()).toBe("120;0;3000,3001,3002;all");
  });

  it("rings a longest idle DID's agents from the one whose last call ended longest ago; after-call work counts, agents on a call go last", async () => {
    const now = Date.now() + 3_600_000;
    const s = (n: number) => now - n * 1000;
    // the calls the earlier tests left talking on 3001 and 3002 ended long ago
    await recordCallEvent({ event: "end", call_id: `trunk-${dialect}`, code: 200 }, s(900));
    await recordCallEvent({ event: "end", call_id: `rr-${dialect}`, code: 200 }, s(950));
    const all = `${admin.id}\n${agent.id}\n${agent2.id}`;
    expect((await saveDid(null, didForm.parse({ number: "+60322221111", agentIds: all, strategy: "longest_idle" }), by())).ok).toBe(true);
    const order = async () => (await didTargets("+60322221111", { now }))?.extensions;
    // 3000 never had a call, 3002's ended before 3001's
    expect(await order()).toEqual(["3000", "3002", "3001"]);
    // 3001 calls out and hangs up 40 s ago; 3002 answers a call from the trunk that ends 20 s ago
    await recordCallEvent({ event: "invite", call_id: `out-${dialect}`, from: "3001", to: "60111111111" }, s(100));
    await recordCallEvent({ event: "answer", call_id: `out-${dialect}` }, s(90));
    await recordCallEvent({ event: "end", call_id: `out-${dialect}`, code: 200, by: "3001" }, s(40));
    await recordCallEvent({ event: "invite", call_id: `in-${dialect}`, from: "+60123456789", to: "+60322221111", source: "trunk" }, s(80));
    await recordCallEvent({ event: "answer", call_id: `in-${dialect}`, agent: "3002" }, s(70));
    await recordCallEvent({ event: "end", call_id: `in-${dialect}`, code: 200 }, s(20));
    expect(await order()).toEqual(["3000", "3001", "3002"]);
    // 3001's after-call work (30 s, the workspace's acw_seconds) makes it idle only 10 s ago
    expect(await recordAfterCallWork(agent.id, `out-${dialect}`, 30)).toBe(true);
    expect(await order()).toEqual(["3000", "3002", "3001"]);
    // 3000 is calling out right now: last
    await recordCallEvent({ event: "invite", call_id: `busy-${dialect}`, from: "3000", to: "60199999999" }, s(5));
    expect(await order()).toEqual(["3002", "3001", "3000"]);
    expect((await didHook(sipHookSecret(), "+60322221111")).body).toMatch(/;serial$/);
  });

  it("adds, refuses and deletes DIDs on /call_config without JavaScript", async () => {
    const form = (values: Record<string, string | string[]>) => {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(values)) for (const one of [v].flat()) body.append(k, one);
      return body;
    };
    const refused = await call(
      configRoute.action as Fn,
      post("/call_config", adminCookie, form({ intent: "saveDid", number: "+60 35", ringTimeout: "200", greeting: "Hello", strategy: "longest_idle" })),
    );
    expect(refused.status).toBe(400);
    const data = (await refused.json()) as { intent: string; errors: Record<string, string>; values: Record<string, string> };
    expect(data.intent).toBe("saveDid");
    expect(data.errors).toEqual({
      number: "plugin_calls.errors.did",
      ringTimeout: "plugin_calls.errors.ringTimeout",
      agentIds: "plugin_calls.errors.didQueue",
    });
    expect(data.values).toMatchObject({ number: "+60 35", ringTimeout: "200", greeting: "Hello", strategy: "longest_idle" });

    const saved = await call(
      configRoute.action as Fn,
      post(
        "/call_config",
        adminCookie,
        form({ intent: "saveDid", number: "+60355550000", agentIds: [String(agent.id), String(agent2.id)], voicemail: "1", strategy: "round_robin" }),
      ),
    );
    expect(saved.status).toBe(302);
    expect(saved.headers.get("Location")).toBe("/call_config?didSaved=1#dids");
    const taken = await call(
      configRoute.action as Fn,
      post("/call_config", adminCookie, form({ intent: "saveDid", number: "+60355550000", departmentId: "1" })),
    );
    expect(taken.status).toBe(409);

    const page = await call(configRoute.loader as Fn, new Request("http://localhost/call_config", { headers: { Cookie: adminCookie } }));
    const loaded = (await page.json()) as {
      dids: { id: number; number: string; agents: string[]; ringTimeoutSeconds: number; ringStrategy: string }[];
      trunk: boolean;
    };
    const added = loaded.dids.find((d) => d.number === "+60355550000")!;
    expect(added).toMatchObject({ agents: ["agent", "agent2"], ringTimeoutSeconds: 20, ringStrategy: "round_robin" });
    expect(loaded.trunk).toBe(sipBinariesPresent());
    // without Kamailio installed the page says calls from a trunk are not configured
    const bin = process.env.KAMAILIO_BIN;
    process.env.KAMAILIO_BIN = "/nonexistent/kamailio";
    try {
      const bare = await call(configRoute.loader as Fn, new Request("http://localhost/call_config", { headers: { Cookie: adminCookie } }));
      expect(((await bare.json()) as { trunk: boolean }).trunk).toBe(false);
    } finally {
      if (bin === undefined) delete process.env.KAMAILIO_BIN;
      else process.env.KAMAILIO_BIN = bin;
    }

    const gone = await call(configRoute.action as Fn, post("/call_config", adminCookie, form({ intent: "deleteDid", id: String(added.id) })));
    expect(gone.status).toBe(302);
    expect(await didTargets("+60355550000")).toBeNull();
    expect(await deleteDid(added.id, by())).toBe(false);
  });
});

// the real call server and the real voicemail, answered from the test database
const present = sipBinariesPresent() && sippPresent();
if (!present && process.env.CI) throw new Error("CI must run the DID call tests: Kamailio, rtpengine and sipp (sip-tester) are needed");

describe.skipIf(!present)("a call from the trunk to a DID goes to voicemail when nobody answers", () => {
  let t: TestDb;
  let servers: SipServers;
  let voicemail: VoicemailServer;
  let hooks: http.Server;
  const work = tempDir();
  // the trunk's address (sipp's port) and the voicemail's, fixed so Kamailio's config names them
  const TRUNK_PORT = Number(process.env.TEST_TRUNK_PORT || 35460);
  const [RTP_MIN, RTP_MAX] = (process.env.TEST_RTP_PORTS || "35400-35449").split("-").map(Number);
  const phones: FakePhone[] = [];

  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0 });
    const admin = (await findUserByUsername("admin"))!;
    const agent = (await findUserByUsername("agent"))!;
    const by = { actor: { id: admin.id, name: "admin" } };
    await saveSipAccount({ userId: agent.id, sipNumber: "4001", password: "agent-sip-pass-1", active: true }, by);
    await saveDid(
      null,
      didForm.parse({ number: "+60312340000", agentIds: String(agent.id), ringTimeout: "5", voicemail: "1", greeting: "Please leave a message." }),
      by,
    );
    const routes: Record<string, Fn> = {
      "/hooks/sip/auth": authHook.action as Fn,
      "/hooks/sip/event": eventHook.action as Fn,
      "/hooks/sip/did": didRoute.action as Fn,
    };
    hooks = http.createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      const route = routes[req.url ?? ""];
      if (!route) return void res.writeHead(404).end();
      const response = (await route({
        request: new Request(`http://127.0.0.1${req.url}`, { method: "POST", body, headers: req.headers as Record<string, string> }),
        context: {} as AppLoadContext,
        params: {},
      })) as Response;
      res.writeHead(response.status, { "Content-Type": "text/plain" });
      res.end(await response.text());
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
    const port = (hooks.address() as { port: number }).port;
    voicemail = await startVoicemail({ host: "127.0.0.1", port: 0, maxSeconds: 30 });
    servers = await startSipServers({
      runDir: path.join(work, "sip"),
      authUrl: `http://127.0.0.1:${port}/hooks/sip/auth`,
      hookSecret: sipHookSecret(),
      trunk: `127.0.0.1:${TRUNK_PORT}`,
      voicemail: `127.0.0.1:${voicemail.port}`,
      rtpPortMin: RTP_MIN,
      rtpPortMax: RTP_MAX,
    });
  }, 60_000);
  afterAll(async () => {
    for (const phone of phones) phone.close();
    await servers?.stop();
    await voicemail?.stop();
    await new Promise((r) => hooks?.close(r));
    await t?.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("rings the DID's agent for its timeout, then the voicemail records the caller's message", async () => {
    // the agent is registered, but its phone never answers (its socket is gone after the REGISTER)
    const reg = await register({ host: servers.listen, port: servers.sipPort, domain: servers.domain, user: "4001", password: "agent-sip-pass-1" });
    expect(reg.status, servers.logs()).toBe(200);
    const audio = spokenUlaw("hello this is a message for the support team please call me back", work);
    const started = Date.now();
    const caller = trunkCall({
      sip: `127.0.0.1:${servers.sipPort}`,
      did: "60312340000",
      caller: "+60123456789",
      localPort: TRUNK_PORT,
      mediaPort: TRUNK_PORT + 2,
      // the greeting (about 2 s) then the message
      talkMs: 6000,
      audio,
      workDir: work,
    });
    const result = await caller.done;
    expect(result.code, `${result.output}\n${servers.logs().slice(-6000)}`).toBe(0);
    // the ring timeout (5 s) passed before the voicemail answered
    expect(Date.now() - started).toBeGreaterThan(5000 + 6000);

    const { db, schema } = t.handle;
    await expect.poll(async () => (await db.select().from(schema.calls))[0]?.recordingKey ?? null, { timeout: 15_000, interval: 300 }).not.toBeNull();
    const [row] = await db.select().from(schema.calls);
    expect(row).toMatchObject({
      direction: "inbound",
      did: "+60312340000",
      fromNumber: "+60123456789",
      toNumber: "+60312340000",
      voicemail: true,
      state: "ended",
      answeredAt: null,
      hangupCause: "voicemail",
      recordingType: "audio/ogg",
    });
    // the message is what the caller said after the greeting: a few seconds
    expect(row.recordingMs!).toBeGreaterThan(2000);
    expect(row.recordingMs!).toBeLessThan(7000);
    // and it is the caller's voice, not silence
    const stored = await fileStorage().get(row.recordingKey!);
    const file = path.join(work, "message.ogg");
    fs.writeFileSync(file, Buffer.from(await new Response(stored).arrayBuffer()));
    const detected = spawnSync("ffmpeg", ["-hide_banner", "-i", file, "-af", "volumedetect", "-f", "null", "-"], { encoding: "utf8" }).stderr;
    const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec(detected)?.[1] ?? -100);
    expect(mean).toBeGreaterThan(-45);
    const admin = (await findUserByUsername("admin"))!;
    const list = await listVoicemails(admin);
    expect(list.voicemails).toHaveLength(1);
    expect(list.voicemails[0]).toMatchObject({ from: "+60123456789", did: "+60312340000" });
    expect(list.voicemails[0].seconds).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it("a round robin DID rings one agent at a time: the second after the first does not answer, and the next call starts with the second", async () => {
    const admin = (await findUserByUsername("admin"))!;
    const agent2 = (await findUserByUsername("agent2"))!;
    const by = { actor: { id: admin.id, name: "admin" } };
    await saveSipAccount({ userId: agent2.id, sipNumber: "4002", password: "agent2-sip-pass-1", active: true }, by);
    await saveSipAccount({ userId: admin.id, sipNumber: "4003", password: "admin-sip-pass-1", active: true }, by);
    await saveDid(
      null,
      didForm.parse({ number: "+60312340001", agentIds: `${agent2.id}\n${admin.id}`, ringTimeout: "5", voicemail: "1", strategy: "round_robin" }),
      by,
    );
    // two desk phones that ring and never answer; the second declines a second after it rings
    const first = await fakePhone();
    const second = await fakePhone();
    phones.push(first, second);
    second.behaviour = { kind: "decline", afterMs: 1000 };
    for (const [user, password, phone] of [
      ["4002", "agent2-sip-pass-1", first],
      ["4003", "admin-sip-pass-1", second],
    ] as const) {
      const reg = await register({ host: servers.listen, port: servers.sipPort, domain: servers.domain, user, password, contactPort: phone.port });
      expect(reg.status, servers.logs()).toBe(200);
    }
    const work2 = fs.mkdtempSync(path.join(work, "rr-"));
    const audio = spokenUlaw("hello", work2);
    const dial = async () => {
      const caller = trunkCall({
        sip: `127.0.0.1:${servers.sipPort}`,
        did: "60312340001",
        caller: "+60123450000",
        localPort: TRUNK_PORT,
        mediaPort: TRUNK_PORT + 2,
        talkMs: 1000,
        audio,
        workDir: work2,
      });
      const result = await caller.done;
      expect(result.code, `${result.output}\n${servers.logs().slice(-6000)}`).toBe(0);
    };

    // call 1: 4002 first (the lower extension), alone, for the ring timeout; then 4003; then the voicemail
    await dial();
    expect(first.invites, servers.logs().slice(-6000)).toHaveLength(1);
    expect(second.invites).toHaveLength(1);
    const [a] = first.invites;
    const [b] = second.invites;
    // the second phone rang only once the first had rung its 5 s and was given up on (its CANCEL
    // leaves with the second INVITE)
    expect(b.at - a.at).toBeGreaterThanOrEqual(4500);
    expect(a.cancelledAt).not.toBeNull();
    expect(Math.abs(a.cancelledAt! - b.at)).toBeLessThan(1000);
    expect(b.at - a.at).toBeLessThan(8000);
    const { db, schema } = t.handle;
    const [call1] = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, a.callId));
    expect(call1).toMatchObject({ did: "+60312340001", voicemail: true, answeredAt: null });

    // call 2 starts with the agent after the one the last call started with: 4003, then 4002
    first.behaviour = { kind: "decline", afterMs: 300 };
    await dial();
    expect(second.invites).toHaveLength(2);
    expect(first.invites).toHaveLength(2);
    expect(second.invites[1].at).toBeLessThan(first.invites[1].at);
    // 4003 declined after a second: 4002 rang at once, not after the timeout
    expect(first.invites[1].at - second.invites[1].at).toBeLessThan(3000);
  }, 90_000);
});
