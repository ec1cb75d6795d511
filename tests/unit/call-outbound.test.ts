// Outbound calls (issue 18): the /call_config outbound trunk form (host:port, the call prefix) with
// its messages in all five locales, posted without JavaScript (a refusal keeps what was typed),
// audited; the popup_on_call switch on the same page; the auth check's call_prefix; Kamailio's
// outbound hook (403 without the secret, 404 for an extension, 409 with no trunk, else the
// Request-URI towards the trunk). Then the real thing (SQLite): Kamailio and rtpengine started here,
// a registered agent calls an outside number; with no trunk it is refused (403 "No Outbound
// Trunk"), with one set up sipp (the trunk, a UAS on loopback) gets the INVITE for the prefixed
// number, answers, and the call is an outbound CALL ticket with the number in E.164.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AppLoadContext } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desc, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { authSettings } from "~/accounts/auth-settings.server";
import { editionForHost } from "~/models/editions.server";
import { getSettings, getWorkspace } from "~/models/settings.server";
import { saveSipAccount, sipHookSecret } from "@plugins/calls/sip.server";
import { outboundHook, outboundTrunk, saveOutboundTrunk, trunkForm, trunkUri } from "@plugins/calls/trunk.server";
import { deleteDid, didForm, saveDid } from "@plugins/calls/dids.server";
import * as configRoute from "@plugins/calls/routes/call_config";
import * as authHook from "@plugins/calls/routes/hook.auth";
import * as eventHook from "@plugins/calls/routes/hook.event";
import * as didRoute from "@plugins/calls/routes/hook.did";
import * as outboundRoute from "@plugins/calls/routes/hook.outbound";
import { freePort, sipBinariesPresent, startSipServers, type SipServers } from "@plugins/calls/sip/servers";
import { call as placeCall, register } from "../support/sip-client";
import { SIPP, sippPresent, tempDir } from "../support/trunk-call";

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
const post = (cookie: string, values: Record<string, string>) =>
  new Request("http://localhost/call_config", {
    method: "POST",
    body: new URLSearchParams(values),
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
  });

describe("the outbound trunk form", () => {
  const errorOf = (values: Record<string, string>) => {
    const r = trunkForm.safeParse(values);
    return r.success ? null : Object.fromEntries(r.error.issues.map((i) => [String(i.path[0]), i.message]));
  };
  it("takes host:port or a host, and a prefix of up to 10 digits that may start with +; both may be empty", () => {
    const none = { callerId: "", authUser: "", authPassword: "" };
    expect(trunkForm.parse({ trunk: " sip.example.com:5060 ", prefix: " 9 " })).toEqual({ trunk: "sip.example.com:5060", prefix: "9", ...none });
    expect(trunkForm.parse({ trunk: "203.0.113.5", prefix: "+", callerId: " +60312345678 ", authUser: " acme ", authPassword: " s3cret; " })).toEqual({
      trunk: "203.0.113.5",
      prefix: "+",
      callerId: "+60312345678",
      authUser: "acme",
      // a password is taken as typed
      authPassword: " s3cret; ",
    });
    expect(trunkForm.parse({ trunk: "10.0.0.1:5080", prefix: "0000000000" })).toEqual({ trunk: "10.0.0.1:5080", prefix: "0000000000", ...none });
    expect(trunkForm.parse({})).toEqual({ trunk: "", prefix: "", ...none });
  });
  it("refuses a bad address or prefix with the messages in five locales", () => {
    for (const trunk of [
      "sip.example.com:0",
      "sip.example.com:70000",
      "300.1.1.1:5060",
      "sip example.com",
      "host:5060:1",
      "-bad.example.com",
      "a@b:5060",
      "sip:x@y",
    ])
      expect(errorOf({ trunk }), trunk).toEqual({ trunk: "plugin_calls.errors.trunk" });
    for (const prefix of ["12345678901", "9#", "*9", "9+", "++1", "a"]) expect(errorOf({ prefix }), prefix).toEqual({ prefix: "plugin_calls.errors.prefix" });
    expect(errorOf({ trunk: "x:y", prefix: "z" })).toEqual({ trunk: "plugin_calls.errors.trunk", prefix: "plugin_calls.errors.prefix" });
    for (const authUser of ["a b", "a;b", "a@b", "a:b", "x".repeat(65)])
      expect(errorOf({ authUser }), authUser).toEqual({ authUser: "plugin_calls.errors.trunkUser" });
    for (const authPassword of ["a\nb", "x".repeat(129)]) expect(errorOf({ authPassword })).toEqual({ authPassword: "plugin_calls.errors.trunkPassword" });
    const keys = [
      "errors.trunk",
      "errors.prefix",
      "errors.callerId",
      "errors.trunkUser",
      "errors.trunkPassword",
      "outbound.callerId",
      "outbound.callerIdExtension",
      "outbound.callerIdHelp",
      "outbound.authUser",
      "outbound.authUserHelp",
      "outbound.authPassword",
      "outbound.authPasswordHelp",
      "outbound.authPasswordKept",
      "outbound.title",
      "outbound.trunk",
      "outbound.trunkHelp",
      "outbound.prefix",
      "outbound.prefixHelp",
      "outbound.help",
      "outbound.off",
      "outbound.save",
      "outbound.saved",
      "popup.title",
      "popup.label",
      "popup.help",
      "popup.save",
      "popup.saved",
      "call.noTrunk",
      "call.failed",
    ];
    for (const key of keys) for (const lang of LOCALES) expect(text(lang, `plugin_calls.${key}`), `${lang} ${key}`).toEqual(expect.any(String));
    expect(text("en", "plugin_calls.errors.trunk")).toBe("Please check the trunk address: host:port, for example sip.example.com:5060.");
  });
  it("sends the trunk the prefix, then the number's digits", () => {
    expect(trunkUri("+60312345678", "127.0.0.1:5070", "9")).toBe("sip:960312345678@127.0.0.1:5070");
    expect(trunkUri("+60312345678", "sip.example.com", "")).toBe("sip:60312345678@sip.example.com");
    expect(trunkUri("60312345678", "sip.example.com", "+")).toBe("sip:+60312345678@sip.example.com");
  });
});

