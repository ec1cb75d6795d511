// Brute force (issue 15, item 5): the sign-in limits are counted in the database before any
// password or code is checked, per account and per network; on SQLite and PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { authenticator } from "otplib";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";

// a small network limit keeps the scrypt work of the test short; set before the modules load
const checks = vi.hoisted(() => {
  process.env.LOGIN_NETWORK_FAILURES_ALLOWED = "12";
  delete process.env.LOGIN_FAILURES_ALLOWED;
  return { passwords: 0 };
});
vi.mock("~/accounts/password.server", async (importOriginal) => {
  const real = await importOriginal<typeof import("~/accounts/password.server")>();
  return {
    ...real,
    verifyPassword: async (password: string, stored: string) => {
      checks.passwords++;
      return real.verifyPassword(password, stored);
    },
  };
});

import { seedDemo, DEFAULT_SEED_PASSWORD } from "~/seed/seed";
import { authenticate, LOGIN_FAILURES_ALLOWED, reauthenticate, TFA_TRIES_PER_SESSION, verifySecondFactor } from "~/accounts/auth.server";
import { createSession, findSession } from "~/accounts/sessions.server";
import { NETWORK_LIMIT, networkOf } from "~/accounts/throttle.server";
import { findUserByUsername } from "~/accounts/users.server";

const PASSWORD = DEFAULT_SEED_PASSWORD;
// every test checks a dozen or more scrypt hashes: on a busy runner one took over 30 s, and its
// checks, still running after the timeout, were then counted by the next test
vi.setConfig({ testTimeout: 120_000 });

