// Agents' SIP accounts and the call server, on both dialects: accounts saved with the password
// sealed at rest, one extension per agent and per number, the auth hook Kamailio asks (its secret,
// HA1, unknown and switched-off accounts), the auth check's SIP fields, /call_config for admins and
// call_settings only (a refusal keeps what was typed, never the password). Then the real thing:
// Kamailio and rtpengine started by the test, a REGISTER with the right password accepted and a
// wrong one, an unknown extension and a switched-off account refused, and a REGISTER flood from
// one address cut off by pike. Skipped only when Kamailio is not installed outside CI.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppLoadContext } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { authSettings } from "~/accounts/auth-settings.server";
import { editionForHost } from "~/models/editions.server";
import { activeSipAccountOf, deleteSipAccount, ha1, listSipAccounts, saveSipAccount, sipAuthHook, sipHookSecret } from "@plugins/calls/sip.server";
import * as configRoute from "@plugins/calls/routes/call_config";
import * as hookRoute from "@plugins/calls/routes/hook.auth";
import { missingBinariesMessage, sipBinariesPresent, startSipServers, type SipServers } from "@plugins/calls/sip/servers";
import { register } from "../support/sip-client";

type Fn = (args: { request: Request; context: AppLoadContext; params: Record<string, string> }) => unknown;
async function call(fn: Fn, request: Request) {
  try {
    return (await fn({ request, context: { clientIp: "192.0.2.10" } as unknown as AppLoadContext, params: {} })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const post = (url: string, cookie: string, values: Record<string, string>) =>
  new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams(values),
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
  });
const get = (url: string, cookie: string) => new Request(`http://localhost${url}`, { headers: { Cookie: cookie } });

describe.each(DIALECTS)("SIP accounts (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  const by = () => ({ actor: { id: admin.id, name: admin.username }, ip: "192.0.2.10" });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
  });

  it("keeps the password sealed, one extension per agent and per number", async () => {
    const saved = await saveSipAccount({ userId: agent.id, sipNumber: "1001", password: "agent-sip-pass", active: true }, by());
    expect(saved.ok).toBe(true);
    const { db, schema } = t.handle;
    const [row] = await db.select().from(schema.sipAccounts).where(eq(schema.sipAccounts.userId, agent.id));
    expect(row.password).not.toContain("agent-sip-pass");
    expect(row.password.startsWith("sealed:")).toBe(true);
    expect(await activeSipAccountOf(agent.id)).toEqual({ sipNumber: "1001", password: "agent-sip-pass" });
    // the same number for another agent is refused
    expect(await saveSipAccount({ userId: admin.id, sipNumber: "1001", password: "admin-sip-pass", active: true }, by())).toEqual({
      ok: false,
      errors: { sipNumber: "plugin_calls.errors.numberTaken" },
    });
    // a new account needs a password of 8 or more; an edit may keep the stored one
    expect(await saveSipAccount({ userId: admin.id, sipNumber: "1000", password: "short", active: true }, by())).toMatchObject({ ok: false });
    expect((await saveSipAccount({ userId: admin.id, sipNumber: "1000", password: "admin-sip-pass", active: true }, by())).ok).toBe(true);
    expect((await saveSipAccount({ userId: agent.id, sipNumber: "1001", password: "", active: true }, by())).ok).toBe(true);
    expect(await activeSipAccountOf(agent.id)).toEqual({ sipNumber: "1001", password: "agent-sip-pass" });
    expect((await listSipAccounts()).map((a) => [a.sipNumber, a.username])).toEqual([
      ["1000", "admin"],
      ["1001", "agent"],
    ]);
    const actions = await db.select({ action: schema.auditLog.action }).from(schema.auditLog).where(eq(schema.auditLog.targetType, "sip_account"));
    expect(actions.map((a) => a.action).sort()).toEqual(["sip.account_created", "sip.account_created", "sip.account_updated"]);
  });

  it("answers Kamailio's auth hook with the HA1 of active accounts only, and only with the secret", async () => {
    expect(await sipAuthHook("wrong", "1001", "omnidesk.local")).toEqual({ status: 403, body: "forbidden" });
    expect(await sipAuthHook(sipHookSecret(), "1001", "omnidesk.local")).toEqual({ status: 200, body: ha1("1001", "omnidesk.local", "agent-sip-pass") });
    expect(await sipAuthHook(sipHookSecret(), "9999", "omnidesk.local")).toMatchObject({ status: 404 });
    expect(await sipAuthHook(sipHookSecret(), "1001' OR 1=1", "omnidesk.local")).toMatchObject({ status: 404 });
    // the route: a form body, the secret in a header
    const request = (secret: string, user: string) =>
      new Request("http://127.0.0.1/hooks/sip/auth", {
        method: "POST",
        body: `user=${user}&realm=omnidesk.local`,
        headers: { "X-Sip-Hook-Secret": secret, "Content-Type": "application/x-www-form-urlencoded" },
      });
    const ok = await call(hookRoute.action as Fn, request(sipHookSecret(), "1001"));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe(ha1("1001", "omnidesk.local", "agent-sip-pass"));
    expect((await call(hookRoute.action as Fn, request("nope", "1001"))).status).toBe(403);
    // switched off: no HA1, and the softphone does not load
    await saveSipAccount({ userId: agent.id, sipNumber: "1001", password: "", active: false }, by());
    expect(await sipAuthHook(sipHookSecret(), "1001", "omnidesk.local")).toMatchObject({ status: 404 });
    expect(await activeSipAccountOf(agent.id)).toBeNull();
    await saveSipAccount({ userId: agent.id, sipNumber: "1001", password: "", active: true }, by());
  });

  it("gives the auth check the agent's sip list, sipIp, sipPort and turn", async () => {
    const edition = await editionForHost("localhost");
    const withAccount = await authSettings(agent, edition);
    expect(withAccount.sip).toEqual([{ sip_number: "1001", password: "agent-sip-pass", active: 1 }]);
    expect(withAccount.sipIp).toBe("127.0.0.1");
    expect(withAccount.sipPort).toBe("5066");
    expect(withAccount.turn).toEqual([]);
    const { db, schema } = t.handle;
    const [adminRow] = await db.select({ id: schema.sipAccounts.id }).from(schema.sipAccounts).where(eq(schema.sipAccounts.userId, admin.id));
    expect(await deleteSipAccount(adminRow.id, by())).toBe(true);
    const without = await authSettings(admin, edition);
    expect(without).toMatchObject({ sip: [], sipIp: "", sipPort: "" });
  });

  it("/call_config is for admins and call_settings; a refusal keeps the input but not the password", async () => {
    expect((await call(configRoute.loader as Fn, get("/call_config", agentCookie))).status).toBe(403);
    expect((await call(configRoute.action as Fn, post("/call_config", agentCookie, { intent: "save" }))).status).toBe(403);
    const page = await call(configRoute.loader as Fn, get("/call_config", adminCookie));
    expect(page.status).toBe(200);
    expect(((await page.json()) as { accounts: { sipNumber: string }[] }).accounts.map((a) => a.sipNumber)).toEqual(["1001"]);
    const refused = await call(
      configRoute.action as Fn,
      post("/call_config", adminCookie, { intent: "save", userId: String(admin.id), sipNumber: "12a", password: "long-enough-1", active: "1" }),
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      intent: "save",
      errors: { sipNumber: "plugin_calls.errors.number" },
      values: { sipNumber: "12a", password: "", active: "1" },
    });
    const taken = await call(
      configRoute.action as Fn,
      post("/call_config", adminCookie, { intent: "save", userId: String(admin.id), sipNumber: "1001", password: "long-enough-1", active: "1" }),
    );
    expect(taken.status).toBe(409);
    const saved = await call(
      configRoute.action as Fn,
      post("/call_config", adminCookie, { intent: "save", userId: String(admin.id), sipNumber: "1000", password: "long-enough-1", active: "1" }),
    );
    expect(saved.status).toBe(302);
    expect(saved.headers.get("Location")).toBe("/call_config?saved=1");
    // call_settings lets an agent in
    const { db, schema } = t.handle;
    await db
      .update(schema.users)
      .set({ permissions: JSON.stringify(["call_settings"]) })
      .where(eq(schema.users.id, agent.id));
    expect((await call(configRoute.loader as Fn, get("/call_config", agentCookie))).status).toBe(200);
  });
});

