// Sessions live in the database; cookies and API clients hold only the random id.
// A session ends after the workspace's idle timeout (setting session_idle_hours) or its maximum
// age since sign-in (session_max_days, kept across refreshes), whichever comes first; expiresAt
// is the hard cap of a year the cookie has too.
import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, gt, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { SETTING_DEFAULTS } from "~/models/settings.server";
import { disconnectSessionSockets, disconnectUserSockets } from "~/realtime.server";
import { audit } from "./audit.server";

export const SESSION_TTL_MS = 365 * 24 * 60 * 60 * 1000;
/** A password-checked session waiting for its two-factor code. */
export const PENDING_TTL_MS = 10 * 60 * 1000;
/** lastSeenAt is written at most this often per session (not on every request). */
export const TOUCH_EVERY_MS = 60 * 1000;
/**
 * Two refreshes with one token this close together are a client racing itself (two tabs): the
 * second is refused but the family lives. Later, a spent token means a copy was stolen.
 */
export const REFRESH_RACE_MS = 10 * 1000;
export const IDLE_HOURS_MAX = 24 * 30;

export const hashToken = (token: string) => createHash("sha256").update(token).digest("base64url");
const newToken = () => randomBytes(32).toString("base64url");
/** The id a page may show for a session: derived from the id hash, useless as a credential. */
export const publicSessionId = (idHash: string) => hashToken(`public:${idHash}`).slice(0, 22);

export const MAX_DAYS_MAX = 365;

/** A setting's stored text as a number within 1..max, or its default. */
function settingNumber(value: string | null | undefined, fallback: string, max: number) {
  const n = Number(value ?? fallback);
  return Math.min(Number.isFinite(n) && n > 0 ? n : Number(fallback), max);
}

/** The idle timeout in ms from the setting's stored text (the default when unset or not a number). */
export function idleMsOf(value: string | null | undefined) {
  return settingNumber(value, SETTING_DEFAULTS.session_idle_hours, IDLE_HOURS_MAX) * 3600 * 1000;
}

/** The longest a sign-in lasts, in ms, from the setting's stored text. */
export function maxAgeMsOf(value: string | null | undefined) {
  return settingNumber(value, SETTING_DEFAULTS.session_max_days, MAX_DAYS_MAX) * 86_400_000;
}

export type SessionLimits = { idleMs: number; maxAgeMs: number };

/** The workspace's two limits, read in one query. */
export async function sessionLimits(db: Tx = getDb().db): Promise<SessionLimits> {
  const { schema } = getDb();
  const rows = await db
    .select()
    .from(schema.settings)
    .where(inArray(schema.settings.key, ["session_idle_hours", "session_max_days"]));
  const value = (key: string) => rows.find((r) => r.key === key)?.value;
  return { idleMs: idleMsOf(value("session_idle_hours")), maxAgeMs: maxAgeMsOf(value("session_max_days")) };
}

/** Past the idle timeout or the maximum age at `now`? */
function outlived(session: { lastSeenAt: number; createdAt: number }, limits: SessionLimits, now: number) {
  return lastActive(session) <= now - limits.idleMs || Number(session.createdAt) <= now - limits.maxAgeMs;
}

/** The last sign of life; rows from before lastSeenAt existed count from their creation. */
const lastActive = (s: { lastSeenAt: number; createdAt: number }) => Math.max(Number(s.lastSeenAt), Number(s.createdAt));

export type NewSession = {
  mfaPending?: boolean;
  userAgent?: string;
  ip?: string;
  /** Refreshing keeps the family, the sign-in time and the absolute end of the session it replaces. */
  familyId?: string;
  createdAt?: number;
  expiresAt?: number;
};

export async function createSession(userId: number, opts: NewSession = {}, tx?: Tx) {
  const db = tx ?? getDb().db;
  const { schema } = getDb();
  const token = newToken();
  const refreshToken = newToken();
  const now = Date.now();
  await db.insert(schema.sessions).values({
    idHash: hashToken(token),
    refreshHash: opts.mfaPending ? null : hashToken(refreshToken),
    userId,
    mfaPending: !!opts.mfaPending,
    createdAt: opts.createdAt ?? now,
    expiresAt: opts.expiresAt ?? now + (opts.mfaPending ? PENDING_TTL_MS : SESSION_TTL_MS),
    lastSeenAt: now,
    familyId: opts.familyId || newToken(),
    userAgent: (opts.userAgent ?? "").slice(0, 300),
    ip: (opts.ip ?? "").slice(0, 64),
  });
  return { token, refreshToken };
}

