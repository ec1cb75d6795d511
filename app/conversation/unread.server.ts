// Unread conversations per kind for one user: conversations they take part in with activity by
// someone else since they last read them (participants.unread, kept by the write path), counted
// in unread_counts by triggers on participants (db/migrations/*/0009_unread_counts.sql).
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";

export interface UnreadCounts {
  ticket: number;
  livechat: number;
  chat: number;
}

export async function unreadCounts(userId: number): Promise<UnreadCounts> {
  const { db, schema } = getDb();
  const u = schema.unreadCounts;
  const rows = await db.select({ kind: u.kind, n: u.unread }).from(u).where(eq(u.userId, userId));
  const count = (k: string) => Number(rows.find((r) => r.kind === k)?.n ?? 0);
  return { ticket: count("ticket"), livechat: count("livechat"), chat: count("chat") };
}
