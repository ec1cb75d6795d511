// Sign-in: throttle (counted in the database before any check), password check, TOTP second
// factor (RFC 6238) with replay protection, and the audit entries of each outcome.
import { and, eq, lt, sql } from "drizzle-orm";
import { authenticator } from "otplib";
import { getDb } from "@db/client";
import { seal, unseal } from "~/secrets.server";
import { audit } from "./audit.server";
import { tellAccountChanged } from "./security-mail.server";
import { usernameProblem } from "./username";
import { dummyHash, verifyPassword } from "./password.server";
import { createSession, deleteUserSessions, endSession, disconnectSessions, type Auth } from "./sessions.server";
import { ACCOUNT_LIMIT, accountKey, clearSlots, networkKey, returnSlot, takeSignInSlots, takeSlot } from "./throttle.server";
import { findUserByUsername, type UserRow, type UserType } from "./users.server";

authenticator.options = { window: 1 }; // accept the previous and next 30 s step for clock drift

/** Attempts per account before it locks for the rest of the 15-minute window (docs/decisions/041). */
export const LOGIN_FAILURES_ALLOWED = ACCOUNT_LIMIT;
/** Wrong codes on one pending two-factor session before it ends and the password is asked again. */
export const TFA_TRIES_PER_SESSION = 5;

export type LoginFailure =
  { code: "invalid" } | { code: "rate_limited"; retryAfterSeconds: number } | { code: "tfa_required"; user: UserRow } | { code: "tfa_invalid" };

export type LoginResult = { ok: true; user: UserRow } | ({ ok: false } & LoginFailure);

type FailReason = "password" | "locked" | "tfa" | "disabled";

/** signin.failed never records the password; the username as typed says which account was tried. */
function auditFailure(username: string, reason: FailReason, ip: string, user?: Pick<UserRow, "id" | "name">, detail: Record<string, unknown> = {}) {
  return audit({
    action: "signin.failed",
    actor: user ? { id: user.id, name: user.name } : null,
    target: user ? { type: "user", id: user.id } : { type: "username", id: username.slice(0, 100) },
    detail: { reason, ...detail },
    ip,
  });
}

/**
 * Checks username, password and type; when the user has two-factor on, also the code if given.
 * The account's and the network's counters are taken first: a request over either limit is
 * refused without looking at the password, so parallel guesses cannot pass the limit.
 */
export async function authenticate(input: { username: string; password: string; type: UserType; code?: string; ip: string }): Promise<LoginResult> {
  const username = input.username.trim();
  const slots = await takeSignInSlots(username, input.ip);
  if (!slots.allowed) {
    await auditFailure(username, "locked", input.ip);
    return { ok: false, code: "rate_limited", retryAfterSeconds: slots.retryAfterSeconds };
  }

  // usernames are ASCII (username.ts): anything else names no account; looking it up anyway would
  // let SQL's lower() fold letters JavaScript's does not (Turkish İ), a second counter for one account
  const user = usernameProblem(username) ? undefined : await findUserByUsername(username);
  // an account still waiting for its password is checked against the dummy too: same timing
  const stored = user?.passwordHash.startsWith("scrypt$") ? user.passwordHash : await dummyHash();
  const passwordOk = (await verifyPassword(input.password, stored)) && stored === user?.passwordHash;
  if (!user || !passwordOk || user.type !== input.type) {
    await auditFailure(username, "password", input.ip, user);
    return { ok: false, code: "invalid" };
  }
  // the same answer as a wrong password, so a disabled account cannot be told from a wrong guess
  if (user.disabledAt) {
    await auditFailure(username, "disabled", input.ip, user);
    return { ok: false, code: "invalid" };
  }
  // a right password is not a guess from this network; the account's slot stays taken until the
  // sign-in is complete, so knowing the password buys no extra tries at the code
  await returnSlot(networkKey(input.ip));
  if (user.totpEnabled) {
    if (!input.code) return { ok: false, code: "tfa_required", user };
    if (!(await consumeTotp(user, input.code))) {
      await auditFailure(username, "tfa", input.ip, user);
      return { ok: false, code: "tfa_invalid" };
    }
  }
  await clearSlots(accountKey(username));
  return { ok: true, user };
}

