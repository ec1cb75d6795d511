// Agent presence (spec sections 3 and 4). Shared by server and browser.
export const PRESENCE_STATUSES = ["ONLINE", "AWAY", "BUSY", "MEAL_BREAK", "WASHROOM", "PRAYER"] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];
export const STATUSES_NEEDING_REASON = ["AWAY", "BUSY"] as const satisfies readonly PresenceStatus[];
/** The status banner turns red at this many minutes. */
export const AWAY_RED_MINUTES = 58;

export const isPresenceStatus = (v: unknown): v is PresenceStatus => typeof v === "string" && (PRESENCE_STATUSES as readonly string[]).includes(v);

/** A second status an admin added (app/accounts/custom-statuses.server.ts): shown by its name. */
export type CustomStatus = { name: string; needsReason: boolean };

/** Built-in statuses have translated labels; a custom status is shown as its admin typed it. */
export const isBuiltInStatus = (s: string) => isPresenceStatus(s) || s === "OFFLINE";
export const statusLabel = (t: (key: string) => string, s: string) => (isBuiltInStatus(s) ? t(`status.${s}`) : s);
export const presenceClass = (s: string) => `presence presence-${isBuiltInStatus(s) ? s.toLowerCase() : "custom"}`;

/** Whether choosing this status asks for a reason (AWAY, BUSY, and custom ones marked so). */
export function needsReason(chosen: string, custom: readonly CustomStatus[] = []) {
  const own = custom.find((c) => c.name === chosen);
  return own ? own.needsReason : (STATUSES_NEEDING_REASON as readonly string[]).includes(chosen);
}

/** Why a status change is refused, as a translation key, or null when it may go ahead. */
export function statusChangeError(current: string, chosen: string, reason: string, custom: readonly CustomStatus[] = []): string | null {
  if (!isPresenceStatus(chosen) && !custom.some((c) => c.name === chosen)) return "status.invalid";
  if (chosen === current) return "status.same";
  if (needsReason(chosen, custom) && !reason.trim()) return "status.reasonRequired";
  return null;
}
