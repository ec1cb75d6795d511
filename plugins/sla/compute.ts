// A ticket's SLA due times and state at a moment, from its facts: pure, so the scheduler, the
// sweep that follows ticket changes and the tests share it. The policy's targets: first response
// (from creation to the first staff message), next response (from a customer's message that waits
// for an answer), resolution (from creation or the last reopening to Resolved). Pending pauses the
// clocks when the policy says so.
import { addBusinessMinutes, type BusinessCalendar, type Pause } from "./business-hours";

export const PENDING = 1;
export const RESOLVED = 2;
export type Target = "first" | "next" | "resolution";
export type SlaState = "none" | "ok" | "warning" | "breached" | "paused" | "met";

export interface Policy {
  labelId: number;
  firstResponseMinutes: number | null;
  nextResponseMinutes: number | null;
  resolutionMinutes: number;
  warnMinutes: number;
  pauseOnPending: boolean;
}

export interface TicketFacts {
  createdAt: number;
  updatedAt: number;
  status: number;
  /** Status changes in time order (the conversation's status system messages). */
  statusChanges: { at: number; status: number }[];
  /** Messages that are not system messages, in time order: staff (an agent) or not (the customer). */
  messages: { at: number; staff: boolean }[];
}

export interface SlaEvent {
  kind: "warning" | "breach";
  target: Target;
  dueAt: number;
  /** When it is sent: the warning's time, or the due time itself. */
  at: number;
}

export interface Computed {
  firstDueAt: number | null;
  nextDueAt: number | null;
  resolutionDueAt: number | null;
  dueAt: number | null;
  dueTarget: Target | null;
  warnAt: number | null;
  state: SlaState;
  outcome: "met" | "breached" | null;
  breachedAt: number | null;
  /** What the scheduler may still have to send, once its time has come (sent ones are filtered by the caller). */
  events: SlaEvent[];
}

/** Spans the ticket spent Pending (the last one open while it still is). */
export function pendingPauses(f: TicketFacts): Pause[] {
  const out: Pause[] = [];
  let since: number | null = null;
  const changes = [...f.statusChanges];
  // a status the messages do not explain (set by an import or another path): from its last update
  const last = changes.at(-1)?.status ?? 0;
  if (last !== f.status) changes.push({ at: f.updatedAt, status: f.status });
  for (const c of changes) {
    if (c.status === PENDING && since === null) since = c.at;
    else if (c.status !== PENDING && since !== null) {
      out.push([since, c.at]);
      since = null;
    }
  }
  if (since !== null) out.push([since, null]);
  return out;
}

export function computeSla(f: TicketFacts, policy: Policy | null, cal: BusinessCalendar, now: number): Computed {
  const none: Computed = {
    firstDueAt: null,
    nextDueAt: null,
    resolutionDueAt: null,
    dueAt: null,
    dueTarget: null,
    warnAt: null,
    state: "none",
    outcome: null,
    breachedAt: null,
    events: [],
  };
  if (!policy) return none;
  const pauses = policy.pauseOnPending ? pendingPauses(f) : [];
  const changes = [...f.statusChanges];
  if ((changes.at(-1)?.status ?? 0) !== f.status) changes.push({ at: f.updatedAt, status: f.status });
  // the resolution clock starts at creation, again at each reopening (a ticket reopened after a breach gets a new due time)
  let start = f.createdAt;
  let resolvedAt: number | null = null;
  let prev = 0;
  for (const c of changes) {
    if (prev >= RESOLVED && c.status < RESOLVED) start = c.at;
    if (c.status >= RESOLVED && prev < RESOLVED) resolvedAt = c.at;
    if (c.status < RESOLVED) resolvedAt = null;
    prev = c.status;
  }
  const open = f.status < RESOLVED;
  const staff = f.messages.filter((m) => m.staff);
  const firstStaff = staff[0]?.at ?? null;
  const lastStaff = staff.at(-1)?.at ?? null;
  const waiting = lastStaff === null ? null : (f.messages.find((m) => !m.staff && m.at > lastStaff)?.at ?? null);

  const add = (from: number, minutes: number) => addBusinessMinutes(from, minutes, cal, pauses);
  const firstDueAt = policy.firstResponseMinutes ? add(f.createdAt, policy.firstResponseMinutes) : null;
  const nextDueAt = policy.nextResponseMinutes && waiting !== null ? add(waiting, policy.nextResponseMinutes) : null;
  const resolutionDueAt = add(start, policy.resolutionMinutes);
  const warnAt = add(start, Math.max(0, policy.resolutionMinutes - policy.warnMinutes));

  const outcome = open ? null : resolutionDueAt === null || (resolvedAt ?? f.updatedAt) <= resolutionDueAt ? "met" : "breached";
  const active: { target: Target; dueAt: number }[] = [];
  const events: SlaEvent[] = [];
  if (open) {
    if (firstDueAt !== null && firstStaff === null) active.push({ target: "first", dueAt: firstDueAt });
    if (nextDueAt !== null) active.push({ target: "next", dueAt: nextDueAt });
    if (resolutionDueAt !== null) {
      active.push({ target: "resolution", dueAt: resolutionDueAt });
      if (warnAt !== null && warnAt < resolutionDueAt) events.push({ kind: "warning", target: "resolution", dueAt: resolutionDueAt, at: warnAt });
    }
    for (const a of active) events.push({ kind: "breach", target: a.target, dueAt: a.dueAt, at: a.dueAt });
  }
  active.sort((a, b) => a.dueAt - b.dueAt);
  const next = active[0] ?? null;
  const breached = active.filter((a) => a.dueAt <= now);
  let state: SlaState;
  if (!open) state = outcome === "breached" ? "breached" : "met";
  else if (breached.length) state = "breached";
  else if (!next) state = pauses.some(([, to]) => to === null) ? "paused" : "none";
  else if (warnAt !== null && resolutionDueAt !== null && now >= warnAt) state = "warning";
  else state = "ok";
  return {
    firstDueAt,
    nextDueAt,
    resolutionDueAt,
    dueAt: next?.dueAt ?? null,
    dueTarget: next?.target ?? null,
    warnAt: open ? warnAt : null,
    state,
    outcome,
    breachedAt: open ? (breached[0]?.dueAt ?? null) : outcome === "breached" ? resolutionDueAt : null,
    events: events.sort((a, b) => a.at - b.at),
  };
}

/** The state a stored row has now (the list reads rows written a while ago). */
export function stateAt(row: { state: string; dueAt: number | null; warnAt: number | null }, now: number): SlaState {
  if (row.state === "met" || row.state === "none" || row.state === "paused") return row.state;
  if (row.dueAt !== null && row.dueAt <= now) return "breached";
  if (row.state === "breached") return "breached";
  if (row.warnAt !== null && row.warnAt <= now) return "warning";
  return "ok";
}