/**
 * The live session behind a token, or undefined. Pending two-factor sessions count only when asked
 * for. A session idle longer than the timeout is deleted here; a live one is marked seen at most
 * once a minute.
 */
export async function findSession(token: string | null | undefined, opts: { mfaPending?: boolean } = {}) {
  if (!token) return undefined;
  const { db, schema } = getDb();
  const s = schema.sessions;
  const now = Date.now();
  const [row] = await db
    .select({
      session: s,
      user: schema.users,
      // the limits ride along in the same query (this runs on every request)
      idle: sql<string | null>`(SELECT value FROM settings WHERE key = 'session_idle_hours')`,
      maxDays: sql<string | null>`(SELECT value FROM settings WHERE key = 'session_max_days')`,
    })
    .from(s)
    .innerJoin(schema.users, eq(schema.users.id, s.userId))
    .where(and(eq(s.idHash, hashToken(token)), gt(s.expiresAt, now), isNull(schema.users.disabledAt)));
  if (!row || row.session.mfaPending !== !!opts.mfaPending) return undefined;
  const { session, user } = row;
  const seen = lastActive(session);
  if (outlived(session, { idleMs: idleMsOf(row.idle), maxAgeMs: maxAgeMsOf(row.maxDays) }, now)) {
    await endSession(session.idHash);
    return undefined;
  }
  if (now - seen >= TOUCH_EVERY_MS) {
    // conditional: of several requests in the same minute, one writes
    await db
      .update(s)
      .set({ lastSeenAt: now })
      .where(and(eq(s.idHash, session.idHash), lt(s.lastSeenAt, now - TOUCH_EVERY_MS)));
    session.lastSeenAt = now;
  }
  return { session, user };
}
export type Auth = NonNullable<Awaited<ReturnType<typeof findSession>>>;

export type RefreshOutcome = { ok: true; token: string; refreshToken: string } | { ok: false; reason: "unknown" | "raced" | "reused" | "idle" | "disabled" };

/**
 * Exchanges a refresh token for a new session of the same family (the old one is deleted and its
 * refresh token recorded as spent). A spent token presented again ends the whole family.
 */
export async function refreshSession(refreshToken: string, opts: { ip?: string; userAgent?: string } = {}): Promise<RefreshOutcome> {
  const handle = getDb();
  const { schema } = handle;
  const s = schema.sessions;
  const hash = hashToken(refreshToken);
  const now = Date.now();
  const ended: string[] = [];
  const outcome = await handle.transaction(async (tx): Promise<RefreshOutcome> => {
    // one statement: of two concurrent refreshes with the same token, only one gets the row
    const [old] = await tx
      .delete(s)
      .where(and(eq(s.refreshHash, hash), eq(s.mfaPending, false), gt(s.expiresAt, now)))
      .returning();
    if (old) {
      ended.push(old.idHash);
      const [user] = await tx.select().from(schema.users).where(eq(schema.users.id, old.userId));
      if (!user || user.disabledAt) return { ok: false, reason: "disabled" };
      if (outlived(old, await sessionLimits(tx), now)) return { ok: false, reason: "idle" };
      const familyId = old.familyId || newToken();
      await tx.insert(schema.spentRefreshTokens).values({ hash, familyId, spentAt: now }).onConflictDoNothing();
      const tokens = await createSession(
        old.userId,
        { userAgent: opts.userAgent || old.userAgent, ip: opts.ip || old.ip, familyId, createdAt: old.createdAt, expiresAt: old.expiresAt },
        tx,
      );
      return { ok: true, ...tokens };
    }
    const [spent] = await tx.select().from(schema.spentRefreshTokens).where(eq(schema.spentRefreshTokens.hash, hash));
    if (!spent) return { ok: false, reason: "unknown" };
    if (now - Number(spent.spentAt) < REFRESH_RACE_MS) return { ok: false, reason: "raced" };
    const gone = await tx.delete(s).where(eq(s.familyId, spent.familyId)).returning({ idHash: s.idHash, userId: s.userId });
    ended.push(...gone.map((g) => g.idHash));
    const userId = gone[0]?.userId;
    const [user] = userId ? await tx.select().from(schema.users).where(eq(schema.users.id, userId)) : [];
    await audit(
      {
        action: "session.refresh_reuse",
        actor: user ? { id: user.id, name: user.name } : null,
        target: user ? { type: "user", id: user.id } : undefined,
        detail: { sessionsEnded: gone.length, spentSecondsAgo: Math.round((now - Number(spent.spentAt)) / 1000) },
        ip: opts.ip,
      },
      tx,
    );
    return { ok: false, reason: "reused" };
  });
  disconnectSessions(ended);
  void pruneSpent(now);
  return outcome;
}

