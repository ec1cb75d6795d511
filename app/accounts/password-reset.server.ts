// /password_reset: a time-limited, single-use link by email. The request answers the same whether
// or not an account matches (same words, same minimum time), so it cannot be used to find accounts.
import { and, count, eq, gt, isNull, ne, or } from "drizzle-orm";
import { publicOrigin } from "~/context.server";
import { getDb, type Tx } from "@db/client";
import { translatorFor } from "~/i18n.server";
import { mailConfigured, mailLanguage, queueMail } from "~/mail/outbox.server";
import { audit } from "./audit.server";
import { tellAccountChanged } from "./security-mail.server";
import { consumeOneTimeToken, issueOneTimeToken, peekOneTimeToken } from "./one-time-tokens.server";
import { hashPassword } from "./password.server";
import { passwordProblem } from "./password-policy.server";
import { networkKey, takeSlot } from "./throttle.server";
import { endUserSessions, hashToken } from "./sessions.server";
import { findUserById, type UserRow } from "./users.server";

export const RESET_TTL_MS = 60 * 60 * 1000;
/** Links sent per account per hour (more requests answer the same and send nothing). */
export const RESETS_PER_ACCOUNT = 3;
/** Requests per network (an IPv4 address, an IPv6 /64) per hour; past it the answer is 429. */
export const RESETS_PER_NETWORK = Number(process.env.RESETS_PER_NETWORK || 20);
const WINDOW_MS = 60 * 60 * 1000;
/** Every answer takes at least this long, whether a link was made or not. */
export const RESET_MIN_ANSWER_MS = 400;

/** The user a reset request names: by username, or by email when one is set. */
async function matchingUser(login: string) {
  const value = login.trim();
  if (!value || value.length > 254) return undefined;
  const { db, schema } = getDb();
  const u = schema.users;
  const [user] = await db
    .select()
    .from(u)
    .where(or(eq(u.username, value), and(ne(u.email, ""), eq(u.email, value.toLowerCase()))))
    .limit(1);
  return user;
}

/**
 * Makes a reset link for a user and queues it by mail (once per link). Also for the admins' user
 * pages, which show the link on screen when no mail server is configured (`mailConfigured()`).
 */
export async function createResetLink(
  user: Pick<UserRow, "id" | "email" | "name" | "language">,
  opts: { linkBase: string; createdBy?: number | null },
  tx?: Tx,
) {
  const token = await issueOneTimeToken("password_reset", { userId: user.id, email: user.email, createdBy: opts.createdBy ?? null, ttlMs: RESET_TTL_MS }, tx);
  const link = `${opts.linkBase.replace(/\/+$/, "")}/password_reset/${token}`;
  if (user.email) {
    const t = translatorFor(await mailLanguage(user));
    await queueMail(
      `password_reset:${hashToken(token)}`,
      {
        to: user.email,
        subject: t("account.resetMailSubject"),
        text: t("account.resetMailText", { name: user.name, link, minutes: String(RESET_TTL_MS / 60_000) }),
      },
      tx,
    );
  }
  return link;
}

export type ResetRequest = { limited: boolean };

/**
 * A reset request for a username or an email. When it names an enabled account with an email
 * and that account has had fewer than RESETS_PER_ACCOUNT links this hour, a link is mailed. The
 * caller answers the same in every case but `limited` (too many requests from this network).
 */
export async function requestPasswordReset(input: { login: string; ip: string; linkBase: string }, opts: { minMs?: number } = {}): Promise<ResetRequest> {
  const started = Date.now();
  const answer = async (result: ResetRequest) => {
    const wait = (opts.minMs ?? RESET_MIN_ANSWER_MS) - (Date.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return result;
  };
  if (!(await takeSlot(`reset:${networkKey(input.ip)}`, RESETS_PER_NETWORK, { windowMs: WINDOW_MS })).allowed) return answer({ limited: true });
  const user = await matchingUser(input.login);
  if (!user || !user.email || user.disabledAt) return answer({ limited: false });
  const handle = getDb();
  const t = handle.schema.oneTimeTokens;
  await handle.transaction(async (tx) => {
    const [recent] = await tx
      .select({ n: count() })
      .from(t)
      .where(and(eq(t.userId, user.id), eq(t.purpose, "password_reset"), gt(t.createdAt, Date.now() - WINDOW_MS)));
    if (Number(recent?.n ?? 0) >= RESETS_PER_ACCOUNT) return;
    await createResetLink(user, { linkBase: input.linkBase }, tx);
    await audit({ action: "password.reset_requested", target: { type: "user", id: user.id }, detail: { mailServer: mailConfigured() }, ip: input.ip }, tx);
  });
  return answer({ limited: false });
}

/** The account a reset link is for, while the link is unused and unexpired. */
export async function resetLinkUser(token: string | undefined) {
  const row = await peekOneTimeToken("password_reset", token);
  if (!row?.userId) return undefined;
  const user = await findUserById(row.userId);
  return user && !user.disabledAt ? user : undefined;
}

export type ResetOutcome = { ok: true; username: string } | { ok: false; expired: true } | { ok: false; expired: false; errors: Record<string, string> };

/**
 * Sets the new password through a link: the policy first (a refused password leaves the link
 * usable), then the link is used in the same transaction as the change, so it works once; every
 * session of the user ends and the other links of the account stop working.
 */
export async function resetPassword(token: string | undefined, input: { password: string; confirm: string }, ip = ""): Promise<ResetOutcome> {
  const user = await resetLinkUser(token);
  if (!user) return { ok: false, expired: true };
  const problem = passwordProblem(input.password, { username: user.username, email: user.email });
  if (problem) return { ok: false, expired: false, errors: { password: problem } };
  if (input.password !== input.confirm) return { ok: false, expired: false, errors: { confirm: "account.passwordMismatch" } };
  const hash = await hashPassword(input.password);
  const handle = getDb();
  const { users, oneTimeTokens: t } = handle.schema;
  const done = await handle.transaction(async (tx) => {
    const used = await consumeOneTimeToken("password_reset", token, tx);
    if (!used || used.userId !== user.id) return false;
    await tx.update(users).set({ passwordHash: hash }).where(eq(users.id, user.id));
    await tx
      .update(t)
      .set({ usedAt: Date.now() })
      .where(and(eq(t.userId, user.id), eq(t.purpose, "password_reset"), isNull(t.usedAt)));
    await audit({ action: "password.reset", actor: { id: user.id, name: user.name }, target: { type: "user", id: user.id }, ip }, tx);
    await tellAccountChanged(user, "password_reset", { ip }, tx);
    return true;
  });
  if (!done) return { ok: false, expired: true };
  await endUserSessions(user.id);
  return { ok: true, username: user.username };
}

/** Where links point (see publicOrigin). */
export function linkBase(request: Request) {
  return publicOrigin(request);
}
