// Unread conversations per kind for one user: conversations they take part in with activity by
// someone else since they last read them (participants.unread, kept by the write path).
import { and, eq, sql } from "drizzle-orm";
import { getDb } from "@db/client";

export interface UnreadCounts {
  ticket: number;
  livechat: number;
  chat: number;
}

export async function unreadCounts(userId: number): Promise<UnreadCounts> {
  const { db, schema } = getDb();
  const p = schema.participants;
  // answered from the (user_id, unread, kind) index alone
  const rows = await db
    .select({ kind: p.kind, n: sql<number>`count(*)` })
    .from(p)
    .where(and(eq(p.userId, userId), eq(p.unread, true)))
    .groupBy(p.kind);
  const count = (k: string) => Number(rows.find((r) => r.kind === k)?.n ?? 0);
  return { ticket: count("ticket"), livechat: count("livechat"), chat: count("chat") };
}
