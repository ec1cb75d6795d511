// The ticket list's SLA filter and order (the tickets plugin's list panel and its JSON twins):
// conditions on sla_tickets, the rows this engine keeps, so they render on the server like any
// other filter. "breached": its nearest due time has passed; "warning": inside the warning time
// and not yet due; "running": any ticket whose clock runs. Sorting by time left puts the nearest
// due first and the tickets without a clock last.
import { and, eq, exists, gt, inArray, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import type { AnyColumn } from "drizzle-orm";
import { getDb } from "@db/client";
import { slaNow } from "./engine.server";

export const SLA_FILTERS = ["breached", "warning", "running"] as const;
export type SlaFilter = (typeof SLA_FILTERS)[number];

/** The states whose clock runs (paused, met and none have no time left). */
const CLOCKED = ["ok", "warning", "breached"];

/** A condition on the list's tickets: those `filter` keeps, at `now` (the engine's clock). */
export function slaFilterCondition(filter: SlaFilter, ticketId: AnyColumn, now = slaNow()): SQL {
  const { db, schema } = getDb();
  const s = schema.slaTickets;
  const running = and(inArray(s.state, CLOCKED), isNotNull(s.dueAt));
  const which = filter === "breached" ? and(running, lte(s.dueAt, now)) : filter === "warning" ? and(running, gt(s.dueAt, now), lte(s.warnAt, now)) : running;
  return exists(
    db
      .select({ one: sql`1` })
      .from(s)
      .where(and(eq(s.ticketId, ticketId), which)),
  );
}

/**
 * The list's order by time left: the due time (the most overdue first), tickets without a running
 * clock after all others. `tickets.id` is written out: the subquery must name the outer row.
 */
export function slaOrder(): SQL {
  return sql`coalesce((select sla_tickets.due_at from sla_tickets where sla_tickets.ticket_id = tickets.id and sla_tickets.state in ('ok', 'warning', 'breached')), 9007199254740991)`;
}
