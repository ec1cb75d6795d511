// LINE's reply token: each customer message comes with one, good for a single reply request within
// a short time (LINE documents about a minute) and free of the account's monthly message quota, unlike
// push. The latest token per customer is kept in the account's channel_cursors ("reply:{userId}",
// JSON {token, at}, updated_at = when the customer wrote, so a late-processed older message never
// replaces a newer token). A send claims it with one conditional UPDATE: used once, by one job.
import { and, eq, lt } from "drizzle-orm";
import { getDb } from "@db/client";

/** How long after the customer's message the token is tried: under LINE's minute, with room for the request. */
export const REPLY_TOKEN_MS = 50_000;

const keyOf = (userId: string) => `reply:${userId}`;

/** Keeps the token of a customer's message, unless a newer one is kept already. */
export async function rememberReplyToken(accountId: number, userId: string, token: string, at: number) {
  const { db, schema } = getDb();
  const c = schema.channelCursors;
  const value = JSON.stringify({ token, at });
  await db
    .insert(c)
    .values({ accountId, key: keyOf(userId), value, updatedAt: at })
    .onConflictDoUpdate({ target: [c.accountId, c.key], set: { value, updatedAt: at }, setWhere: lt(c.updatedAt, at) });
}

/** The customer's latest token if it is still fresh and nobody used it; it is then used up. */
export async function claimReplyToken(accountId: number, userId: string, now = Date.now()): Promise<string | null> {
  const { db, schema } = getDb();
  const c = schema.channelCursors;
  const where = and(eq(c.accountId, accountId), eq(c.key, keyOf(userId)));
  const [row] = await db.select({ value: c.value }).from(c).where(where);
  if (!row) return null;
  let kept: { token?: string; at?: number };
  try {
    kept = JSON.parse(row.value);
  } catch {
    return null;
  }
  if (!kept.token || !kept.at || now - kept.at > REPLY_TOKEN_MS) return null;
  // compare-and-set on the value read: of two sends at once, one gets the token
  const [claimed] = await db
    .update(c)
    .set({ value: JSON.stringify({ token: "", at: kept.at }) })
    .where(and(where, eq(c.value, row.value)))
    .returning({ key: c.key });
  return claimed ? kept.token : null;
}
