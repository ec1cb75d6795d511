// Agent presence (spec sections 3 and 4). Shared by server and browser.
export const PRESENCE_STATUSES = ["ONLINE", "AWAY", "BUSY", "MEAL_BREAK", "WASHROOM", "PRAYER"] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];
export const STATUSES_NEEDING_REASON = ["AWAY", "BUSY"] as const satisfies readonly PresenceStatus[];
/** The status banner turns red at this many minutes. */
export const AWAY_RED_MINUTES = 58;

export const isPresenceStatus = (v: unknown): v is PresenceStatus => typeof v === "string" && (PRESENCE_STATUSES as readonly string[]).includes(v);

/** Why a status change is refused, as a translation key, or null when it may go ahead. */
export function statusChangeError(current: string, chosen: string, reason: string): string | null {
  if (!isPresenceStatus(chosen)) return "status.invalid";
  if (chosen === current) return "status.same";
  if ((STATUSES_NEEDING_REASON as readonly string[]).includes(chosen) && !reason.trim()) return "status.reasonRequired";
  return null;
}
