// Unread conversations per kind for one user: conversations they take part in with activity
// after their last read.
import { and, eq, lt, sql } from "drizzle-orm";
import { getDb } from "@db/client";
import { CHANNELS_OF_KIND } from "~/channels";

export interface UnreadCounts {
  ticket: number;
  livechat: number;
  chat: number;
}

export async function unreadCounts(userId: number): Promise<UnreadCounts> {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const p = schema.participants;
  const inList = (list: string[]) => sql.join(list.map((c) => sql`${c}`), sql`, `);
  const kind = sql<string>`case when ${t.channel} in (${inList(CHANNELS_OF_KIND.chat)}) then 'chat' when ${t.channel} in (${inList(CHANNELS_OF_KIND.livechat)}) then 'livechat' when ${t.channel} in (${inList(CHANNELS_OF_KIND.call)}) then 'call' else 'ticket' end`;
  const rows = await db
    .select({ kind, n: sql<number>`count(*)` })
    .from(p)
    .innerJoin(t, eq(t.id, p.ticketId))
    .where(and(eq(p.userId, userId), lt(p.lastReadAt, t.updatedAt)))
    .groupBy(kind);
  const count = (k: string) => Number(rows.find((r) => r.kind === k)?.n ?? 0);
  return { ticket: count("ticket"), livechat: count("livechat"), chat: count("chat") };
}