describe.each(DIALECTS)("outbound trunk and call popup on /call_config (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  const audits = async (action: string) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.auditLog).where(eq(schema.auditLog.action, action)).orderBy(desc(schema.auditLog.id));
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    await saveSipAccount({ userId: agent.id, sipNumber: "3001", password: "agent-sip-pass", active: true }, { actor: { id: admin.id, name: "admin" } });
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
  });

  it("refuses a bad trunk keeping what was typed, saves a good one (audited), and the auth check returns the prefix", async () => {
    // an agent without call_settings may not
    expect((await call(configRoute.action as Fn, post(agentCookie, { intent: "saveTrunk", trunk: "10.0.0.1", prefix: "9" }))).status).toBe(403);

    const refused = await call(configRoute.action as Fn, post(adminCookie, { intent: "saveTrunk", trunk: "sip.example.com:99999", prefix: "9#" }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      intent: "saveTrunk",
      errors: { trunk: "plugin_calls.errors.trunk", prefix: "plugin_calls.errors.prefix" },
      values: { trunk: "sip.example.com:99999", prefix: "9#" },
    });
    expect(await outboundTrunk()).toEqual({ trunk: "", prefix: "", callerId: "", authUser: "", hasPassword: false });

    const saved = await call(configRoute.action as Fn, post(adminCookie, { intent: "saveTrunk", trunk: " sip.example.com:5060 ", prefix: "00" }));
    expect(saved.status).toBe(302);
    expect(saved.headers.get("Location")).toBe("/call_config?outboundSaved=1#outbound");
    expect(await outboundTrunk()).toEqual({ trunk: "sip.example.com:5060", prefix: "00", callerId: "", authUser: "", hasPassword: false });
    const [entry] = await audits("sip.trunk_updated");
    expect(entry).toMatchObject({ actorId: admin.id, targetId: "call_trunk", ip: "192.0.2.10" });
    expect(JSON.parse(entry.detail)).toEqual({ trunk: "sip.example.com:5060", prefix: "00", callerId: "", authUser: "", passwordChanged: false });

    const page = await call(configRoute.loader as Fn, new Request("http://localhost/call_config?outboundSaved=1", { headers: { Cookie: adminCookie } }));
    expect(await page.json()).toMatchObject({
      outbound: { trunk: "sip.example.com:5060", prefix: "00", callerId: "", authUser: "" },
      outboundSaved: true,
      popupOnCall: false,
    });

    const edition = await editionForHost("localhost");
    expect((await authSettings(agent, edition)).call_prefix).toBe("00");
  });

  it("answers Kamailio's outbound hook: 403 without the secret, 404 for an extension or no number, 409 with no trunk, else the trunk's URI", async () => {
    expect(await outboundHook("wrong", "+60312345678")).toEqual({ status: 403, body: "forbidden" });
    expect(await outboundHook(sipHookSecret(), "3001")).toEqual({ status: 404, body: "" });
    expect(await outboundHook(sipHookSecret(), "abc")).toEqual({ status: 404, body: "" });
    // a "+" arrives as a space (form decoding of Kamailio's unescaped +)
    expect(await outboundHook(sipHookSecret(), " 60312345678")).toEqual({ status: 200, body: "sip:0060312345678@sip.example.com:5060;;;" });
    const response = await outboundRoute.action({
      request: new Request("http://127.0.0.1/hooks/sip/outbound", {
        method: "POST",
        body: "number=0312345678",
        headers: { "X-Sip-Hook-Secret": sipHookSecret(), "Content-Type": "application/x-www-form-urlencoded" },
      }),
      context: {} as AppLoadContext,
      params: {},
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("sip:000312345678@sip.example.com:5060;;;");

    // the caller ID: one of the workspace's DIDs, else refused keeping what was typed
    const typed = { trunk: "sip.example.com:5060", prefix: "00", callerId: "+60399999999" };
    const notOurs = await call(configRoute.action as Fn, post(adminCookie, { intent: "saveTrunk", ...typed }));
    expect(notOurs.status).toBe(400);
    expect(await notOurs.json()).toMatchObject({ intent: "saveTrunk", errors: { callerId: "plugin_calls.errors.callerId" }, values: typed });
    expect((await outboundTrunk()).callerId).toBe("");
    const did = await saveDid(null, didForm.parse({ number: "+60322223333", agentIds: String(agent.id) }), { actor: { id: admin.id, name: "admin" } });
    if (!did.ok) throw new Error("DID not saved");
    expect((await call(configRoute.action as Fn, post(adminCookie, { intent: "saveTrunk", ...typed, callerId: "+60322223333" }))).status).toBe(302);
    expect(await outboundHook(sipHookSecret(), "+60312345678")).toEqual({ status: 200, body: "sip:0060312345678@sip.example.com:5060;+60322223333;;" });
    // a caller ID whose DID was deleted since is sent no more (the extension shows again)
    await deleteDid(did.id, { actor: { id: admin.id, name: "admin" } });
    expect(await outboundHook(sipHookSecret(), "+60312345678")).toEqual({ status: 200, body: "sip:0060312345678@sip.example.com:5060;;;" });

    // the trunk's digest credentials: the password sealed at rest, never sent back nor audited,
    // kept when the field is left empty, handed to Kamailio percent-encoded
    const withAuth = { intent: "saveTrunk", trunk: "sip.example.com:5060", prefix: "00", authUser: "acme-7", authPassword: "p@ss;word 1" };
    expect((await call(configRoute.action as Fn, post(adminCookie, withAuth))).status).toBe(302);
    const stored = (await getSettings()).call_trunk_password;
    expect(stored).not.toContain("p@ss");
    expect(await outboundHook(sipHookSecret(), "+60312345678")).toEqual({
      status: 200,
      body: "sip:0060312345678@sip.example.com:5060;;acme-7;p%40ss%3Bword%201",
    });
    const shown = await (await call(configRoute.loader as Fn, new Request("http://localhost/call_config", { headers: { Cookie: adminCookie } }))).text();
    expect(shown).not.toContain("p@ss");
    expect(JSON.parse(shown).outbound).toMatchObject({ authUser: "acme-7", hasPassword: true });
    expect(JSON.stringify(await audits("sip.trunk_updated"))).not.toContain("p@ss");
    expect((await call(configRoute.action as Fn, post(adminCookie, { ...withAuth, authPassword: "" }))).status).toBe(302);
    expect((await getSettings()).call_trunk_password).toBe(stored);
    // a refusal does not send the typed password back
    const refusedAuth = await call(configRoute.action as Fn, post(adminCookie, { ...withAuth, authUser: "a b", authPassword: "typed-secret" }));
    expect(refusedAuth.status).toBe(400);
    expect(JSON.stringify(await refusedAuth.json())).not.toContain("typed-secret");
    // no user: no credentials at all
    expect((await call(configRoute.action as Fn, post(adminCookie, { ...withAuth, authUser: "", authPassword: "" }))).status).toBe(302);
    expect(await outboundTrunk()).toMatchObject({ authUser: "", hasPassword: false });

    // emptied: outbound calls are off
    expect((await call(configRoute.action as Fn, post(adminCookie, { intent: "saveTrunk", trunk: "", prefix: "" }))).status).toBe(302);
    expect(await outboundHook(sipHookSecret(), "+60312345678")).toEqual({ status: 409, body: "no trunk" });
  });

  it("switches popup_on_call on and off without JavaScript, audited as a settings change", async () => {
    const on = await call(configRoute.action as Fn, post(adminCookie, { intent: "savePopup", popupOnCall: "1" }));
    expect(on.status).toBe(302);
    expect(on.headers.get("Location")).toBe("/call_config?popupSaved=1#popup");
    expect((await getSettings()).popup_on_call).toBe("1");
    expect((await getWorkspace()).popupOnCall).toBe(true);
    const [entry] = await audits("settings.changed");
    expect(entry).toMatchObject({ actorId: admin.id, targetId: "popup_on_call" });
    expect(JSON.parse(entry.detail)).toEqual({ value: "1" });
    // an unchecked box sends nothing
    expect((await call(configRoute.action as Fn, post(adminCookie, { intent: "savePopup" }))).status).toBe(302);
    expect((await getWorkspace()).popupOnCall).toBe(false);
    const page = await call(configRoute.loader as Fn, new Request("http://localhost/call_config?popupSaved=1", { headers: { Cookie: adminCookie } }));
    expect(await page.json()).toMatchObject({ popupOnCall: false, popupSaved: true });
  });
});

