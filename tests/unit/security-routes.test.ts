// The pages' actions of issue 15 item 4, called as Remix calls them: the settings page's 2FA forms,
// /settings/security (admins only), /settings/sessions, and the auth JSON twins.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticator } from "otplib";
import { eq } from "drizzle-orm";
import type { ActionFunctionArgs, AppLoadContext } from "@remix-run/node";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo, DEFAULT_SEED_PASSWORD } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession, findSession, sessionSettings } from "~/accounts/sessions.server";
import { action as settingsAction } from "~/routes/settings";
import { action as securityAction } from "~/accounts/routes/settings.security";
import { action as sessionsAction } from "~/accounts/routes/settings.sessions";
import { action as checkAction } from "~/routes/api.auth.check";
import { action as signoutAction } from "~/routes/api.user.signout";
import { action as auth2Action } from "~/routes/api.auth2";
import { action as homeAction } from "~/routes/home";

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb("sqlite");
  await seedDemo(t.handle, { tickets: 5 });
});
afterAll(async () => t?.cleanup());

const context = { clientIp: "192.0.2.80" } as unknown as AppLoadContext;
const cookieOf = async (token: string) => sessionCookie().serialize(token);

async function post(fn: (args: ActionFunctionArgs) => unknown, path: string, fields: Record<string, string>, cookie?: string) {
  const request = new Request(`http://localhost${path}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...(cookie ? { Cookie: cookie } : {}) },
  });
  try {
    return (await fn({ request, context, params: {} })) as Response;
  } catch (thrown) {
    return thrown as Response;
  }
}

async function postJson(fn: (args: ActionFunctionArgs) => unknown, path: string, body: Record<string, unknown>, method = "POST") {
  const request = new Request(`http://localhost${path}`, {
    method,
    body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", "User-Agent": "test-client" },
  });
  return (await fn({ request, context, params: {} })) as Response;
}

describe("two-factor on the settings page", () => {
  it("asks for the password to turn it on, keeps the setup on a refusal, and ends the other sessions", async () => {
    const here = await createSession(3);
    const other = await createSession(3);
    const cookie = await cookieOf(here.token);
    const secret = authenticator.generateSecret();
    const code = authenticator.generate(secret);

    const missing = await post(settingsAction, "/settings", { intent: "tfa_enable", secret, code }, cookie);
    expect(missing.status).toBe(400);
    const refusal = await missing.json();
    expect(refusal).toMatchObject({ intent: "tfa_enable", errors: { password: "login.passwordRequired" } });
    expect(refusal.setup.secret).toBe(secret);

    const wrong = await post(settingsAction, "/settings", { intent: "tfa_enable", secret, code, password: "nope" }, cookie);
    expect(await wrong.json()).toMatchObject({ errors: { password: "settings.passwordInvalid" } });
    expect((await findSession(other.token))?.user.username).toBe("agent2");

    const ok = await post(settingsAction, "/settings", { intent: "tfa_enable", secret, code, password: DEFAULT_SEED_PASSWORD }, cookie);
    expect(ok.status).toBe(302);
    expect(await findSession(other.token)).toBeUndefined();
    expect(await findSession(here.token)).toBeDefined();

    const off = await post(settingsAction, "/settings", { intent: "tfa_disable", password: "" }, cookie);
    expect(await off.json()).toMatchObject({ errors: { password: "login.passwordRequired" } });
    const offOk = await post(settingsAction, "/settings", { intent: "tfa_disable", password: DEFAULT_SEED_PASSWORD }, cookie);
    expect(offOk.status).toBe(302);
  });
});

describe("the login form's code step", () => {
  it("sends the user back to the password after five wrong codes, with the reason", async () => {
    const secret = authenticator.generateSecret();
    await t.handle.db.update(t.handle.schema.users).set({ totpSecret: secret, totpEnabled: true, totpLastStep: 0 }).where(eq(t.handle.schema.users.id, 2));
    try {
      const first = await post(homeAction, "/?index", { intent: "login", username: "agent", password: DEFAULT_SEED_PASSWORD, type: "agent" });
      expect(first.status).toBe(302);
      const cookie = first.headers.get("Set-Cookie")!.split(";")[0];
      const wrong = ["000000", "111111", "222222", "333333"].find((c) => authenticator.checkDelta(c, secret) === null)!;
      for (let i = 1; i < 5; i++) {
        const res = await post(homeAction, "/?index", { intent: "tfa", code: wrong }, cookie);
        expect(await res.json()).toMatchObject({ intent: "tfa", errors: { code: "login.codeInvalid" } });
      }
      const fifth = await post(homeAction, "/?index", { intent: "tfa", code: wrong }, cookie);
      expect(fifth.status).toBe(429);
      expect(await fifth.json()).toMatchObject({ intent: "login", message: "security.tfaLocked" });
      expect(fifth.headers.get("Set-Cookie")).toMatch(/Max-Age=0/i);
      // the right code on the ended step signs nobody in
      const late = await post(homeAction, "/?index", { intent: "tfa", code: authenticator.generate(secret) }, cookie);
      expect(late.status).toBe(302);
      expect(late.headers.get("Set-Cookie")).toMatch(/Max-Age=0/i);
    } finally {
      await t.handle.db.update(t.handle.schema.users).set({ totpSecret: null, totpEnabled: false }).where(eq(t.handle.schema.users.id, 2));
    }
  });
});