/** Is this the refresh token of that session (so an auth check may hand it back)? */
export function isRefreshTokenOf(session: { refreshHash: string | null }, refreshToken: string) {
  return !!refreshToken && !!session.refreshHash && session.refreshHash === hashToken(refreshToken);
}

export async function deleteSession(token: string) {
  await endSession(hashToken(token));
}

export async function endSession(idHash: string) {
  const { db, schema } = getDb();
  await db.delete(schema.sessions).where(eq(schema.sessions.idHash, idHash));
  disconnectSessionSockets(idHash);
}

/** Deletes a user's sessions (all, or all but `keepIdHash`) in `tx`; returns their id hashes. */
export async function deleteUserSessions(tx: Tx, userId: number, keepIdHash?: string) {
  const { schema } = getDb();
  const s = schema.sessions;
  const ended = await tx
    .delete(s)
    .where(keepIdHash ? and(eq(s.userId, userId), ne(s.idHash, keepIdHash)) : eq(s.userId, userId))
    .returning({ idHash: s.idHash });
  return ended.map((r) => r.idHash);
}

/** After the transaction that ended them: their open tabs are signed out at once. */
export function disconnectSessions(idHashes: string[]) {
  for (const idHash of idHashes) disconnectSessionSockets(idHash);
}

/**
 * Ends every session of a user (disabled, password changed), or every one but `keepIdHash`;
 * their sockets are disconnected at once, so open tabs are signed out.
 */
export async function endUserSessions(userId: number, keepIdHash?: string) {
  const ended = await deleteUserSessions(getDb().db, userId, keepIdHash);
  if (keepIdHash) disconnectSessions(ended);
  else disconnectUserSockets(userId);
  return ended.length;
}

export type SessionListItem = {
  id: string;
  userAgent: string;
  ip: string;
  createdAt: number;
  lastSeenAt: number;
  current: boolean;
};

/** A user's signed-in sessions (not pending, not expired, not idle), the most recently used first. */
export async function listUserSessions(userId: number, currentIdHash: string): Promise<SessionListItem[]> {
  const { db, schema } = getDb();
  const s = schema.sessions;
  const now = Date.now();
  const limits = await sessionLimits();
  const rows = await db
    .select()
    .from(s)
    .where(and(eq(s.userId, userId), eq(s.mfaPending, false), gt(s.expiresAt, now)))
    .orderBy(desc(s.lastSeenAt), desc(s.createdAt));
  return rows
    .filter((r) => !outlived(r, limits, now))
    .map((r) => ({
      id: publicSessionId(r.idHash),
      userAgent: r.userAgent,
      ip: r.ip,
      createdAt: Number(r.createdAt),
      lastSeenAt: lastActive(r),
      current: r.idHash === currentIdHash,
    }));
}

/**
 * One of the user's own live sessions by its public id (the current one when none is given), with
 * when it ends: at its absolute limit, or earlier when left idle. Another user's id finds nothing.
 */
export async function ownSessionInfo(userId: number, currentIdHash: string, publicId?: string) {
  const { db, schema } = getDb();
  const s = schema.sessions;
  const now = Date.now();
  const [limits, rows] = await Promise.all([
    sessionLimits(),
    db
      .select()
      .from(s)
      .where(and(eq(s.userId, userId), eq(s.mfaPending, false), gt(s.expiresAt, now))),
  ]);
  const row = rows.find((r) => (publicId ? publicSessionId(r.idHash) === publicId : r.idHash === currentIdHash));
  if (!row || outlived(row, limits, now)) return undefined;
  return {
    id: publicSessionId(row.idHash),
    current: row.idHash === currentIdHash,
    createdAt: Number(row.createdAt),
    lastSeenAt: lastActive(row),
    expiresAt: Math.min(Number(row.expiresAt), Number(row.createdAt) + limits.maxAgeMs),
    idleExpiresAt: lastActive(row) + limits.idleMs,
    userAgent: row.userAgent,
    ip: row.ip,
  };
}

