// Public dashboard links: unguessable tokens (public_tokens, kind "dashboard") an admin creates
// and revokes. A revoked or unknown token answers 404.
import { randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { getDb } from "@db/client";
import { isValidToken } from "~/accounts/public-tokens.server";
import { formatDate, formatTime } from "~/time";

const KIND = "dashboard";

/** Live links, newest first, with their address and creation time in the workspace zone. */
export async function listDashboardTokens(origin: string, timeZone: string) {
  const { db, schema } = getDb();
  const t = schema.publicTokens;
  const rows = await db
    .select({ token: t.token, createdAt: t.createdAt })
    .from(t)
    .where(and(eq(t.kind, KIND), isNull(t.revokedAt)))
    .orderBy(desc(t.createdAt));
  return rows.map((r) => ({
    token: r.token,
    url: `${origin}/dashboard/${r.token}`,
    created: `${formatDate(r.createdAt, timeZone)} ${formatTime(r.createdAt, timeZone)}`,
  }));
}

/** 192 random bits, URL-safe. */
export async function createDashboardToken(now = Date.now()) {
  const { db, schema } = getDb();
  const token = randomBytes(24).toString("base64url");
  await db.insert(schema.publicTokens).values({ kind: KIND, token, createdAt: now });
  return token;
}

export async function revokeDashboardToken(token: string, now = Date.now()) {
  const { db, schema } = getDb();
  const t = schema.publicTokens;
  await db
    .update(t)
    .set({ revokedAt: now })
    .where(and(eq(t.kind, KIND), eq(t.token, token), isNull(t.revokedAt)));
}

export const isDashboardToken = (token: string | undefined) => isValidToken(KIND, token);
