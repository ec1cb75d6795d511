// Single sign-on with OpenID Connect: the providers an admin adds, the browser's authorization
// code flow with PKCE (openid-client), token sign-in with a provider's ID token (jose), and the
// one rule of who a sign-in is. Users are never created here: a sign-in finds an existing account.
import { createHash } from "node:crypto";
import { createCookie, redirect } from "@remix-run/node";
import { and, asc, eq, lt } from "drizzle-orm";
import * as oidc from "openid-client";
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from "jose";
import { z } from "zod";
import { getDb } from "@db/client";
import { sessionCookie } from "~/cookies.server";
import { seal, unseal } from "~/secrets.server";
import { safeRedirect } from "~/forms";
import { log } from "~/ops/log.server";
import { audit } from "./audit.server";
import { createSession, hashToken } from "./sessions.server";
import type { UserRow } from "./users.server";

export const DEFAULT_SCOPES = "openid email profile";
/** How long a started sign-in may take at the provider. */
const FLOW_TTL_SECONDS = 10 * 60;
/** Discovered provider metadata is kept this long (keys rotate; an admin's change is seen at once). */
const CONFIG_TTL_MS = 60 * 60 * 1000;
/** Seconds a provider may take to answer discovery, the token exchange or its keys. */
const PROVIDER_TIMEOUT_SECONDS = 10;

export type SsoProvider = typeof import("@db/schema/sqlite").oidcProviders.$inferSelect;
type Actor = { id: number; name: string };

/** Why a sign-in was refused; each has its text under sso.error.* */
export const SIGN_IN_ERRORS = [
  "no_match",
  "disabled",
  "denied",
  "state",
  "failed",
  "unavailable",
  "unknown_provider",
  "invalid_token",
  "tfa_required",
  "tfa_invalid",
] as const;
export type SignInError = (typeof SIGN_IN_ERRORS)[number];
export const isSignInError = (value: unknown): value is SignInError => (SIGN_IN_ERRORS as readonly unknown[]).includes(value);

// ---------------------------------------------------------------------------------------------
// Providers (the admin page)

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** Plain HTTP is allowed only for a provider on this machine (a local stand-in), never across a network. */
export const insecureAllowed = (url: URL) => url.protocol === "http:" && LOOPBACK.has(url.hostname);

/** The add and edit form. A function, so the browser bundle drops it with the action. */
export function providerSchema() {
  return z.object({
    name: z.string().trim().min(1, "sso.errors.nameRequired").max(60, "sso.errors.nameTooLong"),
    issuer: z
      .string()
      .trim()
      .min(1, "sso.errors.issuerRequired")
      .max(500, "sso.errors.issuerInvalid")
      .superRefine((value, ctx) => {
        let url: URL;
        try {
          url = new URL(value);
        } catch {
          return void ctx.addIssue({ code: "custom", message: "sso.errors.issuerInvalid" });
        }
        if (url.protocol !== "https:" && !insecureAllowed(url)) ctx.addIssue({ code: "custom", message: "sso.errors.issuerHttps" });
        else if (url.search || url.hash || url.username) ctx.addIssue({ code: "custom", message: "sso.errors.issuerInvalid" });
      }),
    clientId: z.string().trim().min(1, "sso.errors.clientIdRequired").max(300, "sso.errors.clientIdRequired"),
    // write-only: empty on an edit keeps the stored one
    clientSecret: z.string().trim().max(2000, "sso.errors.secretTooLong"),
    scopes: z
      .string()
      .transform((s) => s.trim().split(/\s+/).filter(Boolean).join(" ") || DEFAULT_SCOPES)
      .refine((s) => s.split(" ").includes("openid"), "sso.errors.scopesOpenid")
      .refine((s) => s.length <= 300 && /^[\x21\x23-\x5b\x5d-\x7e ]+$/.test(s), "sso.errors.scopesInvalid"),
  });
}
export type ProviderInput = z.infer<ReturnType<typeof providerSchema>>;

export async function listProviders() {
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.oidcProviders).orderBy(asc(schema.oidcProviders.name), asc(schema.oidcProviders.id));
  // the secret never leaves the server
  return rows.map(({ clientSecret, ...p }) => ({ ...p, hasSecret: clientSecret !== "" }));
}

