// Sign-in: password check, rate limit, TOTP second factor (RFC 6238) with replay protection.
import { and, eq, lt } from "drizzle-orm";
import { authenticator } from "otplib";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { getDb } from "@db/client";
import { dummyHash, verifyPassword } from "./password.server";
import { findUserByUsername, type UserRow, type UserType } from "./users.server";

authenticator.options = { window: 1 }; // accept the previous and next 30 s step for clock drift

/** Failed attempts per username and address before a pause (see docs/decisions/005-login-rate-limit.md). */
export const LOGIN_FAILURES_ALLOWED = Number(process.env.LOGIN_FAILURES_ALLOWED || 10);
const limiter = new RateLimiterMemory({ points: LOGIN_FAILURES_ALLOWED, duration: 15 * 60 });

export type LoginFailure =
  { code: "invalid" } | { code: "rate_limited"; retryAfterSeconds: number } | { code: "tfa_required"; user: UserRow } | { code: "tfa_invalid" };

export type LoginResult = { ok: true; user: UserRow } | ({ ok: false } & LoginFailure);

const limiterKey = (username: string, ip: string) => `${username.toLowerCase()}|${ip}`;

async function rateLimited(key: string) {
  const state = await limiter.get(key);
  if (state && state.consumedPoints >= LOGIN_FAILURES_ALLOWED) return Math.ceil(state.msBeforeNext / 1000);
  return 0;
}

async function fail(key: string) {
  await limiter.penalty(key, 1);
}

/** Checks username, password and type; when the user has two-factor on, also the code if given. */
export async function authenticate(input: { username: string; password: string; type: UserType; code?: string; ip: string }): Promise<LoginResult> {
  const key = limiterKey(input.username, input.ip);
  const wait = await rateLimited(key);
  if (wait) return { ok: false, code: "rate_limited", retryAfterSeconds: wait };

  const user = await findUserByUsername(input.username);
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()));
  // a disabled account answers like a wrong password
  if (!user || !passwordOk || user.disabledAt || user.type !== input.type) {
    await fail(key);
    return { ok: false, code: "invalid" };
  }
  if (user.totpEnabled) {
    if (!input.code) return { ok: false, code: "tfa_required", user };
    if (!(await consumeTotp(user, input.code))) {
      await fail(key);
      return { ok: false, code: "tfa_invalid" };
    }
  }
  await limiter.delete(key);
  return { ok: true, user };
}

/** Verifies a code for a user whose password was already checked (the second step of the form). */
export async function verifySecondFactor(user: UserRow, code: string, ip: string) {
  const key = limiterKey(user.username, ip);
  if (await rateLimited(key)) return false;
  const ok = await consumeTotp(user, code);
  if (!ok) await fail(key);
  return ok;
}

/** The RFC 6238 time step a code belongs to, or null when it is not valid for the secret now. */
function stepOf(code: string, secret: string) {
  const trimmed = code.trim();
  if (!/^\d{6}$/.test(trimmed)) return null;
  const delta = authenticator.checkDelta(trimmed, secret);
  return delta === null ? null : Math.floor(Date.now() / 30_000) + delta;
}

/**
 * A code is good once: its time step must be later than the last step used, and the update
 * that records it is conditional so two concurrent logins cannot both use the same code.
 */
export async function consumeTotp(user: Pick<UserRow, "id" | "totpSecret">, code: string) {
  const step = user.totpSecret ? stepOf(code, user.totpSecret) : null;
  if (step === null) return false;
  const { db, schema } = getDb();
  const updated = await db
    .update(schema.users)
    .set({ totpLastStep: step })
    .where(and(eq(schema.users.id, user.id), lt(schema.users.totpLastStep, step)))
    .returning({ id: schema.users.id });
  return updated.length === 1;
}

export function newTotpSecret() {
  return authenticator.generateSecret();
}

export function totpUri(username: string, issuer: string, secret: string) {
  return authenticator.keyuri(username, issuer, secret);
}

/** Turning two-factor on requires a valid code for the new secret, so the user cannot lock themselves out. */
export async function enableTotp(userId: number, secret: string, code: string) {
  const step = stepOf(code, secret);
  if (step === null) return false;
  const { db, schema } = getDb();
  await db.update(schema.users).set({ totpSecret: secret, totpEnabled: true, totpLastStep: step }).where(eq(schema.users.id, userId));
  return true;
}

export async function disableTotp(userId: number) {
  const { db, schema } = getDb();
  await db.update(schema.users).set({ totpEnabled: false, totpSecret: null, totpLastStep: 0 }).where(eq(schema.users.id, userId));
}
