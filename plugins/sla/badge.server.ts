// The list's SLA mark (manifest listBadge): each open ticket's time left to its nearest due time,
// or how long it is overdue, coloured by state. Read from sla_tickets only: one query a page.
import { inArray } from "drizzle-orm";
import { getDb } from "@db/client";
import type { BadgeInput, ListBadge } from "~/conversation/list-badges.server";
import { countdownAt, duration, type BadgeCountdown } from "~/conversation/countdown";
import { stateAt } from "./compute";
import { slaNow } from "./engine.server";

/** Whole minutes as the badge says them (the list's countdown counts the same way). */
export { duration };

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
    // the text as of now, and what the list needs to keep counting with JavaScript
    const countdown: BadgeCountdown = {
      now,
      dueAt,
      warnAt: r.warnAt === null ? null : Number(r.warnAt),
      left: "plugin_sla.badge.left",
      overdue: "plugin_sla.badge.overdue",
      leftLabel: "plugin_sla.badge.leftLabel",
      overdueLabel: "plugin_sla.badge.overdueLabel",
      values: { target },
    };
    const shown = countdownAt(countdown, now);
    // a row the engine has already marked breached stays breached
    out[r.ticketId] = { ...shown, state: state === "breached" ? "breached" : shown.state, countdown };
  }
  return out;
}