/** What the login form offers: the enabled providers' names. */
export async function enabledProviders() {
  const { db, schema } = getDb();
  const p = schema.oidcProviders;
  return db.select({ id: p.id, name: p.name }).from(p).where(eq(p.enabled, true)).orderBy(asc(p.name), asc(p.id));
}

async function findProvider(id: number) {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.oidcProviders).where(eq(schema.oidcProviders.id, id));
  return row && opened(row);
}

/** A provider row with its client secret opened (it is kept sealed: app/secrets.server.ts). */
const opened = <T extends { clientSecret: string }>(row: T): T => ({ ...row, clientSecret: unseal(row.clientSecret) ?? "" });

export const redirectUri = (origin: string, providerId: number) => `${origin}/sso/${providerId}/callback`;

export type SaveResult = { ok: true; id: number } | { ok: false; field: "issuer"; error: string };

/**
 * Adds a provider, or changes one (`id`), after its discovery document answered: a wrong issuer is
 * caught here, not at the first user's sign-in. The issuer stored is the one the provider names.
 */
export async function saveProvider(input: ProviderInput, actor: Actor, ip: string, id?: number): Promise<SaveResult> {
  const existing = id === undefined ? undefined : await findProvider(id);
  if (id !== undefined && !existing) return { ok: false, field: "issuer", error: "sso.errors.notFound" };
  const clientSecret = input.clientSecret || existing?.clientSecret || "";
  let issuer: string;
  try {
    issuer = (await discover({ issuer: input.issuer, clientId: input.clientId, clientSecret })).serverMetadata().issuer;
  } catch {
    return { ok: false, field: "issuer", error: "sso.errors.discovery" };
  }
  const values = { name: input.name, issuer, clientId: input.clientId, clientSecret, scopes: input.scopes };
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    if (existing) {
      await tx
        .update(schema.oidcProviders)
        .set({ ...values, clientSecret: seal(clientSecret) })
        .where(eq(schema.oidcProviders.id, existing.id));
      const changed: string[] = (["name", "issuer", "clientId", "scopes"] as const).filter((k) => existing[k] !== values[k]);
      if (input.clientSecret && input.clientSecret !== existing.clientSecret) changed.push("clientSecret");
      await audit({ action: "sso.provider_changed", actor, target: { type: "sso_provider", id: existing.id }, detail: { name: values.name, changed }, ip }, tx);
      return { ok: true as const, id: existing.id };
    }
    const [row] = await tx
      .insert(schema.oidcProviders)
      .values({ ...values, clientSecret: seal(clientSecret), enabled: true, createdAt: Date.now() })
      .returning({ id: schema.oidcProviders.id });
    await audit({ action: "sso.provider_added", actor, target: { type: "sso_provider", id: row.id }, detail: { name: values.name, issuer }, ip }, tx);
    return { ok: true as const, id: row.id };
  });
}

export async function setProviderEnabled(id: number, enabled: boolean, actor: Actor, ip: string) {
  const handle = getDb();
  const p = handle.schema.oidcProviders;
  return handle.transaction(async (tx) => {
    const [row] = await tx.update(p).set({ enabled }).where(eq(p.id, id)).returning({ id: p.id, name: p.name });
    if (!row) return false;
    await audit({ action: "sso.provider_changed", actor, target: { type: "sso_provider", id }, detail: { name: row.name, enabled }, ip }, tx);
    return true;
  });
}

