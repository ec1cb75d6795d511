// Tokens behind public pages (live chat, survey, new ticket, public dashboards).
import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "@db/client";

export type TokenKind = "livechat" | "survey" | "new_ticket" | "dashboard";

export async function isValidToken(kind: TokenKind, token: string | undefined) {
  if (!token || token.length > 200) return false;
  const { db, schema } = getDb();
  const t = schema.publicTokens;
  const rows = await db
    .select({ token: t.token })
    .from(t)
    .where(and(eq(t.kind, kind), eq(t.token, token), isNull(t.revokedAt)));
  return rows.length === 1;
}