describe("networkOf", () => {
  it("keeps an IPv4 address and cuts IPv6 to its /64", () => {
    expect(networkOf("203.0.113.9")).toBe("203.0.113.9");
    expect(networkOf("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(networkOf("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(networkOf("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(networkOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(networkOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(networkOf("::1")).toBe("0:0:0:0::/64");
  });
});

describe.each(DIALECTS)("sign-in throttle on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 5 });
  });
  afterAll(async () => t?.cleanup());
  beforeEach(async () => {
    await t.handle.db.delete(t.handle.schema.authThrottle);
    checks.passwords = 0;
  });

  const failures = async (action = "signin.failed") =>
    (await t.handle.db.select().from(t.handle.schema.auditLog).where(eq(t.handle.schema.auditLog.action, action))).map((r) => ({
      ...r,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    }));

  it("checks no more passwords than the limit when 50 wrong attempts arrive at once from 50 addresses", async () => {
    expect(LOGIN_FAILURES_ALLOWED).toBe(10);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => authenticate({ username: "agent", password: `wrong-${i}`, type: "agent", ip: `198.51.100.${i + 1}` })),
    );
    expect(checks.passwords).toBeLessThanOrEqual(LOGIN_FAILURES_ALLOWED);
    expect(results.filter((r) => !r.ok && r.code === "invalid")).toHaveLength(LOGIN_FAILURES_ALLOWED);
    expect(results.filter((r) => !r.ok && r.code === "rate_limited")).toHaveLength(50 - LOGIN_FAILURES_ALLOWED);
    // locked for the window, right password or not, from any address; the username's case does not matter
    checks.passwords = 0;
    const right = await authenticate({ username: "Agent", password: PASSWORD, type: "agent", ip: "192.0.2.200" });
    expect(right).toMatchObject({ ok: false, code: "rate_limited" });
    expect((right as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect(checks.passwords).toBe(0);
    const reasons = (await failures()).map((f) => f.detail.reason);
    expect(reasons.filter((r) => r === "password")).toHaveLength(10);
    expect(reasons.filter((r) => r === "locked").length).toBeGreaterThanOrEqual(40);
    // never the password
    expect(JSON.stringify(await failures())).not.toContain("wrong-");
  });

  it("unlocks when the window has passed, and a success clears the account's count", async () => {
    // each attempt from its own address: only the account's counter is at work here
    let n = 0;
    const attempt = (password: string) => authenticate({ username: "agent", password, type: "agent", ip: `198.18.0.${++n}` });
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) await attempt("nope");
    expect(await attempt(PASSWORD)).toMatchObject({ code: "rate_limited" });
    const { db, schema } = t.handle;
    await db
      .update(schema.authThrottle)
      .set({ windowStart: Date.now() - 16 * 60 * 1000 })
      .where(eq(schema.authThrottle.key, "acct:agent"));
    expect((await attempt(PASSWORD)).ok).toBe(true);
    expect(await db.select().from(schema.authThrottle).where(eq(schema.authThrottle.key, "acct:agent"))).toHaveLength(0);
    // nine wrong, one right, nine wrong, one right: never locked
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < LOGIN_FAILURES_ALLOWED - 1; i++) await attempt("nope");
      expect((await attempt(PASSWORD)).ok).toBe(true);
    }
  });

  it("limits a network: IPv6 addresses of one /64 count together, other networks are not affected", async () => {
    expect(NETWORK_LIMIT).toBe(12);
    // a different account each time, so only the network's counter can stop them
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => authenticate({ username: `ghost${i}`, password: "x", type: "agent", ip: `2001:db8:1:2::${(i + 1).toString(16)}` })),
    );
    expect(checks.passwords).toBeLessThanOrEqual(NETWORK_LIMIT);
    expect(results.filter((r) => !r.ok && r.code === "rate_limited")).toHaveLength(30 - NETWORK_LIMIT);
    // a fresh address of the same /64 is refused, even with the right password
    expect(await authenticate({ username: "agent2", password: PASSWORD, type: "agent", ip: "2001:db8:1:2:ffff::9" })).toMatchObject({ code: "rate_limited" });
    // the next /64 is another network
    expect((await authenticate({ username: "agent2", password: PASSWORD, type: "agent", ip: "2001:db8:1:3::1" })).ok).toBe(true);
  });

  it("does not count right passwords against a network (many colleagues behind one address)", async () => {
    for (let i = 0; i < NETWORK_LIMIT + 5; i++)
      expect((await authenticate({ username: "agent2", password: PASSWORD, type: "agent", ip: "192.0.2.50" })).ok).toBe(true);
  });

  it("keeps the lock across a restart: the state is in the database, not in the process", async () => {
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) await authenticate({ username: "admin", password: "nope", type: "admin", ip: "192.0.2.7" });
    vi.resetModules();
    const fresh = await import("~/accounts/auth.server");
    expect(await fresh.authenticate({ username: "admin", password: PASSWORD, type: "admin", ip: "192.0.2.7" })).toMatchObject({
      ok: false,
      code: "rate_limited",
    });
  });

  it("answers a disabled user as a wrong password, and audits why", async () => {
    const { db, schema } = t.handle;
    await db.update(schema.users).set({ disabledAt: Date.now() }).where(eq(schema.users.username, "agent2"));
    try {
      expect(await authenticate({ username: "agent2", password: PASSWORD, type: "agent", ip: "192.0.2.9" })).toEqual({ ok: false, code: "invalid" });
      expect((await failures()).some((f) => f.detail.reason === "disabled" && f.ip === "192.0.2.9")).toBe(true);
    } finally {
      await db.update(schema.users).set({ disabledAt: null }).where(eq(schema.users.username, "agent2"));
    }
  });

  describe("two-factor", () => {
    let secret: string;
    beforeAll(async () => {
      secret = authenticator.generateSecret();
      await t.handle.db
        .update(t.handle.schema.users)
        .set({ totpSecret: secret, totpEnabled: true, totpLastStep: 0 })
        .where(eq(t.handle.schema.users.username, "admin"));
    });
    afterAll(async () => {
      await t.handle.db.update(t.handle.schema.users).set({ totpSecret: null, totpEnabled: false }).where(eq(t.handle.schema.users.username, "admin"));
    });
    const wrong = () => ["000000", "111111", "222222", "333333"].find((c) => authenticator.checkDelta(c, secret) === null)!;

    async function pending() {
      const { token } = await createSession(1, { mfaPending: true });
      return { token, auth: (await findSession(token, { mfaPending: true }))! };
    }

    it("ends the pending session after five wrong codes, even when they arrive at once", async () => {
      const { token, auth } = await pending();
      const results = await Promise.all(Array.from({ length: 12 }, () => verifySecondFactor(auth, wrong(), "192.0.2.20")));
      expect(results.filter((r) => !r.ok && r.code === "tfa_invalid")).toHaveLength(TFA_TRIES_PER_SESSION - 1);
      expect(results.every((r) => !r.ok && ["tfa_invalid", "tfa_locked"].includes(r.code))).toBe(true);
      expect(await findSession(token, { mfaPending: true })).toBeUndefined();
      // the right code on the ended session is no use
      expect(await verifySecondFactor(auth, authenticator.generate(secret), "192.0.2.20")).toMatchObject({ ok: false, code: "tfa_locked" });
    });

    it("counts wrong codes toward the account's limit", async () => {
      // two pending sessions, five codes each: the account's limit (10) is reached too
      for (let round = 0; round < 2; round++) {
        const { auth } = await pending();
        for (let i = 0; i < TFA_TRIES_PER_SESSION; i++) await verifySecondFactor(auth, wrong(), "192.0.2.21");
      }
      const [row] = await t.handle.db.select().from(t.handle.schema.authThrottle).where(eq(t.handle.schema.authThrottle.key, "acct:admin"));
      expect(row.failures).toBe(10);
      const { auth } = await pending();
      expect(await verifySecondFactor(auth, authenticator.generate(secret), "192.0.2.21")).toMatchObject({ ok: false, code: "rate_limited" });
      expect(await authenticate({ username: "admin", password: PASSWORD, type: "admin", ip: "192.0.2.22" })).toMatchObject({ code: "rate_limited" });
    });

    it("keeps the account's slot taken after the password step, until the code is right", async () => {
      expect(await authenticate({ username: "admin", password: PASSWORD, type: "admin", ip: "192.0.2.23" })).toMatchObject({ code: "tfa_required" });
      const [row] = await t.handle.db.select().from(t.handle.schema.authThrottle).where(eq(t.handle.schema.authThrottle.key, "acct:admin"));
      expect(row.failures).toBe(1);
      const { auth } = await pending();
      expect(await verifySecondFactor(auth, authenticator.generate(secret), "192.0.2.23")).toEqual({ ok: true });
      expect(await t.handle.db.select().from(t.handle.schema.authThrottle).where(eq(t.handle.schema.authThrottle.key, "acct:admin"))).toHaveLength(0);
    });
  });

  it("limits the password check before a sensitive change with the account's counter", async () => {
    const user = (await findUserByUsername("agent"))!;
    const results = await Promise.all(Array.from({ length: 15 }, () => reauthenticate(user, "nope", "192.0.2.30", "tfa_disable")));
    expect(results.filter((r) => !r.ok && r.code === "invalid")).toHaveLength(LOGIN_FAILURES_ALLOWED);
    expect(await reauthenticate(user, PASSWORD, "192.0.2.30", "tfa_disable")).toMatchObject({ ok: false, code: "rate_limited" });
    // and sign-in is locked by the same counter
    expect(await authenticate({ username: "agent", password: PASSWORD, type: "agent", ip: "192.0.2.31" })).toMatchObject({ code: "rate_limited" });
    const rows = await t.handle.db
      .select()
      .from(t.handle.schema.auditLog)
      .where(and(eq(t.handle.schema.auditLog.action, "signin.failed"), eq(t.handle.schema.auditLog.ip, "192.0.2.30")));
    expect(rows.length).toBe(16);
  });
});