/** Removes a provider and, with it (cascade), every account link to it. */
export async function removeProvider(id: number, actor: Actor, ip: string) {
  const handle = getDb();
  const p = handle.schema.oidcProviders;
  return handle.transaction(async (tx) => {
    const [row] = await tx.delete(p).where(eq(p.id, id)).returning({ id: p.id, name: p.name, issuer: p.issuer });
    if (!row) return false;
    await audit({ action: "sso.provider_removed", actor, target: { type: "sso_provider", id }, detail: { name: row.name, issuer: row.issuer }, ip }, tx);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Talking to a provider

/** Discovery, with the client authentication the provider supports (RFC 8414: Basic when it names none). */
async function discover(p: Pick<SsoProvider, "issuer" | "clientId" | "clientSecret">) {
  const url = new URL(p.issuer);
  const options = { execute: insecureAllowed(url) ? [oidc.allowInsecureRequests] : [], timeout: PROVIDER_TIMEOUT_SECONDS };
  const found = await oidc.discovery(url, p.clientId, undefined, oidc.None(), options);
  const metadata = found.serverMetadata();
  const methods = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  const auth = !p.clientSecret
    ? oidc.None()
    : methods.includes("client_secret_basic") || !methods.includes("client_secret_post")
      ? oidc.ClientSecretBasic(p.clientSecret)
      : oidc.ClientSecretPost(p.clientSecret);
  const config = new oidc.Configuration(metadata, p.clientId, undefined, auth);
  if (insecureAllowed(url)) oidc.allowInsecureRequests(config);
  config.timeout = PROVIDER_TIMEOUT_SECONDS;
  return config;
}

// Keyed by everything discovery depends on, so a change (also on another node) is a new entry.
const configs = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();
const configKey = (p: SsoProvider) => [p.id, p.issuer, p.clientId, createHash("sha256").update(p.clientSecret).digest("hex")].join("|");

function configFor(p: SsoProvider) {
  const key = configKey(p);
  const cached = configs.get(key);
  if (cached && Date.now() - cached.at < CONFIG_TTL_MS) return cached.config;
  const config = discover(p);
  configs.set(key, { at: Date.now(), config });
  // a failed discovery is tried again on the next sign-in
  config.catch(() => configs.get(key)?.config === config && configs.delete(key));
  return config;
}

const jwksSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function jwksFor(uri: string) {
  let set = jwksSets.get(uri);
  if (!set) jwksSets.set(uri, (set = createRemoteJWKSet(new URL(uri), { timeoutDuration: PROVIDER_TIMEOUT_SECONDS * 1000 })));
  return set;
}

// ---------------------------------------------------------------------------------------------
// Who a sign-in is

export type IdentityClaims = { sub: string; email?: unknown; email_verified?: unknown };
export type MatchResult = { ok: true; user: UserRow; linked: boolean } | { ok: false; reason: "no_match" | "disabled" };

/**
 * The account a provider's subject signs in to: its earlier link; else the one active user whose
 * email equals the provider's verified email, linked from now on; else none. Disabled accounts
 * are refused, linked or not.
 */
export async function matchUser(providerId: number, claims: IdentityClaims, ip = ""): Promise<MatchResult> {
  const handle = getDb();
  const { users, userIdentities } = handle.schema;
  if (typeof claims.sub !== "string" || !claims.sub) return { ok: false, reason: "no_match" };
  return handle.transaction(async (tx) => {
    const [linked] = await tx
      .select({ user: users })
      .from(userIdentities)
      .innerJoin(users, eq(users.id, userIdentities.userId))
      .where(and(eq(userIdentities.providerId, providerId), eq(userIdentities.subject, claims.sub)));
    if (linked) return linked.user.disabledAt ? { ok: false as const, reason: "disabled" as const } : { ok: true as const, user: linked.user, linked: false };

    // only an address the provider vouches for may claim an account
    const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
    if (claims.email_verified !== true || !email) return { ok: false as const, reason: "no_match" as const };
    const candidates = await tx.select().from(users).where(eq(users.email, email));
    const active = candidates.filter((u) => !u.disabledAt);
    if (active.length !== 1) return { ok: false as const, reason: !active.length && candidates.length ? ("disabled" as const) : ("no_match" as const) };
    const user = active[0];
    await tx.insert(userIdentities).values({ providerId, subject: claims.sub, userId: user.id, createdAt: Date.now() }).onConflictDoNothing();
    await audit({ action: "sso.identity_linked", target: { type: "user", id: user.id }, detail: { provider: providerId, email }, ip }, tx);
    return { ok: true as const, user, linked: true };
  });
}

export type SignInResult = { ok: true; user: UserRow; provider: { id: number; name: string } } | { ok: false; reason: SignInError };

async function identify(provider: SsoProvider, claims: IdentityClaims, ip: string, method: "sso" | "sso_token"): Promise<SignInResult> {
  const match = await matchUser(provider.id, claims, ip);
  if (match.ok) return { ok: true, user: match.user, provider: { id: provider.id, name: provider.name } };
  await audit({
    action: "signin.failed",
    detail: { method, provider: provider.id, reason: match.reason, email: typeof claims.email === "string" ? claims.email : "" },
    ip,
  });
  return { ok: false, reason: match.reason };
}

// ---------------------------------------------------------------------------------------------
// The browser's sign-in: /sso/<id> starts it, /sso/<id>/callback finishes it

type Flow = { p: number; state: string; nonce: string; verifier: string };

let flowCookieInstance: ReturnType<typeof createCookie> | undefined;
/** The started sign-in's secrets, signed, for the callback only; gone after ten minutes. */
export function flowCookie() {
  return (flowCookieInstance ??= createCookie("sso_flow", {
    path: "/sso",
    httpOnly: true,
    sameSite: "lax", // the provider's redirect back is a top-level GET from another site
    secure: process.env.NODE_ENV === "production",
    maxAge: FLOW_TTL_SECONDS,
    secrets: [process.env.SESSION_SECRET || "dev-only-secret"],
  }));
}

/** Where to send the browser to sign in, and the flow to keep in its cookie. */
export async function startSignIn(providerId: number, origin: string): Promise<{ ok: true; url: string; flow: Flow } | { ok: false; reason: SignInError }> {
  const provider = await findProvider(providerId);
  if (!provider?.enabled) return { ok: false, reason: "unknown_provider" };
  let config: oidc.Configuration;
  try {
    config = await configFor(provider);
  } catch {
    return { ok: false, reason: "unavailable" };
  }
  const flow: Flow = { p: provider.id, state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(origin, provider.id),
    scope: provider.scopes,
    response_type: "code",
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
  });
  return { ok: true, url: url.href, flow };
}

const isFlow = (v: unknown): v is Flow =>
  !!v &&
  typeof v === "object" &&
  ["state", "nonce", "verifier"].every((k) => typeof (v as Record<string, unknown>)[k] === "string") &&
  typeof (v as Flow).p === "number";

/** The provider's answer at the callback: the code exchanged, the ID token checked, the account found. */
export async function finishSignIn(providerId: number, callbackUrl: URL, flow: unknown, origin: string, ip: string): Promise<SignInResult> {
  const params = callbackUrl.searchParams;
  if (params.has("error")) return { ok: false, reason: params.get("error") === "access_denied" ? "denied" : "failed" };
  if (!isFlow(flow) || flow.p !== providerId || params.get("state") !== flow.state) return { ok: false, reason: "state" };
  const provider = await findProvider(providerId);
  if (!provider?.enabled) return { ok: false, reason: "unknown_provider" };
  let claims: IdentityClaims;
  try {
    const config = await configFor(provider);
    // the redirect URI sent to the token endpoint must be the very one of the authorization request
    const current = new URL(redirectUri(origin, provider.id));
    current.search = callbackUrl.search;
    // checks state, PKCE, and the ID token's signature, issuer, audience, expiry and nonce
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (!idToken) return { ok: false, reason: "failed" };
    claims = idToken as IdentityClaims;
    // some providers put the email only in the UserInfo answer (for the same subject)
    if (claims.email === undefined && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { sub: idToken.sub, email: info.email, email_verified: info.email_verified };
    }
  } catch (error) {
    log.warn({ err: error, provider: provider.id }, "sso: sign-in failed");
    return { ok: false, reason: "failed" };
  }
  return identify(provider, claims, ip, "sso");
}

// ---------------------------------------------------------------------------------------------
// Token sign-in: an ID token a configured provider issued to our client id (a mobile app that
// signed in natively), via POST /api/oauth/verify or ?oauth= on any page

/**
 * Checks the token's signature (the provider's published keys), issuer, audience and expiry, then
 * finds the account. `secondFactor` may still refuse it (a user with two-factor on) before the
 * token is spent.
 */
export async function verifyIdToken(token: unknown, ip: string, secondFactor?: (user: UserRow) => Promise<SignInError | undefined>): Promise<SignInResult> {
  if (typeof token !== "string" || !token || token.length > 16_384) return { ok: false, reason: "invalid_token" };
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(token);
  } catch {
    return { ok: false, reason: "invalid_token" };
  }
  const audiences = typeof unverified.aud === "string" ? [unverified.aud] : Array.isArray(unverified.aud) ? unverified.aud : [];
  const { db, schema } = getDb();
  const p = schema.oidcProviders;
  const candidates = (
    await db
      .select()
      .from(p)
      .where(and(eq(p.enabled, true), eq(p.issuer, String(unverified.iss ?? ""))))
  )
    .filter((c) => audiences.includes(c.clientId))
    .map(opened);
  for (const provider of candidates) {
    let payload: JWTPayload;
    try {
      const config = await configFor(provider);
      const jwksUri = config.serverMetadata().jwks_uri;
      if (!jwksUri) continue;
      ({ payload } = await jwtVerify(token, jwksFor(jwksUri), {
        issuer: provider.issuer,
        audience: provider.clientId,
        requiredClaims: ["sub", "exp", "iat"],
        clockTolerance: 30,
      }));
    } catch {
      continue;
    }
    // OpenID Connect Core 3.1.3.7: with more than one audience, the token must be meant for us
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== provider.clientId) continue;
    const result = await identify(provider, payload as IdentityClaims, ip, "sso_token");
    if (!result.ok) return result;
    const refused = secondFactor && (await secondFactor(result.user));
    if (refused) return { ok: false, reason: refused };
    // a token signs in once: a copy that leaked from a log or a link cannot be used again
    if (!(await spendToken(token, result.user.id, payload.exp!))) return { ok: false, reason: "invalid_token" };
    return result;
  }
  return { ok: false, reason: "invalid_token" };
}

