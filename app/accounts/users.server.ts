import { asc, eq, inArray, sql } from "drizzle-orm";
import { getDb } from "@db/client";
import { STATUSES_NEEDING_REASON } from "~/presence";
import { onlineUserIds, presenceChanged } from "~/realtime.server";

export type UserType = "admin" | "agent";

/** Usernames name one account whatever their case (unique index on lower(username)). */
export async function findUserByUsername(username: string) {
  const { db, schema } = getDb();
  const [user] = await db
    .select()
    .from(schema.users)
    .where(sql`lower(${schema.users.username}) = lower(${username})`);
  return user;
}

export async function findUserById(id: number) {
  const { db, schema } = getDb();
  const [user] = await db.select().from(schema.users).where(eq(schema.users.id, id));
  return user;
}

export type UserRow = NonNullable<Awaited<ReturnType<typeof findUserById>>>;

export function permissionsOf(user: Pick<UserRow, "permissions">): string[] {
  try {
    const list = JSON.parse(user.permissions);
    return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

export async function setUserLanguage(userId: number, language: string) {
  const { db, schema } = getDb();
  await db.update(schema.users).set({ language }).where(eq(schema.users.id, userId));
}

/**
 * The reason is kept only for the statuses that ask for one; `status` is a built-in one or a
 * custom one's name (checked by the caller: app/accounts/custom-statuses.server.ts changeStatus).
 */
export async function setPresence(
  userId: number,
  status: string,
  reason: string,
  keepReason = (STATUSES_NEEDING_REASON as readonly string[]).includes(status),
) {
  const { db, schema } = getDb();
  const away = status !== "ONLINE";
  await db
    .update(schema.users)
    .set({
      status: "ONLINE",
      secondStatus: away ? status : "",
      statusReason: keepReason ? reason : "",
      statusTime: Date.now(),
    })
    .where(eq(schema.users.id, userId));
  presenceChanged();
}

/** Users with a connected socket, with their presence; shadow admins and disabled users are never listed. */
export async function onlineAgents() {
  const ids = [...(await onlineUserIds())];
  if (!ids.length) return [];
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.users).where(inArray(schema.users.id, ids)).orderBy(asc(schema.users.name));
  return rows
    .filter((u) => !u.disabledAt && !permissionsOf(u).includes("shadow_admin"))
    .map((u) => ({ username: u.username, name: u.name, status: u.status, second_status: u.secondStatus, ts: u.statusTime }));
}
