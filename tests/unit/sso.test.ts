// Single sign-on: who a sign-in is (the matching rules), the providers an admin saves, the code
// flow and token sign-in, against a real OpenID Provider on loopback (tests/support/oidc-standin.ts).
import { unseal } from "~/secrets.server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startOidcStandin, type OidcStandin } from "../support/oidc-standin";
import {
  finishSignIn,
  listProviders,
  matchUser,
  removeProvider,
  saveProvider,
  setProviderEnabled,
  ssoSession,
  startSignIn,
  verifyIdToken,
  type ProviderInput,
} from "~/accounts/sso.server";
import { findSession } from "~/accounts/sessions.server";

const ORIGIN = "http://omnidesk.test";
const actor = { id: 1, name: "admin" };
const ip = "203.0.113.9";

describe.each(DIALECTS)("single sign-on on %s", (dialect) => {
  let t: TestDb;
  let standin: OidcStandin;
  const ids: Record<string, number> = {};

  async function addUser(username: string, email: string, disabled = false) {
    const { db, schema } = t.handle;
    const [row] = await db
      .insert(schema.users)
      .values({ username, name: username, type: "agent", passwordHash: "x", email, disabledAt: disabled ? Date.now() : null, createdAt: Date.now() })
      .returning({ id: schema.users.id });
    ids[username] = row.id;
  }

  async function identities(userId: number) {
    const { db, schema } = t.handle;
    return db.select().from(schema.userIdentities).where(eq(schema.userIdentities.userId, userId));
  }

  async function auditActions() {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.auditLog)).map((a) => a.action);
  }

  const input = (over: Partial<ProviderInput> = {}): ProviderInput => ({
    name: "Stand-in",
    issuer: standin.issuer,
    clientId: standin.clientId,
    clientSecret: standin.clientSecret,
    scopes: "openid email profile",
    ...over,
  });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    standin = await startOidcStandin({
      redirectUris: Array.from({ length: 10 }, (_, i) => `${ORIGIN}/sso/${i + 1}/callback`),
      accounts: [
        { sub: "alice-sub", email: "Alice@Example.test", email_verified: true },
        { sub: "mallory-sub", email: "alice@example.test", email_verified: false },
        { sub: "stranger-sub", email: "nobody@example.test", email_verified: true },
      ],
    });
    await addUser("alice", "alice@example.test");
    await addUser("bob", "bob@example.test", true);
    await addUser("noemail", "");
  });
  afterAll(async () => {
    await standin?.close();
    await t?.cleanup();
  });

  describe("who a sign-in is", () => {
    let providerId: number;
    beforeAll(async () => {
      const { db, schema } = t.handle;
      const [row] = await db
        .insert(schema.oidcProviders)
        .values({ name: "Rules", issuer: "https://rules.example", clientId: "c", clientSecret: "s", createdAt: Date.now() })
        .returning({ id: schema.oidcProviders.id });
      providerId = row.id;
    });

    it("links the one active user whose email equals the provider's verified email, whatever its case", async () => {
      const result = await matchUser(providerId, { sub: "a-1", email: " Alice@EXAMPLE.test", email_verified: true });
      expect(result).toMatchObject({ ok: true, linked: true, user: { username: "alice" } });
      expect((await identities(ids.alice)).map((i) => i.subject)).toEqual(["a-1"]);
      expect(await auditActions()).toContain("sso.identity_linked");
    });

    it("signs a linked subject in by its link, even when the provider's email changed", async () => {
      const result = await matchUser(providerId, { sub: "a-1", email: "alice.new@example.test", email_verified: false });
      expect(result).toMatchObject({ ok: true, linked: false, user: { username: "alice" } });
    });

    it("refuses an email the provider did not verify, and links nothing", async () => {
      for (const email_verified of [false, undefined, "true"]) {
        const result = await matchUser(providerId, { sub: `m-${String(email_verified)}`, email: "alice@example.test", email_verified });
        expect(result).toEqual({ ok: false, reason: "no_match" });
      }
      expect((await identities(ids.alice)).map((i) => i.subject)).toEqual(["a-1"]);
    });

    it("refuses when no account, or more than one, has the email; never creates a user", async () => {
      const { db, schema } = t.handle;
      const before = (await db.select().from(schema.users)).length;
      expect(await matchUser(providerId, { sub: "s-1", email: "nobody@example.test", email_verified: true })).toEqual({ ok: false, reason: "no_match" });
      expect(await matchUser(providerId, { sub: "s-3", email: "", email_verified: true })).toEqual({ ok: false, reason: "no_match" });
      expect((await db.select().from(schema.users)).length).toBe(before);
    });

    it("refuses a disabled user, by email and by an earlier link", async () => {
      expect(await matchUser(providerId, { sub: "b-1", email: "bob@example.test", email_verified: true })).toEqual({ ok: false, reason: "disabled" });
      const { db, schema } = t.handle;
      await db.update(schema.users).set({ disabledAt: Date.now() }).where(eq(schema.users.id, ids.alice));
      expect(await matchUser(providerId, { sub: "a-1" })).toEqual({ ok: false, reason: "disabled" });
      await db.update(schema.users).set({ disabledAt: null }).where(eq(schema.users.id, ids.alice));
      expect(await matchUser(providerId, { sub: "a-1" })).toMatchObject({ ok: true });
    });
  });

  describe("providers and sign-in against the stand-in", () => {
    let providerId: number;

    it("refuses to save an issuer that answers no discovery, and saves one that does", async () => {
      const wrong = await saveProvider(input({ issuer: `${standin.issuer}/nothing-here` }), actor, ip);
      expect(wrong).toEqual({ ok: false, field: "issuer", error: "sso.errors.discovery" });
      const saved = await saveProvider(input(), actor, ip);
      expect(saved.ok).toBe(true);
      providerId = saved.ok ? saved.id : 0;
      const [listed] = (await listProviders()).filter((p) => p.id === providerId);
      expect(listed).toMatchObject({ name: "Stand-in", issuer: standin.issuer, hasSecret: true, enabled: true });
      expect(listed).not.toHaveProperty("clientSecret");
      expect(await auditActions()).toContain("sso.provider_added");
    });

    it("keeps the stored secret, sealed, when an edit leaves it empty", async () => {
      expect(await saveProvider(input({ name: "Stand-in IdP", clientSecret: "" }), actor, ip, providerId)).toEqual({ ok: true, id: providerId });
      const { db, schema } = t.handle;
      const [row] = await db.select().from(schema.oidcProviders).where(eq(schema.oidcProviders.id, providerId));
      expect(row.name).toBe("Stand-in IdP");
      expect(row.clientSecret).not.toContain(standin.clientSecret);
      expect(unseal(row.clientSecret)).toBe(standin.clientSecret);
    });

    it("signs in through the authorization code flow with PKCE, state and nonce", async () => {
      standin.signInAs("alice-sub");
      const start = await startSignIn(providerId, ORIGIN);
      if (!start.ok) throw new Error(start.reason);
      const authorize = new URL(start.url);
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorize.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/sso/${providerId}/callback`);
      const callback = await followToCallback(start.url, ORIGIN);
      const result = await finishSignIn(providerId, callback, start.flow, ORIGIN, ip);
      expect(result).toMatchObject({ ok: true, user: { username: "alice" } });

      // the same answer cannot be replayed with another browser's flow
      const other = await startSignIn(providerId, ORIGIN);
      if (!other.ok) throw new Error(other.reason);
      expect(await finishSignIn(providerId, callback, other.flow, ORIGIN, ip)).toEqual({ ok: false, reason: "state" });
      expect(await finishSignIn(providerId, callback, undefined, ORIGIN, ip)).toEqual({ ok: false, reason: "state" });
    });

    it("refuses an unverified email at the provider, and reports a cancelled sign-in", async () => {
      standin.signInAs("mallory-sub");
      const start = await startSignIn(providerId, ORIGIN);
      if (!start.ok) throw new Error(start.reason);
      expect(await finishSignIn(providerId, await followToCallback(start.url, ORIGIN), start.flow, ORIGIN, ip)).toEqual({ ok: false, reason: "no_match" });
      expect(await auditActions()).toContain("signin.failed");

      standin.signInAs("deny");
      const denied = await startSignIn(providerId, ORIGIN);
      if (!denied.ok) throw new Error(denied.reason);
      expect(await finishSignIn(providerId, await followToCallback(denied.url, ORIGIN), denied.flow, ORIGIN, ip)).toEqual({ ok: false, reason: "denied" });
    });

    it("accepts an ID token the provider issued to our client once, and refuses every other", async () => {
      const good = await standin.mintIdToken({ sub: "alice-sub", email: "alice@example.test" });
      const result = await verifyIdToken(good, ip);
      expect(result).toMatchObject({ ok: true, user: { username: "alice" } });
      if (!result.ok) return;
      const { token, pending } = await ssoSession(result, { ip, userAgent: "test", method: "sso_token", allowPending: true });
      expect(pending).toBe(false);
      expect((await findSession(token))?.user.username).toBe("alice");
      expect(await auditActions()).toContain("signin.ok");

      expect(await verifyIdToken(good, ip)).toEqual({ ok: false, reason: "invalid_token" });
      const refused = [
        await standin.mintIdToken({ sub: "alice-sub" }, { audience: "another-app" }),
        await standin.mintIdToken({ sub: "alice-sub" }, { expiresIn: Math.floor(Date.now() / 1000) - 120 }),
        await standin.mintIdToken({ sub: "alice-sub" }, { foreignKey: true }),
        "not-a-token",
      ];
      for (const token of refused) expect(await verifyIdToken(token, ip)).toEqual({ ok: false, reason: "invalid_token" });
      // a verified token of an unknown person still finds no account
      expect(await verifyIdToken(await standin.mintIdToken({ sub: "stranger-sub", email: "nobody@example.test" }), ip)).toEqual({
        ok: false,
        reason: "no_match",
      });
    });

    it("still asks a two-factor user for the code: a pending session, or a refusal that leaves the token unspent", async () => {
      const { db, schema } = t.handle;
      await db.update(schema.users).set({ totpEnabled: true, totpSecret: "JBSWY3DPEHPK3PXP" }).where(eq(schema.users.id, ids.alice));
      const token = await standin.mintIdToken({ sub: "alice-sub" });
      expect(await verifyIdToken(token, ip, async (user) => (user.totpEnabled ? "tfa_required" : undefined))).toEqual({ ok: false, reason: "tfa_required" });
      const result = await verifyIdToken(token, ip);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const session = await ssoSession(result, { ip, userAgent: "test", method: "sso", allowPending: true });
      expect(session.pending).toBe(true);
      expect(await findSession(session.token)).toBeUndefined();
      expect((await findSession(session.token, { mfaPending: true }))?.user.username).toBe("alice");
      await db.update(schema.users).set({ totpEnabled: false, totpSecret: null }).where(eq(schema.users.id, ids.alice));
    });

    it("offers a turned-off provider to nobody, and forgets the links of a removed one", async () => {
      await setProviderEnabled(providerId, false, actor, ip);
      expect(await startSignIn(providerId, ORIGIN)).toEqual({ ok: false, reason: "unknown_provider" });
      expect(await verifyIdToken(await standin.mintIdToken({ sub: "alice-sub" }), ip)).toEqual({ ok: false, reason: "invalid_token" });
      await setProviderEnabled(providerId, true, actor, ip);
      expect(await removeProvider(providerId, actor, ip)).toBe(true);
      const { db, schema } = t.handle;
      const left = await db
        .select()
        .from(schema.userIdentities)
        .where(and(eq(schema.userIdentities.providerId, providerId), eq(schema.userIdentities.userId, ids.alice)));
      expect(left).toEqual([]);
      expect(await auditActions()).toContain("sso.provider_removed");
    });
  });
});

/** Plays the browser: follows the provider's redirects (keeping its cookies) until it sends us back. */
async function followToCallback(start: string, origin: string) {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(origin)) return new URL(url);
    const res = await fetch(url, { redirect: "manual", headers: { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = res.headers.get("Location");
    if (!location) throw new Error(`no redirect from ${url}: ${res.status} ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error("too many redirects");
}