async function spendToken(token: string, userId: number, exp: number) {
  const { db, schema } = getDb();
  const t = schema.oneTimeTokens;
  const now = Date.now();
  await db.delete(t).where(and(eq(t.purpose, "sso_id_token"), lt(t.expiresAt, now - 60_000)));
  const rows = await db
    .insert(t)
    .values({ hash: hashToken(`id_token:${token}`), purpose: "sso_id_token", userId, createdAt: now, expiresAt: exp * 1000 + 60_000, usedAt: now })
    .onConflictDoNothing()
    .returning({ hash: t.hash });
  return rows.length === 1;
}

// ---------------------------------------------------------------------------------------------
// After a good sign-in

/**
 * A new session for a signed-in account. A user with two-factor on gets a pending one, so the
 * login page still asks for the code; the sign-in is recorded once it is complete.
 */
export async function ssoSession(
  result: Extract<SignInResult, { ok: true }>,
  opts: { ip: string; userAgent: string; method: "sso" | "sso_token"; allowPending: boolean },
) {
  const pending = result.user.totpEnabled && opts.allowPending;
  const tokens = await createSession(result.user.id, { mfaPending: pending, ip: opts.ip, userAgent: opts.userAgent });
  if (!pending)
    await audit({
      action: "signin.ok",
      actor: { id: result.user.id, name: result.user.username },
      target: { type: "user", id: result.user.id },
      detail: { method: opts.method, provider: result.provider.id, providerName: result.provider.name },
      ip: opts.ip,
    });
  return { ...tokens, pending };
}

// ---------------------------------------------------------------------------------------------
// The login page's part, and ?oauth= on any page

/** The enabled providers for the login form, and the refusal an SSO attempt came back with. */
export async function loginOptions(request: Request) {
  const error = new URL(request.url).searchParams.get("sso");
  return { providers: await enabledProviders(), error: isSignInError(error) ? error : null };
}

/**
 * A signed-out visit with ?oauth=<ID token> (spec section 2): a good token signs in and the same
 * page loads again without it (the code form first, for two-factor users); a bad one ends on the
 * login page with the reason.
 */
export async function oauthQuerySignIn(request: Request, ip: string) {
  const url = new URL(request.url);
  const result = await verifyIdToken(url.searchParams.get("oauth"), ip);
  if (!result.ok) return redirect(`/?sso=${result.reason}`);
  const { token, pending } = await ssoSession(result, { ip, userAgent: request.headers.get("User-Agent") ?? "", method: "sso_token", allowPending: true });
  url.searchParams.delete("oauth");
  return redirect(pending ? "/" : safeRedirect(url.pathname + url.search + url.hash), { headers: { "Set-Cookie": await sessionCookie().serialize(token) } });
}