export type SecondFactorResult =
  { ok: true } | { ok: false; code: "tfa_invalid" } | { ok: false; code: "tfa_locked" } | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

/**
 * Verifies a code on a pending two-factor session (the second step of the form). Each try is
 * counted on the session before the code is checked; the fifth wrong one ends the session. Wrong
 * codes also count toward the account's limit.
 */
export async function verifySecondFactor(pending: Auth, code: string, ip: string): Promise<SecondFactorResult> {
  const { user, session } = pending;
  const { db, schema } = getDb();
  const s = schema.sessions;
  const [row] = await db
    .update(s)
    .set({ tfaFailures: sql`${s.tfaFailures} + 1` })
    .where(and(eq(s.idHash, session.idHash), eq(s.mfaPending, true)))
    .returning({ tries: s.tfaFailures });
  if (!row || row.tries > TFA_TRIES_PER_SESSION) {
    await endSession(session.idHash);
    await auditFailure(user.username, "locked", ip, user, { step: "tfa" });
    return { ok: false, code: "tfa_locked" };
  }
  const slot = await takeSlot(accountKey(user.username), ACCOUNT_LIMIT);
  if (!slot.allowed) {
    await auditFailure(user.username, "locked", ip, user, { step: "tfa" });
    return { ok: false, code: "rate_limited", retryAfterSeconds: slot.retryAfterSeconds };
  }
  if (await consumeTotp(user, code)) {
    await clearSlots(accountKey(user.username));
    return { ok: true };
  }
  await auditFailure(user.username, "tfa", ip, user, { tries: row.tries });
  if (row.tries >= TFA_TRIES_PER_SESSION) {
    await endSession(session.idHash);
    return { ok: false, code: "tfa_locked" };
  }
  return { ok: false, code: "tfa_invalid" };
}

/**
 * A code sent together with a one-step sign-in (the token sign-in twin): there is no pending
 * session to count on, so each try takes a slot of the account's limit, like a password guess.
 */
export async function verifyCodeOnce(user: UserRow, code: string, ip: string): Promise<SecondFactorResult> {
  const slot = await takeSlot(accountKey(user.username), ACCOUNT_LIMIT);
  if (!slot.allowed) {
    await auditFailure(user.username, "locked", ip, user, { step: "tfa" });
    return { ok: false, code: "rate_limited", retryAfterSeconds: slot.retryAfterSeconds };
  }
  if (await consumeTotp(user, code)) {
    await clearSlots(accountKey(user.username));
    return { ok: true };
  }
  await auditFailure(user.username, "tfa", ip, user);
  return { ok: false, code: "tfa_invalid" };
}

/** A full session after a complete sign-in, recorded as signin.ok in the same transaction. */
export async function completeSignIn(
  user: Pick<UserRow, "id" | "name">,
  opts: { ip: string; userAgent: string; method: "password" | "tfa" | "invite" | "setup" },
) {
  const handle = getDb();
  return handle.transaction(async (tx) => {
    const tokens = await createSession(user.id, { ip: opts.ip, userAgent: opts.userAgent }, tx);
    await audit(
      { action: "signin.ok", actor: { id: user.id, name: user.name }, target: { type: "user", id: user.id }, detail: { method: opts.method }, ip: opts.ip },
      tx,
    );
    return tokens;
  });
}

/** The session that waits for the two-factor code (lives 10 minutes, cannot be refreshed). */
export function startSecondFactor(user: Pick<UserRow, "id">, opts: { ip: string; userAgent: string }) {
  return createSession(user.id, { mfaPending: true, ip: opts.ip, userAgent: opts.userAgent });
}

export type PasswordCheck = { ok: true } | { ok: false; code: "invalid" } | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

/**
 * The password asked again before a sensitive change (two-factor on or off): limited by the same
 * per-account counter as sign-in, taken before the check.
 */