type Actor = { id: number; name: string };

/** Signs out one of the user's own sessions by its public id; false when there is none such. */
export async function revokeSession(user: Actor, publicId: string, ip: string) {
  const handle = getDb();
  const s = handle.schema.sessions;
  const ended = await handle.transaction(async (tx) => {
    const rows = await tx.select({ idHash: s.idHash }).from(s).where(eq(s.userId, user.id));
    const target = rows.find((r) => publicSessionId(r.idHash) === publicId);
    if (!target) return undefined;
    await tx.delete(s).where(eq(s.idHash, target.idHash));
    await audit({ action: "session.revoked", actor: user, target: { type: "user", id: user.id }, detail: { sessions: 1 }, ip }, tx);
    return target.idHash;
  });
  if (ended) disconnectSessionSockets(ended);
  return !!ended;
}

/** Signs out every other session of the user; returns how many ended. */
export async function revokeOtherSessions(user: Actor, keepIdHash: string, ip: string) {
  const handle = getDb();
  const ended = await handle.transaction(async (tx) => {
    const ids = await deleteUserSessions(tx, user.id, keepIdHash);
    if (ids.length)
      await audit({ action: "session.revoked", actor: user, target: { type: "user", id: user.id }, detail: { sessions: ids.length, others: true }, ip }, tx);
    return ids;
  });
  disconnectSessions(ended);
  return ended.length;
}

/** The workspace's idle timeout in hours and maximum session age in days. */
export async function sessionSettings() {
  const limits = await sessionLimits();
  return { idleHours: limits.idleMs / 3600_000, maxDays: limits.maxAgeMs / 86_400_000 };
}

/** An admin sets the limits; each change and its audit entry commit together. */
export async function setSessionSettings(next: { idleHours: number; maxDays: number }, actor: Actor, ip: string) {
  const handle = getDb();
  const { schema } = handle;
  const before = await sessionSettings();
  const changes = [
    { key: "session_idle_hours", from: before.idleHours, to: next.idleHours },
    { key: "session_max_days", from: before.maxDays, to: next.maxDays },
  ].filter((c) => c.from !== c.to);
  await handle.transaction(async (tx) => {
    for (const c of changes) {
      const value = String(c.to);
      await tx.insert(schema.settings).values({ key: c.key, value }).onConflictDoUpdate({ target: schema.settings.key, set: { value } });
      await audit({ action: "settings.changed", actor, target: { type: "setting", id: c.key }, detail: { from: c.from, to: c.to }, ip }, tx);
    }
  });
  return changes.length;
}

/**
 * Deletes sessions past their idle timeout or lifetime and disconnects their sockets, so a tab
 * left open (socket connected, no requests) stops hearing events too; server.ts runs it every few
 * minutes.
 */
export async function sweepSessions(now = Date.now()) {
  const { db, schema } = getDb();
  const s = schema.sessions;
  const limits = await sessionLimits();
  const cutoff = now - limits.idleMs;
  const ended = await db
    .delete(s)
    .where(or(lte(s.expiresAt, now), lte(s.createdAt, now - limits.maxAgeMs), and(lte(s.lastSeenAt, cutoff), lte(s.createdAt, cutoff))))
    .returning({ idHash: s.idHash });
  disconnectSessions(ended.map((r) => r.idHash));
  return ended.length;
}

let lastPrune = 0;
/** Spent refresh tokens outlive any session they could belong to by a year; then they go. */
async function pruneSpent(now: number) {
  if (now - lastPrune < 3600_000) return;
  lastPrune = now;
  const { db, schema } = getDb();
  await db
    .delete(schema.spentRefreshTokens)
    .where(lt(schema.spentRefreshTokens.spentAt, now - SESSION_TTL_MS))
    .catch(() => undefined);
}
