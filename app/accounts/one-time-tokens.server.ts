// Single-use links (invite, password reset, first-run setup). The link carries a random token;
// the database keeps only its hash, and using it is one conditional update, so it works once.
import { randomBytes } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { hashToken } from "./sessions.server";

export type TokenPurpose = "invite" | "password_reset" | "setup";

export async function issueOneTimeToken(
  purpose: TokenPurpose,
  opts: { userId?: number | null; email?: string; createdBy?: number | null; ttlMs: number },
  tx?: Tx,
) {
  const { db, schema } = getDb();
  const token = randomBytes(32).toString("base64url");
  const now = Date.now();
  await (tx ?? db).insert(schema.oneTimeTokens).values({
    hash: hashToken(token),
    purpose,
    userId: opts.userId ?? null,
    email: opts.email ?? "",
    createdBy: opts.createdBy ?? null,
    createdAt: now,
    expiresAt: now + opts.ttlMs,
  });
  return token;
}

/** The unused, unexpired token's row, without using it (to show the form it opens). */
export async function peekOneTimeToken(purpose: TokenPurpose, token: string | undefined) {
  if (!token || token.length > 100) return undefined;
  const { db, schema } = getDb();
  const t = schema.oneTimeTokens;
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.hash, hashToken(token)), eq(t.purpose, purpose), isNull(t.usedAt), gt(t.expiresAt, Date.now())));
  return row;
}

/** Marks the token used and returns its row; undefined when unknown, expired or already used. */
export async function consumeOneTimeToken(purpose: TokenPurpose, token: string | undefined, tx?: Tx) {
  if (!token || token.length > 100) return undefined;
  const { db, schema } = getDb();
  const t = schema.oneTimeTokens;
  const [row] = await (tx ?? db)
    .update(t)
    .set({ usedAt: Date.now() })
    .where(and(eq(t.hash, hashToken(token)), eq(t.purpose, purpose), isNull(t.usedAt), gt(t.expiresAt, Date.now())))
    .returning();
  return row;
}
