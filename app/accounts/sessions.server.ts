// Sessions live in the database; cookies and API clients hold only the random id.
import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, ne } from "drizzle-orm";
import { getDb } from "@db/client";
import { disconnectSessionSockets, disconnectUserSockets } from "~/realtime.server";

export const SESSION_TTL_MS = 365 * 24 * 60 * 60 * 1000;

export const hashToken = (token: string) => createHash("sha256").update(token).digest("base64url");
const newToken = () => randomBytes(32).toString("base64url");

export async function createSession(userId: number, opts: { mfaPending?: boolean; userAgent?: string } = {}) {
  const { db, schema } = getDb();
  const token = newToken();
  const refreshToken = newToken();
  const now = Date.now();
  await db.insert(schema.sessions).values({
    idHash: hashToken(token),
    refreshHash: hashToken(refreshToken),
    userId,
    mfaPending: !!opts.mfaPending,
    createdAt: now,
    expiresAt: now + SESSION_TTL_MS,
    userAgent: (opts.userAgent ?? "").slice(0, 300),
  });
  return { token, refreshToken };
}

/** The live session behind a token, or undefined. Pending two-factor sessions count only when asked for. */
export async function findSession(token: string | null | undefined, opts: { mfaPending?: boolean } = {}) {
  if (!token) return undefined;
  const { db, schema } = getDb();
  const [row] = await db
    .select({ session: schema.sessions, user: schema.users })
    .from(schema.sessions)
    .innerJoin(schema.users, eq(schema.users.id, schema.sessions.userId))
    .where(and(eq(schema.sessions.idHash, hashToken(token)), gt(schema.sessions.expiresAt, Date.now()), isNull(schema.users.disabledAt)));
  if (!row || row.session.mfaPending !== !!opts.mfaPending) return undefined;
  return row;
}

/** Exchanges a refresh token for a fresh session (the old one is deleted). */
export async function refreshSession(refreshToken: string) {
  const { db, schema } = getDb();
  const s = schema.sessions;
  // one statement: of two concurrent refreshes with the same token, only one gets the row
  const [row] = await db
    .delete(s)
    .where(and(eq(s.refreshHash, hashToken(refreshToken)), eq(s.mfaPending, false), gt(s.expiresAt, Date.now())))
    .returning();
  if (!row) return undefined;
  disconnectSessionSockets(row.idHash);
  return createSession(row.userId, { userAgent: row.userAgent });
}

export async function deleteSession(token: string) {
  const { db, schema } = getDb();
  const idHash = hashToken(token);
  await db.delete(schema.sessions).where(eq(schema.sessions.idHash, idHash));
  disconnectSessionSockets(idHash);
}

/**
 * Ends every session of a user (disabled, password changed), or every one but `keepIdHash`;
 * their sockets are disconnected at once, so open tabs are signed out.
 */
export async function endUserSessions(userId: number, keepIdHash?: string) {
  const { db, schema } = getDb();
  const s = schema.sessions;
  const ended = await db
    .delete(s)
    .where(keepIdHash ? and(eq(s.userId, userId), ne(s.idHash, keepIdHash)) : eq(s.userId, userId))
    .returning({ idHash: s.idHash });
  if (keepIdHash) for (const row of ended) disconnectSessionSockets(row.idHash);
  else disconnectUserSockets(userId);
  return ended.length;
}
