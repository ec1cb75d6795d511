// Sign-in throttle: failure counters in the database (auth_throttle), per account and per network.
// A slot is taken atomically BEFORE a password or code is checked, so parallel attempts cannot get
// past the limit, and every node and every restart sees the same counts (docs/decisions/041).
import { isIP } from "node:net";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { getDb } from "@db/client";

export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/** No counter uses a longer window (password reset requests: an hour); older rows are pruned. */
export const LONGEST_WINDOW_MS = 60 * 60 * 1000;
/** Attempts per account in a window; LOGIN_FAILURES_ALLOWED raises it (the browser tests do). */
export const ACCOUNT_LIMIT = Number(process.env.LOGIN_FAILURES_ALLOWED || 10);
/** Attempts per network (an IPv4 address, an IPv6 /64) in a window; never below the account limit. */
export const NETWORK_LIMIT = Number(process.env.LOGIN_NETWORK_FAILURES_ALLOWED || Math.max(100, ACCOUNT_LIMIT));

export type Slot = { key: string; allowed: boolean; retryAfterSeconds: number };

export const accountKey = (username: string) => `acct:${username.trim().toLowerCase()}`;
export const networkKey = (ip: string) => `net:${networkOf(ip)}`;

/**
 * The network an address belongs to: an IPv4 address itself (also when written as ::ffff:a.b.c.d),
 * an IPv6 address its /64, since one customer line gets a whole /64 of addresses.
 */
export function networkOf(ip: string): string {
  let address = ip.trim().replace(/%.*$/, "");
  if (/^::ffff:/i.test(address) && isIP(address.slice(7)) === 4) address = address.slice(7);
  if (isIP(address) === 4) return address;
  if (isIP(address) !== 6) return address || "unknown";
  const [head, tail] = address.toLowerCase().split("::");
  const hextets = (part: string | undefined) => (part ? part.split(":").flatMap((h) => (h.includes(".") ? ["0", "0"] : [h])) : []);
  const left = hextets(head);
  const right = tail === undefined ? [] : hextets(tail);
  const full = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${full
    .slice(0, 4)
    .map((h) => parseInt(h, 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Counts one attempt on `key` and says whether it may go ahead: one statement, so of N parallel
 * attempts exactly `limit` are allowed. A window starts at its first attempt and lasts 15 minutes.
 */
export async function takeSlot(key: string, limit: number, opts: { windowMs?: number; now?: number } = {}): Promise<Slot> {
  const { windowMs = THROTTLE_WINDOW_MS, now = Date.now() } = opts;
  const { db, schema } = getDb();
  const t = schema.authThrottle;
  const expired = sql`${t.windowStart} <= ${now - windowMs}`;
  const [row] = await db
    .insert(t)
    .values({ key, failures: 1, windowStart: now })
    .onConflictDoUpdate({
      target: t.key,
      set: {
        failures: sql`CASE WHEN ${expired} THEN 1 ELSE ${t.failures} + 1 END`,
        windowStart: sql`CASE WHEN ${expired} THEN ${now} ELSE ${t.windowStart} END`,
      },
    })
    .returning({ failures: t.failures, windowStart: t.windowStart });
  void pruneSometimes(now);
  const allowed = Number(row.failures) <= limit;
  return { key, allowed, retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((Number(row.windowStart) + windowMs - now) / 1000)) };
}

/** The account's and the network's slots for one sign-in attempt; refused if either is over. */
export async function takeSignInSlots(username: string, ip: string) {
  const [account, network] = await Promise.all([takeSlot(accountKey(username), ACCOUNT_LIMIT), takeSlot(networkKey(ip), NETWORK_LIMIT)]);
  return { allowed: account.allowed && network.allowed, retryAfterSeconds: Math.max(account.retryAfterSeconds, network.retryAfterSeconds) };
}

/** A success: the account starts afresh. */
export async function clearSlots(key: string) {
  const { db, schema } = getDb();
  await db.delete(schema.authThrottle).where(eq(schema.authThrottle.key, key));
}

/** Gives back the slot an attempt took (a right password is not a guess from that network). */
export async function returnSlot(key: string) {
  const { db, schema } = getDb();
  const t = schema.authThrottle;
  await db
    .update(t)
    .set({ failures: sql`${t.failures} - 1` })
    .where(and(eq(t.key, key), gt(t.failures, 0)));
}

let lastPrune = 0;
/** Counters of windows long gone are dropped, at most once a minute per process. */
async function pruneSometimes(now: number) {
  if (now - lastPrune < 60_000) return;
  lastPrune = now;
  const { db, schema } = getDb();
  await db
    .delete(schema.authThrottle)
    .where(lt(schema.authThrottle.windowStart, now - LONGEST_WINDOW_MS))
    .catch(() => undefined);
}