describe("/settings/security", () => {
  it("refuses an agent with 403 and changes nothing", async () => {
    const agent = await cookieOf((await createSession(2)).token);
    const res = await post(securityAction, "/settings/security", { idle_hours: "1", max_days: "1" }, agent);
    expect(res.status).toBe(403);
    expect(await sessionSettings()).toEqual({ idleHours: 12, maxDays: 30 });
  });

  it("keeps the admin's bad input with a clear reason, and saves a good one", async () => {
    const admin = await cookieOf((await createSession(1)).token);
    for (const bad of ["0", "abc", "1.5", "", "10000"]) {
      const res = await post(securityAction, "/settings/security", { idle_hours: bad, max_days: bad }, admin);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        errors: { idle_hours: "security.settings.idleInvalid", max_days: "security.settings.maxDaysInvalid" },
        values: { idle_hours: bad, max_days: bad },
      });
    }
    expect(await sessionSettings()).toEqual({ idleHours: 12, maxDays: 30 });
    const ok = await post(securityAction, "/settings/security", { idle_hours: "8", max_days: "7" }, admin);
    expect(ok.headers.get("Location")).toBe("/settings/security?saved=1");
    expect(await sessionSettings()).toEqual({ idleHours: 8, maxDays: 7 });
    const entries = await t.handle.db.select().from(t.handle.schema.auditLog).where(eq(t.handle.schema.auditLog.action, "settings.changed"));
    expect(entries.map((e) => [e.targetId, JSON.parse(e.detail), e.actorId, e.ip])).toEqual([
      ["session_idle_hours", { from: 12, to: 8 }, 1, "192.0.2.80"],
      ["session_max_days", { from: 30, to: 7 }, 1, "192.0.2.80"],
    ]);
  });
});

describe("/settings/sessions", () => {
  it("refuses to sign out a session the user does not own", async () => {
    const mine = await cookieOf((await createSession(2)).token);
    const res = await post(sessionsAction, "/settings/sessions", { intent: "revoke", id: "x".repeat(22) }, mine);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ message: "security.sessions.gone" });
  });
});

describe("auth JSON twins", () => {
  it("answers token and refresh_token on sign-in and on every check, rotating on refresh", async () => {
    const signIn = await (await postJson(auth2Action, "/api/auth2", { client: "agent", password: DEFAULT_SEED_PASSWORD, type: "agent" })).json();
    expect(signIn).toMatchObject({ result: "success", token: expect.any(String), refresh_token: expect.any(String) });

    const check = await (await postJson(checkAction, "/api/auth/check", { _token: signIn.token, refresh_token: signIn.refresh_token })).json();
    expect(check).toMatchObject({ result: "success", token: signIn.token, refresh_token: signIn.refresh_token, rank: 9999999, permission: [] });
    for (const field of [
      "turn",
      "sip",
      "sipIp",
      "sipPort",
      "plan",
      "settings",
      "event_id",
      "api_key",
      "contacts_param",
      "contacts_param2",
      "priority",
      "acw_seconds",
      "call_prefix",
      "version",
      "productDetails",
      "account_type",
      "last_account_status",
      "adminUrl",
      "timezone",
      "client",
      "photo",
      "adminName",
      "adminUsername",
    ])
      expect(check).toHaveProperty(field);

    const renewed = await (await postJson(checkAction, "/api/auth/check", { _token: "gone", refresh_token: signIn.refresh_token })).json();
    expect(renewed.result).toBe("success");
    expect(renewed.token).not.toBe(signIn.token);
    expect(renewed.refresh_token).not.toBe(signIn.refresh_token);
    // a raced duplicate is refused but the family lives
    const dup = await postJson(checkAction, "/api/auth/check", { _token: "gone", refresh_token: signIn.refresh_token });
    expect(dup.status).toBe(403);
    expect(await findSession(renewed.token)).toBeDefined();
  });

  it("signs out this session, or every session of the user with current=0", async () => {
    const a = await createSession(2);
    const b = await createSession(2);
    const c = await createSession(2);
    expect(await (await postJson(signoutAction, `/api/user/signout?_token=${a.token}`, {}, "DELETE")).json()).toEqual({ result: "success" });
    expect(await findSession(a.token)).toBeUndefined();
    expect(await findSession(b.token)).toBeDefined();
    await postJson(signoutAction, `/api/user/signout?_token=${b.token}&current=0`, {}, "DELETE");
    expect(await findSession(b.token)).toBeUndefined();
    expect(await findSession(c.token)).toBeUndefined();
  });
});
