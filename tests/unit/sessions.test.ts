// Sessions (issue 15, item 4): idle timeout, the own-sessions list, refresh rotation with reuse
// detection, and two-factor changes that need the password and end the other sessions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticator } from "otplib";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo, DEFAULT_SEED_PASSWORD } from "~/seed/seed";
import {
  createSession,
  findSession,
  hashToken,
  listUserSessions,
  refreshSession,
  revokeOtherSessions,
  revokeSession,
  setSessionSettings,
  sweepSessions,
  TOUCH_EVERY_MS,
} from "~/accounts/sessions.server";
import { turnOffTwoFactor, turnOnTwoFactor } from "~/accounts/auth.server";
import { findUserByUsername } from "~/accounts/users.server";
import { describeDevice } from "~/accounts/device";

const HOUR = 3600 * 1000;
const ip = "192.0.2.44";

describe.each(DIALECTS)("sessions on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 5 });
  });
  afterAll(async () => t?.cleanup());

  const row = async (token: string) =>
    (
      await t.handle.db
        .select()
        .from(t.handle.schema.sessions)
        .where(eq(t.handle.schema.sessions.idHash, hashToken(token)))
    )[0];
  const setLastSeen = (token: string, at: number) =>
    t.handle.db
      .update(t.handle.schema.sessions)
      .set({ lastSeenAt: at, createdAt: at })
      .where(eq(t.handle.schema.sessions.idHash, hashToken(token)));
  const audits = async (action: string) => t.handle.db.select().from(t.handle.schema.auditLog).where(eq(t.handle.schema.auditLog.action, action));

  describe("idle timeout", () => {
    it("ends a session unused for longer than the setting (12 hours by default), and deletes it", async () => {
      const idle = await createSession(2, { ip });
      const live = await createSession(2, { ip });
      await setLastSeen(idle.token, Date.now() - 12 * HOUR - 60_000);
      await setLastSeen(live.token, Date.now() - 11 * HOUR);
      expect(await findSession(idle.token)).toBeUndefined();
      expect(await row(idle.token)).toBeUndefined();
      expect((await findSession(live.token))?.user.username).toBe("agent");
      // the refresh token of an idle session buys nothing either
      const stale = await createSession(2);
      await setLastSeen(stale.token, Date.now() - 13 * HOUR);
      expect(await refreshSession(stale.refreshToken)).toEqual({ ok: false, reason: "idle" });
    });

    it("follows the admin's setting, which is audited", async () => {
      const s = await createSession(2);
      await setLastSeen(s.token, Date.now() - 20 * HOUR);
      await setSessionSettings({ idleHours: 24, maxDays: 30 }, { id: 1, name: "Demo Admin" }, ip);
      expect(await findSession(s.token)).toBeDefined();
      // (that look marked it seen just now)
      await setLastSeen(s.token, Date.now() - 2 * HOUR);
      await setSessionSettings({ idleHours: 1, maxDays: 30 }, { id: 1, name: "Demo Admin" }, ip);
      expect(await findSession(s.token)).toBeUndefined();
      const changes = await audits("settings.changed");
      expect(changes.map((c) => JSON.parse(c.detail))).toEqual([
        { from: 12, to: 24 },
        { from: 24, to: 1 },
      ]);
      await setSessionSettings({ idleHours: 12, maxDays: 30 }, { id: 1, name: "Demo Admin" }, ip);
    });

    it("ends a sign-in after the maximum age (30 days by default) however active, refreshes included", async () => {
      const old = await createSession(2);
      await t.handle.db
        .update(t.handle.schema.sessions)
        .set({ createdAt: Date.now() - 31 * 24 * HOUR, lastSeenAt: Date.now() - 60_000 })
        .where(eq(t.handle.schema.sessions.idHash, hashToken(old.token)));
      expect(await findSession(old.token)).toBeUndefined();
      const aging = await createSession(2);
      await t.handle.db
        .update(t.handle.schema.sessions)
        .set({ createdAt: Date.now() - 31 * 24 * HOUR, lastSeenAt: Date.now() - 60_000 })
        .where(eq(t.handle.schema.sessions.idHash, hashToken(aging.token)));
      expect(await refreshSession(aging.refreshToken)).toEqual({ ok: false, reason: "idle" });
    });

    it("writes lastSeenAt at most once a minute", async () => {
      const s = await createSession(2);
      const recent = Date.now() - 30_000;
      await setLastSeen(s.token, recent);
      await findSession(s.token);
      expect(Number((await row(s.token)).lastSeenAt)).toBe(recent);
      const older = Date.now() - TOUCH_EVERY_MS - 5_000;
      await setLastSeen(s.token, older);
      await findSession(s.token);
      expect(Number((await row(s.token)).lastSeenAt)).toBeGreaterThan(Date.now() - 5_000);
    });

    it("sweeps idle and expired sessions without a request (open tabs lose their sockets)", async () => {
      const idle = await createSession(2);
      const expired = await createSession(2);
      const live = await createSession(2);
      await setLastSeen(idle.token, Date.now() - 13 * HOUR);
      await t.handle.db
        .update(t.handle.schema.sessions)
        .set({ expiresAt: Date.now() - 1 })
        .where(eq(t.handle.schema.sessions.idHash, hashToken(expired.token)));
      expect(await sweepSessions()).toBeGreaterThanOrEqual(2);
      expect(await row(idle.token)).toBeUndefined();
      expect(await row(expired.token)).toBeUndefined();
      expect(await row(live.token)).toBeDefined();
    });

    it("gives a pending two-factor session ten minutes, not a year", async () => {
      const pending = await createSession(2, { mfaPending: true });
      const r = await row(pending.token);
      expect(Number(r.expiresAt) - Number(r.createdAt)).toBe(10 * 60 * 1000);
      expect(await refreshSession(pending.refreshToken)).toEqual({ ok: false, reason: "unknown" });
    });
  });

  describe("own sessions", () => {
    it("lists the user's live sessions with device and address, and signs out one or all others", async () => {
      await t.handle.db.delete(t.handle.schema.sessions).where(eq(t.handle.schema.sessions.userId, 3));
      const me = await createSession(3, { ip: "203.0.113.1", userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" });
      const phone = await createSession(3, {
        ip: "2001:db8::5",
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
      });
      const tablet = await createSession(3, { ip: "203.0.113.3" });
      await createSession(3, { mfaPending: true }); // not signed in: not listed
      const someoneElse = await createSession(2);
      const list = await listUserSessions(3, hashToken(me.token));
      expect(list).toHaveLength(3);
      expect(list.filter((s) => s.current)).toHaveLength(1);
      expect(list.find((s) => s.current)!.ip).toBe("203.0.113.1");
      expect(list.map((s) => describeDevice(s.userAgent)).map((d) => `${d.browser ?? ""}/${d.system ?? ""}`)).toEqual(
        expect.arrayContaining(["Firefox/Linux", "Safari/iPhone", "/"]),
      );
      // the page shows a derived id, never the session's id or its hash
      expect(list.some((s) => s.id === hashToken(me.token) || s.id === me.token)).toBe(false);

      const brian = { id: 3, name: "Brian Agent" };
      const phoneId = list.find((s) => s.ip === "2001:db8::5")!.id;
      // another user's session cannot be signed out by its id
      const otherId = (await listUserSessions(2, ""))[0].id;
      expect(await revokeSession(brian, otherId, ip)).toBe(false);
      expect(await findSession(someoneElse.token)).toBeDefined();

      expect(await revokeSession(brian, phoneId, ip)).toBe(true);
      expect(await findSession(phone.token)).toBeUndefined();
      expect(await findSession(me.token)).toBeDefined();
      expect(await revokeOtherSessions(brian, hashToken(me.token), ip)).toBe(2); // the tablet and the pending one
      expect(await findSession(tablet.token)).toBeUndefined();
      expect(await findSession(me.token)).toBeDefined();
      expect((await audits("session.revoked")).length).toBe(2);
    });
  });

  describe("refresh", () => {
    it("rotates within the family, keeps the sign-in's lifetime, and ends the family when a spent token comes back", async () => {
      const first = await createSession(2, { ip });
      const bystander = await createSession(2, { ip }); // another sign-in of the same user: another family
      const before = await row(first.token);
      const second = await refreshSession(first.refreshToken, { ip: "192.0.2.45" });
      if (!second.ok) throw new Error("refresh failed");
      expect(await findSession(first.token)).toBeUndefined();
      const after = await row(second.token);
      expect(after.familyId).toBe(before.familyId);
      expect(Number(after.expiresAt)).toBe(Number(before.expiresAt));
      expect(after.ip).toBe("192.0.2.45");
      const spent = await t.handle.db
        .select()
        .from(t.handle.schema.spentRefreshTokens)
        .where(eq(t.handle.schema.spentRefreshTokens.hash, hashToken(first.refreshToken)));
      expect(spent).toHaveLength(1);

      const third = await refreshSession(second.refreshToken);
      if (!third.ok) throw new Error("refresh failed");
      // a thief replays the first refresh token a while later: the whole family ends
      await t.handle.db.update(t.handle.schema.spentRefreshTokens).set({ spentAt: Date.now() - 60_000 });
      expect(await refreshSession(first.refreshToken, { ip: "198.51.100.66" })).toEqual({ ok: false, reason: "reused" });
      expect(await findSession(third.token)).toBeUndefined();
      expect(await refreshSession(third.refreshToken)).toMatchObject({ ok: false });
      expect(await findSession(bystander.token)).toBeDefined();
      const [entry] = await audits("session.refresh_reuse");
      expect(entry).toMatchObject({ actorId: 2, ip: "198.51.100.66" });
    });

    it("lets one of several concurrent refreshes with the same token win, and keeps the winner signed in", async () => {
      const s = await createSession(2);
      const results = await Promise.all(Array.from({ length: 5 }, () => refreshSession(s.refreshToken)));
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === "raced")).toHaveLength(4);
      expect(await findSession((winners[0] as { token: string }).token)).toBeDefined();
    });

    it("refuses a disabled user's refresh", async () => {
      const s = await createSession(2);
      await t.handle.db.update(t.handle.schema.users).set({ disabledAt: Date.now() }).where(eq(t.handle.schema.users.id, 2));
      try {
        expect(await refreshSession(s.refreshToken)).toEqual({ ok: false, reason: "disabled" });
      } finally {
        await t.handle.db.update(t.handle.schema.users).set({ disabledAt: null }).where(eq(t.handle.schema.users.id, 2));
      }
    });
  });

  describe("two-factor changes", () => {
    it("need the password, end every other session and are audited", async () => {
      const user = (await findUserByUsername("admin"))!;
      const here = await createSession(1);
      const elsewhere = await createSession(1);
      const secret = authenticator.generateSecret();
      const code = authenticator.generate(secret);
      const keep = { keepIdHash: hashToken(here.token), ip };

      expect(await turnOnTwoFactor(user, { ...keep, password: "wrong", secret, code })).toEqual({ ok: false, code: "password_invalid" });
      expect((await findUserByUsername("admin"))!.totpEnabled).toBe(false);
      expect(await findSession(elsewhere.token)).toBeDefined();

      expect(await turnOnTwoFactor(user, { ...keep, password: DEFAULT_SEED_PASSWORD, secret, code: "12345x" })).toEqual({ ok: false, code: "code_invalid" });
      expect(await turnOnTwoFactor(user, { ...keep, password: DEFAULT_SEED_PASSWORD, secret, code })).toEqual({ ok: true, sessionsEnded: 1 });
      expect((await findUserByUsername("admin"))!.totpEnabled).toBe(true);
      expect(await findSession(elsewhere.token)).toBeUndefined();
      expect(await findSession(here.token)).toBeDefined();

      const on = (await findUserByUsername("admin"))!;
      const another = await createSession(1);
      expect(await turnOffTwoFactor(on, { ...keep, password: "wrong" })).toEqual({ ok: false, code: "password_invalid" });
      expect((await findUserByUsername("admin"))!.totpEnabled).toBe(true);
      expect(await turnOffTwoFactor(on, { ...keep, password: DEFAULT_SEED_PASSWORD })).toEqual({ ok: true, sessionsEnded: 1 });
      expect(await findSession(another.token)).toBeUndefined();
      expect(await findSession(here.token)).toBeDefined();
      expect((await findUserByUsername("admin"))!.totpEnabled).toBe(false);
      expect((await audits("tfa.enabled")).length).toBe(1);
      expect((await audits("tfa.disabled")).length).toBe(1);
    });
  });
});

describe("describeDevice", () => {
  it("names the browser and the system of common agents", () => {
    expect(
      describeDevice("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0"),
    ).toMatchObject({
      browser: "Edge",
      system: "Windows",
    });
    expect(
      describeDevice("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"),
    ).toMatchObject({
      browser: "Chrome",
      system: "macOS",
    });
    expect(describeDevice("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36")).toMatchObject({
      browser: "Chrome",
      system: "Android",
    });
    expect(describeDevice("")).toEqual({ browser: undefined, system: undefined, raw: "" });
  });
});
