// Tokens behind public pages (live chat, survey, new ticket, public dashboards).
import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { getDb } from "@db/client";
import { audit } from "./audit.server";

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

/** Random and url-safe: a public link cannot be guessed (only the demo seed uses "demo"). */
export const newPublicToken = () => randomBytes(24).toString("base64url");

/** The link kinds an admin hands to customers (surveys and dashboards have their own pages). */
export const CUSTOMER_LINK_KINDS = ["livechat", "new_ticket"] as const;
export type CustomerLinkKind = (typeof CUSTOMER_LINK_KINDS)[number];

/** The newest live token of a kind, or undefined when the workspace has none. */
export async function currentToken(kind: TokenKind) {
  const { db, schema } = getDb();
  const t = schema.publicTokens;
  const [row] = await db
    .select({ token: t.token, createdAt: t.createdAt })
    .from(t)
    .where(and(eq(t.kind, kind), isNull(t.revokedAt)))
    .orderBy(desc(t.createdAt))
    .limit(1);
  return row;
}

/** A leaked link is replaced: every live token of the kind stops working and a new random one starts. */
export async function renewToken(kind: CustomerLinkKind, actor: { id: number; name: string }, ip: string) {
  const handle = getDb();
  const t = handle.schema.publicTokens;
  const token = newPublicToken();
  const now = Date.now();
  await handle.transaction(async (tx) => {
    await tx
      .update(t)
      .set({ revokedAt: now })
      .where(and(eq(t.kind, kind), isNull(t.revokedAt)));
    await tx.insert(t).values({ kind, token, createdAt: now });
    await audit({ action: "link.renewed", actor, target: { type: "link", id: kind }, ip }, tx);
  });
  return token;
}
