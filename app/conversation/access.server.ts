// Who may read a conversation (docs/decisions/009-conversation-access.md):
// - admins read everything;
// - an agent reads a conversation they take part in (assignee or participant);
// - an agent also reads tickets, live chats and calls of their own department;
// - workspace chats (channel "chat") are for their participants only.
import { and, eq, exists, ne, or, sql, type SQL } from "drizzle-orm";
import { getDb } from "@db/client";
import type { UserRow } from "~/accounts/users.server";

export type Reader = Pick<UserRow, "id" | "type" | "departmentId">;

export class AccessDenied extends Error {
  constructor() {
    super("You cannot read this conversation.");
  }
}

/** A WHERE condition on `tickets` limiting rows to what the reader may see (undefined: no limit). */
export function readableBy(reader: Reader): SQL | undefined {
  if (reader.type === "admin") return undefined;
  const { schema } = getDb();
  const t = schema.tickets;
  const p = schema.participants;
  const participates = exists(
    getDb()
      .db.select({ one: sql`1` })
      .from(p)
      .where(and(eq(p.ticketId, t.id), eq(p.userId, reader.id))),
  );
  if (reader.departmentId == null) return participates;
  return or(participates, and(eq(t.departmentId, reader.departmentId), ne(t.channel, "chat")));
}

export async function canRead(reader: Reader, ticketId: number): Promise<boolean> {
  const { db, schema } = getDb();
  const rows = await db
    .select({ id: schema.tickets.id })
    .from(schema.tickets)
    .where(and(eq(schema.tickets.id, ticketId), readableBy(reader)));
  return rows.length === 1;
}
