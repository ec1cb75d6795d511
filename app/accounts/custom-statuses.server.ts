// Custom second statuses: admins add them beside the built-in ones (/settings/statuses); users
// choose them in the status menu like the built-ins. A user's second_status holds the name, so API
// clients show it as it is; a removed status stays on whoever has it until they change it.
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { isBuiltInStatus, statusChangeError, needsReason, type CustomStatus } from "~/presence";
import { broadcast } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { audit } from "./audit.server";
import { setPresence, type UserRow } from "./users.server";

export const MAX_CUSTOM_STATUSES = 30;
export const CUSTOM_STATUS_NAME_MAX = 40;

export const customStatusSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "account.statusNameRequired")
    .max(CUSTOM_STATUS_NAME_MAX, "account.statusNameTooLong")
    .regex(/^[^\u0000-\u001f\u007f]*$/, "account.statusNameInvalid"),
  needsReason: z.boolean(),
});

export type CustomStatusRow = CustomStatus & { id: number; createdAt: number };

export async function listCustomStatuses(): Promise<CustomStatusRow[]> {
  const { db, schema } = getDb();
  const t = schema.customStatuses;
  return db.select({ id: t.id, name: t.name, needsReason: t.needsReason, createdAt: t.createdAt }).from(t).orderBy(asc(t.name), asc(t.id));
}

type Actor = Pick<UserRow, "id" | "name">;
export type StatusEditResult = { ok: true; id: number } | { ok: false; error: string };

/** Adds one; a name equal to a built-in status or another custom one (any case) is refused. */
export async function addCustomStatus(actor: Actor, input: z.infer<typeof customStatusSchema>, ip = ""): Promise<StatusEditResult> {
  const { name, needsReason: asks } = customStatusSchema.parse(input);
  const handle = getDb();
  const t = handle.schema.customStatuses;
  const result = await handle.transaction(async (tx): Promise<StatusEditResult> => {
    const existing = await tx.select({ name: t.name }).from(t);
    const key = name.toUpperCase();
    if (isBuiltInStatus(key) || isBuiltInStatus(name) || existing.some((s) => s.name.toUpperCase() === key))
      return { ok: false, error: "account.statusExists" };
    if (existing.length >= MAX_CUSTOM_STATUSES) return { ok: false, error: "account.statusTooMany" };
    const [row] = await tx.insert(t).values({ name, needsReason: asks, createdAt: Date.now() }).returning({ id: t.id });
    await audit({ action: "status.custom_added", actor, target: { type: "custom_status", id: row.id }, detail: { name, needsReason: asks }, ip }, tx);
    return { ok: true, id: row.id };
  });
  if (result.ok) listChanged();
  return result;
}

/** Open pages reload their data, so status menus offer the new list. */
const listChanged = () => broadcast(SERVER_EVENTS.settingsChanged, { setting: "custom_statuses" });

export async function removeCustomStatus(actor: Actor, id: number, ip = ""): Promise<StatusEditResult> {
  const handle = getDb();
  const t = handle.schema.customStatuses;
  if (!Number.isSafeInteger(id)) return { ok: false, error: "account.statusNotFound" };
  const result = await handle.transaction(async (tx): Promise<StatusEditResult> => {
    const [row] = await tx.delete(t).where(eq(t.id, id)).returning();
    if (!row) return { ok: false, error: "account.statusNotFound" };
    await audit({ action: "status.custom_removed", actor, target: { type: "custom_status", id }, detail: { name: row.name }, ip }, tx);
    return { ok: true, id };
  });
  if (result.ok) listChanged();
  return result;
}

/**
 * The status menu's change (form and JSON twin): the rules of app/presence.ts with the custom
 * statuses added. Answers the refusal's translation key, or null once the status is set.
 */
export async function changeStatus(user: Pick<UserRow, "id" | "secondStatus">, status: string, reason: string): Promise<string | null> {
  const custom = await listCustomStatuses();
  const trimmed = reason.slice(0, 200);
  const error = statusChangeError(user.secondStatus || "ONLINE", status, trimmed, custom);
  if (error) return error;
  await setPresence(user.id, status, trimmed, needsReason(status, custom));
  return null;
}
