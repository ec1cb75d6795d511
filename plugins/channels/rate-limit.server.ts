// A provider's "too many" (HTTP 429 with Retry-After, Meta's 130429/80007, Telegram's retry_after,
// X's x-rate-limit-reset, Twilio's 20429) is about the whole account, not the one message that
// met it: the account is paused until the provider's time (at most an hour), stored on its row so
// every worker and node sees it and a restart keeps it, and each send of the account waits for it
// (the queue's WaitAndRetry: no attempt used) instead of asking the provider again.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { getDb } from "@db/client";
import { WaitAndRetry, isWaitAndRetry } from "~/jobs/queue.server";
import { retryAfterMs } from "~/jobs/retry-after";

/** The longest pause a provider's answer can ask for. */
export const MAX_PAUSE_MS = 60 * 60_000;
/** The pause when the provider says "too many" without saying for how long. */
export const DEFAULT_PAUSE_MS = 60_000;

/** A WaitAndRetry that pauses the whole account (told apart by a mark: the bundles have their own classes). */
export type RateLimited = WaitAndRetry & { accountPause: true };

/** A provider's asked-for wait, bounded to 1 s .. MAX_PAUSE_MS (unknown or none: DEFAULT_PAUSE_MS). */
export const boundedWait = (waitMs?: number | null) =>
  waitMs != null && Number.isFinite(waitMs) && waitMs > 0 ? Math.min(Math.max(waitMs, 1000), MAX_PAUSE_MS) : DEFAULT_PAUSE_MS;

/** The provider's "too many": wait `waitMs` (boundedWait), the account with it. */
export function rateLimited(words: string, waitMs?: number | null): RateLimited {
  return Object.assign(new WaitAndRetry(words, boundedWait(waitMs)), { accountPause: true as const });
}

/** A 429's wait from its Retry-After header (seconds or an HTTP date). */
export const retryAfterHeader = (headers: Headers) => retryAfterMs(headers.get("retry-after"));

export const isRateLimited = (error: unknown): error is RateLimited => isWaitAndRetry(error) && (error as { accountPause?: boolean }).accountPause === true;

/** Pauses the account's sends until `until` (a later pause already stored stands); times are the job worker's clock. */
export async function pauseAccount(accountId: number, until: number) {
  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  await db
    .update(a)
    .set({ pausedUntil: until })
    .where(and(eq(a.id, accountId), or(isNull(a.pausedUntil), lt(a.pausedUntil, until))));
}

/** How long the account's sends still wait (ms), 0 when they may go. */
export async function accountPauseLeft(accountId: number, now = Date.now()) {
  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  const [row] = await db.select({ until: a.pausedUntil }).from(a).where(eq(a.id, accountId));
  return row?.until && row.until > now ? row.until - now : 0;
}
