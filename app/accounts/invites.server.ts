// Invites: an account made without a password and a single-use link (7 days) by which its owner
// sets one. The link goes through the mail outbox; without a mail server the admin's page shows it.
import { and, eq, isNull } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { translatorFor } from "~/i18n.server";
import { mailConfigured, mailLanguage, queueMail } from "~/mail/outbox.server";
import { audit } from "./audit.server";
import { consumeOneTimeToken, issueOneTimeToken, peekOneTimeToken } from "./one-time-tokens.server";
import { hashPassword } from "./password.server";
import { hashToken } from "./sessions.server";
import { accountStatus, insertInvitedUser, lockAccounts, Refused, type Actor, type InviteUserInput } from "./users-admin.server";

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Where the link points and what the mail calls the product. */
export type InviteContext = { origin: string; product: string; ip?: string };

export const inviteLink = (origin: string, token: string) => `${origin}/invite/${token}`;

/** The invite's link and whether it was mailed (false: the admin's page shows it). */
export type IssuedInvite = { userId: number; link: string; mailed: boolean };

/** Ends the user's earlier invite links: only the newest works. */
async function revokeInvites(tx: Tx, userId: number) {
  const { schema } = getDb();
  const t = schema.oneTimeTokens;
  await tx
    .update(t)
    .set({ usedAt: Date.now() })
    .where(and(eq(t.userId, userId), eq(t.purpose, "invite"), isNull(t.usedAt)));
}

/** Issues a link for the user and queues its mail (when a mail server is configured and the user has an address). */
async function issueInvite(tx: Tx, actor: Actor, user: { id: number; name: string; email: string }, ctx: InviteContext) {
  const token = await issueOneTimeToken("invite", { userId: user.id, email: user.email, createdBy: actor.id, ttlMs: INVITE_TTL_MS }, tx);
  const link = inviteLink(ctx.origin, token);
  // without a mail server nothing would send it, and a usable link would sit in the outbox
  const mailed = mailConfigured() && !!user.email;
  if (mailed) {
    const t = translatorFor(await mailLanguage());
    const values = { name: user.name, inviter: actor.name, product: ctx.product, link, days: "7" };
    await queueMail(
      `invite:${hashToken(token)}`,
      { to: user.email, subject: t("users.inviteMail.subject", values), text: t("users.inviteMail.text", values) },
      tx,
    );
  }
  return { link, mailed };
}

/** A new account by invite: the user, the link and its mail in one transaction. */
export async function inviteUser(actor: Actor, input: InviteUserInput, ctx: InviteContext): Promise<IssuedInvite> {
  const handle = getDb();
  return handle.transaction(async (tx) => {
    await lockAccounts(tx);
    const userId = await insertInvitedUser(tx, input);
    const { link, mailed } = await issueInvite(tx, actor, { id: userId, name: input.name, email: input.email }, ctx);
    await audit(
      {
        action: "user.invited",
        actor,
        target: { type: "user", id: userId },
        detail: { username: input.username, type: input.type, email: input.email, departmentId: input.department, mailed },
        ip: ctx.ip,
      },
      tx,
    );
    return { userId, link, mailed };
  });
}

/** A new link for a user who has not accepted yet; the earlier links stop working. */
export async function resendInvite(actor: Actor, userId: number, ctx: InviteContext): Promise<IssuedInvite> {
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    await lockAccounts(tx);
    const [user] = await tx.select().from(schema.users).where(eq(schema.users.id, userId));
    if (!user) throw new Refused("users.notFound", { status: 404 });
    if (user.disabledAt) throw new Refused("users.invite.disabled", { status: 409 });
    const [identity] = await tx.select().from(schema.userIdentities).where(eq(schema.userIdentities.userId, userId)).limit(1);
    if (accountStatus(user, !!identity) !== "invited") throw new Refused("users.invite.accepted", { status: 409 });
    await revokeInvites(tx, userId);
    const { link, mailed } = await issueInvite(tx, actor, user, ctx);
    await audit(
      { action: "invite.resent", actor, target: { type: "user", id: userId }, detail: { username: user.username, email: user.email, mailed }, ip: ctx.ip },
      tx,
    );
    return { userId, link, mailed };
  });
}

/** The person a link invites, while it works: unused, not expired, the account still waiting and not disabled. */
export async function openInvite(token: string | undefined) {
  const row = await peekOneTimeToken("invite", token);
  if (!row?.userId) return undefined;
  const { db, schema } = getDb();
  const [user] = await db.select().from(schema.users).where(eq(schema.users.id, row.userId));
  if (!user || user.disabledAt || user.passwordHash) return undefined;
  return { id: user.id, name: user.name, username: user.username, email: user.email, type: user.type };
}

/**
 * Uses the link and sets the password, in one transaction: a link works once, also when two tabs
 * post at the same moment. Refused (410) when the link no longer works.
 */
export async function acceptInvite(token: string, password: string, ip = "") {
  const passwordHash = await hashPassword(password); // slow: before the transaction
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    const row = await consumeOneTimeToken("invite", token, tx);
    const [user] = row?.userId ? await tx.select().from(schema.users).where(eq(schema.users.id, row.userId)) : [];
    // a thrown refusal rolls the use of the link back with the rest
    if (!user || user.disabledAt || user.passwordHash) throw new Refused("users.invite.expired", { status: 410 });
    await tx.update(schema.users).set({ passwordHash }).where(eq(schema.users.id, user.id));
    await revokeInvites(tx, user.id);
    await audit(
      { action: "invite.accepted", actor: { id: user.id, name: user.name }, target: { type: "user", id: user.id }, detail: { username: user.username }, ip },
      tx,
    );
    return { id: user.id, name: user.name };
  });
}
