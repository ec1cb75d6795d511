// Model behaviour on both dialects: the same code must act the same on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticator } from "otplib";
import { eq, sql } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { CHANNELS, seedDemo, DEFAULT_SEED_PASSWORD } from "~/seed/seed";
import { authenticate, consumeTotp, LOGIN_FAILURES_ALLOWED, newTotpSecret, turnOnTwoFactor } from "~/accounts/auth.server";
import { unseal } from "~/secrets.server";
import { createSession, deleteSession, findSession, refreshSession } from "~/accounts/sessions.server";
import { editionForHost, listEditions, saveEdition } from "~/models/editions.server";
import { findUserByUsername } from "~/accounts/users.server";
import { getWorkspace, setSetting } from "~/models/settings.server";

const NOW = Date.UTC(2026, 10, 21, 12);
const ip = "203.0.113.7";

describe.each(DIALECTS)("models on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 300, now: NOW });
  });
  afterAll(async () => t?.cleanup());

  describe("seed", () => {
    it("creates the demo users, departments and labels", async () => {
      const { db, schema } = t.handle;
      const users = await db.select().from(schema.users).orderBy(schema.users.id);
      expect(users.map((u) => [u.username, u.type, u.name])).toEqual([
        ["admin", "admin", "Demo Admin"],
        ["agent", "agent", "Alya Agent"],
        ["agent2", "agent", "Brian Agent"],
      ]);
      expect((await db.select().from(schema.departments)).map((d) => d.name).sort()).toEqual(["Billing", "Sales", "Support"]);
      expect((await db.select().from(schema.labels)).length).toBeGreaterThan(3);
      const tokens = await db.select().from(schema.publicTokens);
      expect(tokens.map((x) => `${x.kind}:${x.token}`).sort()).toEqual(["livechat:demo", "new_ticket:demo", "survey:demo"]);
    });

    it("spreads tickets over all channels and the last 90 days, with messages", async () => {
      const { db, schema } = t.handle;
      const rows = await db.select({ channel: schema.tickets.channel, createdAt: schema.tickets.createdAt }).from(schema.tickets);
      expect(rows).toHaveLength(300);
      expect(new Set(rows.map((r) => r.channel))).toEqual(new Set(CHANNELS));
      const ninetyDays = 90 * 24 * 3600 * 1000;
      expect(rows.every((r) => r.createdAt <= NOW && r.createdAt >= NOW - ninetyDays)).toBe(true);
      const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(schema.messages);
      expect(Number(n)).toBeGreaterThanOrEqual(300);
      const statuses = await db.selectDistinct({ s: schema.tickets.status }).from(schema.tickets);
      expect(statuses.map((s) => s.s).sort()).toEqual([0, 1, 2, 3]);
    });

    it("is deterministic: the same data on every dialect for the same day", async () => {
      const { db, schema } = t.handle;
      const first = await db.select().from(schema.tickets).where(eq(schema.tickets.id, 1));
      expect(first[0].ticketNumber).toBe(100001);
      // a fingerprint of all titles, statuses and times, identical on SQLite and PostgreSQL
      const rows = await db
        .select({ title: schema.tickets.title, status: schema.tickets.status, at: schema.tickets.createdAt })
        .from(schema.tickets)
        .orderBy(schema.tickets.id);
      const fingerprint = rows.reduce((h, r) => (h * 31 + r.title.length * 7 + r.status + (r.at % 997)) % 1_000_000_007, 7);
      expect(fingerprint).toBe(584121963);
    });
  });

  describe("sign-in", () => {
    it("accepts the right password and type, refuses the rest", async () => {
      expect((await authenticate({ username: "admin", password: DEFAULT_SEED_PASSWORD, type: "admin", ip })).ok).toBe(true);
      expect(await authenticate({ username: "admin", password: "nope", type: "admin", ip })).toMatchObject({ ok: false, code: "invalid" });
      expect(await authenticate({ username: "admin", password: DEFAULT_SEED_PASSWORD, type: "agent", ip })).toMatchObject({ ok: false, code: "invalid" });
      expect(await authenticate({ username: "ghost", password: "x", type: "agent", ip })).toMatchObject({ ok: false, code: "invalid" });
      // one account whatever the case typed (usernames are unique that way)
      expect(await authenticate({ username: "AdMin", password: DEFAULT_SEED_PASSWORD, type: "admin", ip })).toMatchObject({
        ok: true,
        user: { username: "admin" },
      });
      // not ASCII: no account (PostgreSQL's lower() would fold "İ" to "i" and give one account two counters)
      expect(await authenticate({ username: "ADMİN", password: DEFAULT_SEED_PASSWORD, type: "admin", ip })).toMatchObject({ ok: false, code: "invalid" });
    });

    it("stores passwords as slow salted hashes", async () => {
      const user = await findUserByUsername("agent");
      expect(user!.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
      expect(user!.passwordHash).not.toContain(DEFAULT_SEED_PASSWORD);
    });

    it("locks an account after too many failures from any address, even for the right password", async () => {
      const who = { username: "agent", type: "agent" as const };
      for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) await authenticate({ ...who, ip: `198.51.100.${i + 1}`, password: "wrong" });
      expect(await authenticate({ ...who, ip: "192.0.2.99", password: DEFAULT_SEED_PASSWORD })).toMatchObject({ ok: false, code: "rate_limited" });
      // another account is not affected (tests/unit/sign-in-throttle.test.ts has the rest)
      expect((await authenticate({ username: "admin", type: "admin", ip: "192.0.2.99", password: DEFAULT_SEED_PASSWORD })).ok).toBe(true);
    });

    it("asks for a TOTP code, accepts it once and refuses its reuse", async () => {
      const user = (await findUserByUsername("agent2"))!;
      const secret = newTotpSecret();
      const turnOn = (code: string) => turnOnTwoFactor(user, { password: DEFAULT_SEED_PASSWORD, secret, code, keepIdHash: "", ip });
      expect((await turnOn("000000")).ok).toBe(authenticator.check("000000", secret));
      // one code kept: a fresh generate() may fall in the next 30 s step, which is unspent
      const onCode = authenticator.generate(secret);
      expect(await turnOn(onCode)).toMatchObject({ ok: true });
      // kept sealed: the database does not show the seed
      const stored = (await findUserByUsername("agent2"))!.totpSecret!;
      expect(stored).not.toContain(secret);
      expect(unseal(stored)).toBe(secret);
      const login = { username: "agent2", password: DEFAULT_SEED_PASSWORD, type: "agent" as const, ip };
      expect(await authenticate(login)).toMatchObject({ ok: false, code: "tfa_required" });
      // the code used to switch 2FA on is spent already
      expect(await authenticate({ ...login, code: onCode })).toMatchObject({ ok: false, code: "tfa_invalid" });
      const next = authenticator.clone({ epoch: Date.now() + 30_000 }).generate(secret);
      expect((await authenticate({ ...login, code: next })).ok).toBe(true);
      expect(await authenticate({ ...login, code: next })).toMatchObject({ ok: false, code: "tfa_invalid" });
    });

    it("lets only one of two concurrent logins use the same code", async () => {
      const user = (await findUserByUsername("agent2"))!;
      const secret = unseal(user.totpSecret)!;
      const code = authenticator.clone({ epoch: Date.now() + 60_000 }).generate(secret);
      // window 1 accepts one step ahead only; step back the last-used step so +1 is acceptable
      await t.handle.db.update(t.handle.schema.users).set({ totpLastStep: 0 }).where(eq(t.handle.schema.users.id, user.id));
      const inWindow = authenticator.clone({ epoch: Date.now() + 30_000 }).generate(secret);
      const results = await Promise.all([consumeTotp(user, inWindow), consumeTotp(user, inWindow)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await consumeTotp(user, code)).toBe(false); // two steps ahead: outside the window
    });
  });

  describe("sessions", () => {
    it("finds, refreshes and deletes sessions; pending two-factor sessions do not sign in", async () => {
      const { token, refreshToken } = await createSession(2);
      expect((await findSession(token))?.user.username).toBe("agent");
      const pending = await createSession(2, { mfaPending: true });
      expect(await findSession(pending.token)).toBeUndefined();
      expect((await findSession(pending.token, { mfaPending: true }))?.user.id).toBe(2);

      const renewed = await refreshSession(refreshToken);
      if (!renewed.ok) throw new Error(`refresh refused: ${renewed.reason}`);
      expect(await findSession(token)).toBeUndefined();
      expect((await findSession(renewed.token))?.user.id).toBe(2);
      expect((await refreshSession(refreshToken)).ok).toBe(false);

      await deleteSession(renewed.token);
      expect(await findSession(renewed.token)).toBeUndefined();
    });

    it("refuses an expired refresh token, and gives one token once under concurrency", async () => {
      const expired = await createSession(3);
      await t.handle.db
        .update(t.handle.schema.sessions)
        .set({ expiresAt: Date.now() - 1 })
        .where(eq(t.handle.schema.sessions.userId, 3));
      expect((await refreshSession(expired.refreshToken)).ok).toBe(false);
      const live = await createSession(3);
      const results = await Promise.all([refreshSession(live.refreshToken), refreshSession(live.refreshToken)]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    });

    it("keeps only a hash of the token and lasts about a year", async () => {
      const { token } = await createSession(1);
      const rows = await t.handle.db.select().from(t.handle.schema.sessions);
      expect(rows.some((r) => r.idHash === token)).toBe(false);
      const row = rows.find((r) => r.userId === 1)!;
      expect(row.expiresAt - row.createdAt).toBe(365 * 24 * 3600 * 1000);
    });
  });

  describe("editions", () => {
    it("chooses the edition by host and falls back to the default", async () => {
      expect((await editionForHost("support.example.com")).id).toBe("support");
      expect((await editionForHost("call.localhost:3000")).id).toBe("callcentre");
      expect((await editionForHost("trade.acme.io")).id).toBe("trading");
      expect((await editionForHost("helpdesk.acme.io")).id).toBe("default");
      expect((await editionForHost(null)).id).toBe("default");
    });

    it("stores admin toggles and host patterns over the edition file", async () => {
      const before = (await listEditions()).find((e) => e.id === "support")!;
      expect(before.enabled).toContain("kanban");
      await saveEdition("support", before.enabled.filter((p) => p !== "kanban").concat("calls"), ["help.acme.io", "support.*"]);
      const after = await editionForHost("help.acme.io");
      expect(after.id).toBe("support");
      expect(after.enabled).not.toContain("kanban");
      expect(after.enabled).toContain("calls");
      await saveEdition("support", before.enabled, before.hosts);
      expect((await editionForHost("help.acme.io")).id).toBe("default");
    });

    it("refuses an unknown edition without writing anything", async () => {
      await expect(saveEdition("nope", [], [])).rejects.toThrow();
      const rows = await t.handle.db.select().from(t.handle.schema.pluginToggles).where(eq(t.handle.schema.pluginToggles.editionId, "nope"));
      expect(rows).toHaveLength(0);
    });
  });

  describe("settings", () => {
    it("reads defaults and stored values", async () => {
      expect(await getWorkspace()).toMatchObject({ adminName: "Demo Admin", plan: 3, accountType: 1, expiresAt: null });
      await setSetting("account_type", "0");
      expect((await getWorkspace()).accountType).toBe(0);
      await setSetting("account_type", "1");
    });
  });
});