// the real call server, answered from the test database; sipp as the trunk
const present = sipBinariesPresent() && sippPresent();
if (!present && process.env.CI) throw new Error("CI must run the outbound call test: Kamailio, rtpengine and sipp (sip-tester) are needed");

describe.skipIf(!present)("an agent's call to an outside number goes out through the trunk with the call prefix", () => {
  let t: TestDb;
  let servers: SipServers;
  let hooks: http.Server;
  let agent: UserRow;
  let admin: UserRow;
  const work = tempDir();
  const [RTP_MIN, RTP_MAX] = (process.env.TEST_OUTBOUND_RTP_PORTS || "35600-35649").split("-").map(Number);

  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    await saveSipAccount({ userId: agent.id, sipNumber: "4101", password: "agent-sip-pass-1", active: true }, { actor: { id: admin.id, name: "admin" } });
    // an extension nobody is registered on
    await saveSipAccount({ userId: admin.id, sipNumber: "4102", password: "admin-sip-pass-1", active: true }, { actor: { id: admin.id, name: "admin" } });
    const routes: Record<string, Fn> = {
      "/hooks/sip/auth": authHook.action as Fn,
      "/hooks/sip/event": eventHook.action as Fn,
      "/hooks/sip/did": didRoute.action as Fn,
      "/hooks/sip/outbound": outboundRoute.action as Fn,
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
    servers = await startSipServers({
      runDir: path.join(work, "sip"),
      authUrl: `http://127.0.0.1:${port}/hooks/sip/auth`,
      hookSecret: sipHookSecret(),
      rtpPortMin: RTP_MIN,
      rtpPortMax: RTP_MAX,
    });
  }, 60_000);
  afterAll(async () => {
    await servers?.stop();
    await new Promise((r) => hooks?.close(r));
    await t?.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const dial = (to: string) =>
    placeCall({
      host: servers.listen,
      port: servers.sipPort,
      domain: servers.domain,
      user: "4101",
      password: "agent-sip-pass-1",
      to,
      talkMs: 1500,
      timeoutMs: 20_000,
    });

  it("refuses the call clearly while no trunk is set up, and a call to an extension nobody is on stays 404", async () => {
    const reg = await register({ host: servers.listen, port: servers.sipPort, domain: servers.domain, user: "4101", password: "agent-sip-pass-1" });
    expect(reg.status, servers.logs()).toBe(200);
    const refused = await dial("+60312345678");
    expect(refused.final.status, servers.logs().slice(-4000)).toBe(403);
    expect(refused.final.reason).toBe("No Outbound Trunk");
    expect((await dial("4102")).final.status).toBe(404);
    // nothing was recorded as a call
    const { db, schema } = t.handle;
    expect(await db.select().from(schema.calls)).toEqual([]);
  }, 30_000);

  /**
   * sipp as the trunk on `trunkPort` (a scenario of tests/support) answers one call from the agent
   * to +60312345678, then the BYE: answers the call and every message the trunk saw.
   */
  async function callThroughTrunk(scenarioFile: string, trunkPort: number) {
    const messages = path.join(work, `trunk-messages-${trunkPort}.log`);
    const sipp = spawn(
      SIPP,
      [
        "-sf",
        path.resolve("tests/support", scenarioFile),
        "-i",
        "127.0.0.1",
        "-p",
        String(trunkPort),
        "-mp",
        String(await freePort("udp")),
        "-m",
        "1",
        "-nostdin",
        "-timeout",
        "30s",
        "-trace_msg",
        "-message_file",
        messages,
      ],
      { cwd: work, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    sipp.stdout.on("data", (d) => (output = (output + d).slice(-8000)));
    sipp.stderr.on("data", (d) => (output = (output + d).slice(-8000)));
    const exited = new Promise<number | null>((resolve) => sipp.once("exit", resolve));
    try {
      // sipp is listening before the call
      await new Promise((r) => setTimeout(r, 500));
      const placed = await dial("+60312345678");
      expect(placed.final.status, `${output}\n${servers.logs().slice(-6000)}`).toBe(200);
      expect(placed.bye?.status, `${placed.final.raw}\n${placed.bye?.raw}\n${servers.logs().slice(-3000)}`).toBe(200);
      expect(await exited).toBe(0);
      return { placed, seen: fs.readFileSync(messages, "utf8") };
    } finally {
      if (sipp.exitCode === null) sipp.kill("SIGTERM");
    }
  }

  it("sends the INVITE to the trunk for the prefixed number; the call is an outbound CALL ticket in E.164", async () => {
    const trunkPort = await freePort("udp");
    // the workspace's DID is the caller ID the called person sees
    await saveDid(null, didForm.parse({ number: "+60322223333", agentIds: String(agent.id) }), { actor: { id: admin.id, name: "admin" } });
    const trunk = { trunk: `127.0.0.1:${trunkPort}`, prefix: "9", callerId: "+60322223333", authUser: "", authPassword: "" };
    expect(await saveOutboundTrunk(trunk, { actor: { id: admin.id, name: "admin" } })).toEqual({ ok: true });
    const { placed, seen } = await callThroughTrunk("trunk-callee.xml", trunkPort);
    // the trunk got the call prefix, then the number's digits, with plain RTP (no ICE, no DTLS)
    expect(seen).toMatch(new RegExp(`INVITE sip:960312345678@127\\.0\\.0\\.1:${trunkPort} SIP/2\\.0`));
    expect(seen).toMatch(/m=audio \d+ RTP\/AVP /);
    expect(seen).not.toMatch(/a=ice-ufrag|a=fingerprint/);
    // with the caller ID as P-Asserted-Identity, once
    expect(seen.match(/^P-Asserted-Identity: .*$/gim)).toEqual(["P-Asserted-Identity: <sip:+60322223333@127.0.0.1>"]);

    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, placed.callId));
    expect(row).toMatchObject({
      direction: "outbound",
      fromNumber: "4101",
      toNumber: "+60312345678",
      did: "",
      agentUserId: agent.id,
      state: "ended",
      hangupCause: "normal",
    });
    expect(row.answeredAt).not.toBeNull();
    const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, row.ticketId));
    expect(ticket.channel).toBe("CALL");
    expect(ticket.contactPhone).toBe("+60312345678");
  }, 60_000);

  it("answers a trunk's digest challenge once with the saved credentials, and the call goes through", async () => {
    const trunkPort = await freePort("udp");
    const trunk = { trunk: `127.0.0.1:${trunkPort}`, prefix: "", callerId: "", authUser: "trunk-user", authPassword: "tr;unk pass%" };
    expect(await saveOutboundTrunk(trunk, { actor: { id: admin.id, name: "admin" } })).toEqual({ ok: true });
    // tests/support/trunk-callee-auth.xml: 401 first, then only an INVITE whose credentials check out
    const { seen } = await callThroughTrunk("trunk-callee-auth.xml", trunkPort);
    const invites = seen.match(/^INVITE sip:60312345678@.*$/gm) ?? [];
    expect(invites).toHaveLength(2);
    expect(seen).toMatch(/^Authorization: Digest username="trunk-user", realm="trunk\.example"/m);
    // the password went to Kamailio, never into a message
    expect(seen).not.toContain("tr;unk pass%");
  }, 60_000);
});