export async function reauthenticate(
  user: Pick<UserRow, "id" | "name" | "username" | "passwordHash">,
  password: string,
  ip: string,
  purpose: string,
): Promise<PasswordCheck> {
  const slot = await takeSlot(accountKey(user.username), ACCOUNT_LIMIT);
  if (!slot.allowed) {
    await auditFailure(user.username, "locked", ip, user, { step: purpose });
    return { ok: false, code: "rate_limited", retryAfterSeconds: slot.retryAfterSeconds };
  }
  if (!(await verifyPassword(password, user.passwordHash))) {
    await auditFailure(user.username, "password", ip, user, { step: purpose });
    return { ok: false, code: "invalid" };
  }
  await clearSlots(accountKey(user.username));
  return { ok: true };
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
  const secret = unseal(user.totpSecret);
  const step = secret ? stepOf(code, secret) : null;
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

type TfaUser = Pick<UserRow, "id" | "name" | "username" | "passwordHash" | "totpEnabled" | "email" | "language">;
export type TfaChange =
  | { ok: true; sessionsEnded: number }
  | { ok: false; code: "password_invalid" | "code_invalid" | "already" }
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

/**
 * Two-factor on, from the settings page: the password (limited), then a valid code for the new
 * secret; every other session of the user ends, and the change is audited in its transaction.
 */
export async function turnOnTwoFactor(
  user: TfaUser,
  input: { password: string; secret: string; code: string; keepIdHash: string; ip: string },
): Promise<TfaChange> {
  if (user.totpEnabled) return { ok: false, code: "already" };
  const check = await reauthenticate(user, input.password, input.ip, "tfa_enable");
  if (!check.ok) return check.code === "invalid" ? { ok: false, code: "password_invalid" } : check;
  const step = stepOf(input.code, input.secret);
  if (step === null) return { ok: false, code: "code_invalid" };
  return switchTwoFactor(
    user,
    { action: "tfa.enabled", mail: "tfa_enabled" },
    { totpSecret: seal(input.secret), totpEnabled: true, totpLastStep: step },
    input,
  );
}

/** Two-factor off, from the settings page: the password (limited); every other session ends. */
export async function turnOffTwoFactor(user: TfaUser, input: { password: string; keepIdHash: string; ip: string }): Promise<TfaChange> {
  if (!user.totpEnabled) return { ok: false, code: "already" };
  const check = await reauthenticate(user, input.password, input.ip, "tfa_disable");
  if (!check.ok) return check.code === "invalid" ? { ok: false, code: "password_invalid" } : check;
  return switchTwoFactor(user, { action: "tfa.disabled", mail: "tfa_disabled" }, { totpEnabled: false, totpSecret: null, totpLastStep: 0 }, input);
}

/**
 * The write both directions share, in one transaction: the two-factor fields, every other session
 * of the user ended, the change audited and told by mail; the ended sessions' sockets go after.
 */
async function switchTwoFactor(
  user: TfaUser,
  what: { action: "tfa.enabled"; mail: "tfa_enabled" } | { action: "tfa.disabled"; mail: "tfa_disabled" },
  fields: { totpSecret: string | null; totpEnabled: boolean; totpLastStep: number },
  input: { keepIdHash: string; ip: string },
): Promise<TfaChange> {
  const handle = getDb();
  const { schema } = handle;
  const ended = await handle.transaction(async (tx) => {
    await tx.update(schema.users).set(fields).where(eq(schema.users.id, user.id));
    const ids = await deleteUserSessions(tx, user.id, input.keepIdHash);
    await audit(
      {
        action: what.action,
        actor: { id: user.id, name: user.name },
        target: { type: "user", id: user.id },
        detail: { sessionsEnded: ids.length },
        ip: input.ip,
      },
      tx,
    );
    await tellAccountChanged(user, what.mail, { ip: input.ip }, tx);
    return ids;
  });
  disconnectSessions(ended);
  return { ok: true, sessionsEnded: ended.length };
}