// the real call server: Kamailio + rtpengine started here, the product's hook answered from the test database
const present = sipBinariesPresent();
if (!present && process.env.CI) throw new Error(`CI must run the call-server tests: ${missingBinariesMessage()}`);
if (!present) console.warn(`Skipping the call-server tests: ${missingBinariesMessage()}`);

describe.skipIf(!present)("Kamailio registers the product's SIP accounts", () => {
  let t: TestDb;
  let servers: SipServers;
  let hook: http.Server;
  let hookCalls = 0;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-sip-"));
  const client = (user: string, password: string, timeoutMs = 3000) =>
    register({ host: servers.listen, port: servers.sipPort, domain: servers.domain, user, password, timeoutMs });

  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0 });
    const admin = (await findUserByUsername("admin"))!;
    const agent = (await findUserByUsername("agent"))!;
    const by = { actor: { id: admin.id, name: "admin" } };
    await saveSipAccount({ userId: agent.id, sipNumber: "2001", password: "right-password-1", active: true }, by);
    await saveSipAccount({ userId: admin.id, sipNumber: "2000", password: "admin-password-1", active: false }, by);
    // the product's hook route, as the server mounts it
    hook = http.createServer(async (req, res) => {
      hookCalls += 1;
      let body = "";
      for await (const chunk of req) body += chunk;
      const response = await hookRoute.action({
        request: new Request(`http://127.0.0.1${req.url}`, { method: "POST", body, headers: req.headers as Record<string, string> }),
        context: {} as AppLoadContext,
        params: {},
      });
      res.writeHead(response.status, { "Content-Type": "text/plain" });
      res.end(await response.text());
    });
    await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
    const port = (hook.address() as { port: number }).port;
    servers = await startSipServers({ runDir, authUrl: `http://127.0.0.1:${port}/hooks/sip/auth`, hookSecret: sipHookSecret(), pikeDensity: 40 });
  }, 60_000);
  afterAll(async () => {
    await servers?.stop();
    await new Promise((r) => hook?.close(r));
    await t?.cleanup();
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  it("accepts the right password and refuses a wrong one, an unknown extension and a switched-off account", async () => {
    const before = hookCalls;
    const ok = await client("2001", "right-password-1");
    expect(ok.status, servers.logs()).toBe(200);
    expect(ok.headers["contact"]).toContain("2001@127.0.0.1");
    expect(hookCalls).toBeGreaterThan(before);
    expect((await client("2001", "wrong-password")).status).toBe(401);
    expect((await client("2999", "right-password-1")).status).toBe(401);
    expect((await client("2000", "admin-password-1")).status).toBe(401);
  });

  it("cuts off a REGISTER flood from one address (pike)", async () => {
    // 40 requests per 2 s are allowed; 120 at once are not: the rest go unanswered
    const answers = await Promise.all(Array.from({ length: 120 }, () => client("2001", "right-password-1", 2000)));
    const unanswered = answers.filter((a) => a.status === 0).length;
    expect(unanswered).toBeGreaterThan(30);
    expect(servers.logs()).toContain("pike blocking");
  }, 30_000);
});
