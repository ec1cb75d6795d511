// Uniqueness of usernames (whatever their case) and emails, checked inside the transaction that
// writes the account. The rules of their shape are in username.ts.
import { and, eq, ne, sql } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { normalizeEmail, normalizeUsername } from "./username";

/** Whether another account (not `exceptId`) has this username in any case. */
export async function usernameTaken(username: string, opts: { exceptId?: number } = {}, tx?: Tx) {
  const { db, schema } = getDb();
  const u = schema.users;
  const same = sql`lower(${u.username}) = ${normalizeUsername(username).toLowerCase()}`;
  const rows = await (tx ?? db)
    .select({ id: u.id })
    .from(u)
    .where(opts.exceptId ? and(same, ne(u.id, opts.exceptId)) : same)
    .limit(1);
  return rows.length > 0;
}

/** Whether another account (not `exceptId`) has this email; no email ("") is never taken. */
export async function emailTaken(email: string, opts: { exceptId?: number } = {}, tx?: Tx) {
  const address = normalizeEmail(email);
  if (!address) return false;
  const { db, schema } = getDb();
  const u = schema.users;
  const rows = await (tx ?? db)
    .select({ id: u.id })
    .from(u)
    .where(opts.exceptId ? and(eq(u.email, address), ne(u.id, opts.exceptId)) : eq(u.email, address))
    .limit(1);
  return rows.length > 0;
}
