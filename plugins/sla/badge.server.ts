// The list's SLA mark (manifest listBadge): each open ticket's time left to its nearest due time,
// or how long it is overdue, coloured by state. Read from sla_tickets only: one query a page.
import { inArray } from "drizzle-orm";
import { getDb } from "@db/client";
import type { BadgeInput, ListBadge } from "~/conversation/list-badges.server";
import { stateAt } from "./compute";
import { slaNow } from "./engine.server";

/** Whole minutes as the badge says them: "12 min", "1 h 5 min", "2 d 3 h" (the unit names a text of each shape). */
export function duration(ms: number): { unit: "minutes" | "hours" | "days"; values: Record<string, string> } {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return { unit: "minutes", values: { minutes: String(minutes) } };
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return { unit: "hours", values: { hours: String(hours), minutes: String(minutes % 60) } };
  return { unit: "days", values: { days: String(Math.floor(hours / 24)), hours: String(hours % 24) } };
}

export async function badges({ ticketIds }: BadgeInput): Promise<Record<number, ListBadge>> {
  const now = slaNow();
  const { db, schema } = getDb();
  const s = schema.slaTickets;
  const found = await db
    .select({ ticketId: s.ticketId, state: s.state, dueAt: s.dueAt, warnAt: s.warnAt, dueTarget: s.dueTarget })
    .from(s)
    .where(inArray(s.ticketId, ticketIds));
  const out: Record<number, ListBadge> = {};
  for (const r of found) {
    const dueAt = r.dueAt === null ? null : Number(r.dueAt);
    const state = stateAt({ state: r.state, dueAt, warnAt: r.warnAt === null ? null : Number(r.warnAt) }, now);
    const target = `t:plugin_sla.target.${r.dueTarget ?? "resolution"}`;
    if (state === "paused") out[r.ticketId] = { text: { key: "plugin_sla.badge.paused" }, state: "neutral", label: { key: "plugin_sla.badge.pausedLabel" } };
    if (dueAt === null || !(state === "ok" || state === "warning" || state === "breached")) continue;
    const d = duration(Math.abs(dueAt - now));
    const values = { ...d.values, target };
    out[r.ticketId] =
      dueAt > now
        ? { text: { key: `plugin_sla.badge.left.${d.unit}`, values }, state, label: { key: "plugin_sla.badge.leftLabel", values } }
        : { text: { key: `plugin_sla.badge.overdue.${d.unit}`, values }, state: "breached", label: { key: "plugin_sla.badge.overdueLabel", values } };
  }
  return out;
}
