// The SLA engine: each ticket's due times (sla_tickets), kept in step with the ticket, and the
// scheduler that sends the warning and the breach at their time.
//
// Following the ticket: every change that moves an SLA (a customer's message, an agent's reply, a
// status or label change, a reopening) moves tickets.updated_at, so `sync` recomputes the tickets
// whose updated_at differs from the one their row was computed from, walking updated_at from a
// watermark (settings row sla_sync_mark, looked at again a minute back for late commits).
//
// Sending: `runDue` takes the rows whose next_check_at has come and, per ticket in one
// transaction, writes an sla_alerts row per event (unique per ticket, kind, target and due time),
// the system message, the notifications, and the row's next check. A pass killed midway leaves
// the rest due: nothing is lost, and an event already written is never sent again. Both run in
// one job kind queued each few seconds under a key per time slot: one node runs each slot.
import fs from "node:fs";
import path from "node:path";
import { and, asc, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import { getDb, rows, type DbHandle, type Tx } from "@db/client";
import { systemMessage } from "~/conversation/model.server";
import { newMessages } from "~/conversation/events.server";
import { addNotification, told } from "~/conversation/notifications.server";
import { translatorFor } from "~/i18n.server";
import { isLanguage } from "~/i18n";
import { getSettings } from "~/models/settings.server";
import { formatDate } from "~/time";
import { ALWAYS_OPEN, type BusinessCalendar, type DayHours } from "./business-hours";
import { holidayChecker } from "./holidays.server";
import { computeSla, type Policy, type SlaEvent, type TicketFacts } from "./compute";

export const SLA_JOB = "sla.tick";
export const CALENDAR_KEY = "sla_calendar";
const MARK_KEY = "sla_sync_mark";
const LATE_COMMIT_MS = 60_000;
const SYNC_BATCH = 1000;
const DUE_BATCH = 500;
/** On first sight of a ticket, events older than this are history, not news. */
const BACKFILL_GRACE_MS = 15 * 60_000;
/** Conversation kinds an SLA applies to (internal chats have none). */
export const SLA_KINDS = ["ticket", "livechat", "call"];

/** Spec section 9: SLA alerts a month by plan (0 trial as Starter; Enterprise and unknown: no limit). */
export function monthlyAlertLimit(plan: number): number | null {
  if (plan === 0 || plan === 1) return 100;
  if (plan === 2) return 300;
  if (plan === 3) return 500;
  return null;
}

/** The file (in DATA_DIR) whose milliseconds move the test clock forward while the server runs. */
export const TEST_CLOCK_FILE = "sla-test-clock";

/**
 * A test clock: in NODE_ENV=test only, SLA_CLOCK_OFFSET_MS and the milliseconds written in
 * DATA_DIR/sla-test-clock (the browser tests move it without restarting the server) move the
 * engine's now forward. Any other environment: the real clock, and no file is read.
 */
export function slaNow() {
  // read at run time: the server's build folds process.env.NODE_ENV to "production", and the
  // browser tests run that build with NODE_ENV=test
  const env = process.env;
  if (env.NODE_ENV !== "test") return Date.now();
  return Date.now() + (Number(env.SLA_CLOCK_OFFSET_MS) || 0) + testClockFileOffset(env.DATA_DIR);
}

function testClockFileOffset(dir: string | undefined) {
  if (!dir) return 0;
  try {
    return Number(fs.readFileSync(path.join(dir, TEST_CLOCK_FILE), "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

export interface CalendarSetting {
  /** Index 0 Sunday .. 6 Saturday; empty day: closed. */
  week: DayHours[];
  /** date-holidays country code, "" for none. */
  country: string;
}
export const DEFAULT_CALENDAR: CalendarSetting = { week: ALWAYS_OPEN, country: "" };

async function settingValue(handle: DbHandle, key: string) {
  const { db, schema } = handle;
  const [row] = await db.select({ value: schema.settings.value }).from(schema.settings).where(eq(schema.settings.key, key));
  return row?.value ?? null;
}

async function putSetting(handle: DbHandle | Tx, key: string, value: string) {
  const { schema } = getDb();
  const db = "db" in handle ? handle.db : handle;
  await db.insert(schema.settings).values({ key, value }).onConflictDoUpdate({ target: schema.settings.key, set: { value } });
}

export async function calendarSetting(handle: DbHandle = getDb()): Promise<CalendarSetting> {
  const raw = await settingValue(handle, CALENDAR_KEY);
  if (!raw) return DEFAULT_CALENDAR;
  try {
    const parsed = JSON.parse(raw) as CalendarSetting;
    if (Array.isArray(parsed.week) && parsed.week.length === 7) return { week: parsed.week, country: parsed.country ?? "" };
  } catch {
    // a broken row: the default
  }
  return DEFAULT_CALENDAR;
}

export async function saveCalendarSetting(value: CalendarSetting, handle: DbHandle = getDb()) {
  await putSetting(handle, CALENDAR_KEY, JSON.stringify(value));
  // every open ticket's due times move: recompute them all on the next passes
  await handle.db
    .update(handle.schema.slaTickets)
    .set({ seenUpdatedAt: -1 })
    .where(sql`${handle.schema.slaTickets.outcome} is null`);
}

export async function businessCalendar(handle: DbHandle = getDb()): Promise<BusinessCalendar> {
  const [setting, settings] = await Promise.all([calendarSetting(handle), getSettings()]);
  return { timeZone: settings.timezone || "UTC", week: setting.week, isHoliday: holidayChecker(setting.country) };
}

/** The policy of each label (by priority): a label without one has its own sla as resolution time. */
async function policiesFor(handle: DbHandle, ticketIds: number[]) {
  const { db, schema } = handle;
  const labelRows = ticketIds.length
    ? await db
        .select({ ticketId: schema.ticketLabels.ticketId, labelId: schema.labels.id, sla: schema.labels.sla })
        .from(schema.ticketLabels)
        .innerJoin(schema.labels, eq(schema.labels.id, schema.ticketLabels.labelId))
        .where(inArray(schema.ticketLabels.ticketId, ticketIds))
    : [];
  const labelIds = [...new Set(labelRows.map((l) => l.labelId))];
  const policies = labelIds.length ? await db.select().from(schema.slaPolicies).where(inArray(schema.slaPolicies.labelId, labelIds)) : [];
  return (ticketId: number, severity: string): Policy | null => {
    let best: Policy | null = null;
    for (const l of labelRows.filter((r) => r.ticketId === ticketId)) {
      const p = policies.find((x) => x.labelId === l.labelId && x.priority === severity) ?? policies.find((x) => x.labelId === l.labelId && x.priority === "");
      const candidate: Policy = {
        labelId: l.labelId,
        firstResponseMinutes: p?.firstResponseMinutes ?? null,
        nextResponseMinutes: p?.nextResponseMinutes ?? null,
        resolutionMinutes: p?.resolutionMinutes ?? l.sla,
        warnMinutes: p?.warnMinutes ?? 15,
        pauseOnPending: p?.pauseOnPending ?? true,
      };
      // a label whose SLA is not a sane number (0, or written around the form) has none
      if (!(candidate.resolutionMinutes >= 1)) continue;
      if (!best || candidate.resolutionMinutes < best.resolutionMinutes) best = candidate;
    }
    return best;
  };
}

/** The facts computeSla needs, for a batch of tickets. */
async function factsOf(handle: DbHandle, ticketIds: number[]) {
  const { db, schema } = handle;
  const m = schema.messages;
  const [tickets, messages] = await Promise.all([
    db
      .select({
        id: schema.tickets.id,
        status: schema.tickets.status,
        severity: schema.tickets.severity,
        createdAt: schema.tickets.createdAt,
        updatedAt: schema.tickets.updatedAt,
      })
      .from(schema.tickets)
      .where(inArray(schema.tickets.id, ticketIds)),
    db
      .select({ ticketId: m.ticketId, at: m.createdAt, type: m.type, body: m.body, senderUserId: m.senderUserId })
      .from(m)
      .where(and(inArray(m.ticketId, ticketIds), sql`(${m.type} <> 'system' or ${m.body} like '{"event":"status"%')`))
      .orderBy(asc(m.createdAt), asc(m.id)),
  ]);
  const facts = new Map<number, TicketFacts & { severity: string }>();
  for (const t of tickets)
    facts.set(t.id, {
      createdAt: Number(t.createdAt),
      updatedAt: Number(t.updatedAt),
      status: t.status,
      severity: t.severity,
      statusChanges: [],
      messages: [],
    });
  for (const msg of messages) {
    const f = facts.get(msg.ticketId);
    if (!f) continue;
    if (msg.type === "system") {
      try {
        const e = JSON.parse(msg.body) as { event: string; status: number };
        if (e.event === "status") f.statusChanges.push({ at: Number(msg.at), status: Number(e.status) });
      } catch {
        // not ours
      }
    } else f.messages.push({ at: Number(msg.at), staff: msg.senderUserId !== null });
  }
  return facts;
}

/** Alerts already written for these tickets: "ticket|kind|target|due". */
async function sentKeys(handle: DbHandle | Tx, ticketIds: number[]) {
  const { schema } = getDb();
  const db = "db" in handle ? handle.db : handle;
  if (!ticketIds.length) return new Set<string>();
  const a = schema.slaAlerts;
  const sent = await db.select({ ticketId: a.ticketId, kind: a.kind, target: a.target, dueAt: a.dueAt }).from(a).where(inArray(a.ticketId, ticketIds));
  return new Set(sent.map((s) => `${s.ticketId}|${s.kind}|${s.target}|${Number(s.dueAt)}`));
}

const eventKey = (ticketId: number, e: SlaEvent) => `${ticketId}|${e.kind}|${e.target}|${e.dueAt}`;

/** Recomputes and stores the SLA rows of these tickets; answers how many have an SLA. */
export async function recompute(ticketIds: number[], now = slaNow(), handle: DbHandle = getDb()) {
  if (!ticketIds.length) return 0;
  const { schema } = handle;
  const [cal, facts, policyOf, sent, known] = await Promise.all([
    businessCalendar(handle),
    factsOf(handle, ticketIds),
    policiesFor(handle, ticketIds),
    sentKeys(handle, ticketIds),
    handle.db.select({ id: schema.slaTickets.ticketId }).from(schema.slaTickets).where(inArray(schema.slaTickets.ticketId, ticketIds)),
  ]);
  const seen = new Set(known.map((k) => k.id));
  const values: (typeof schema.slaTickets.$inferInsert)[] = [];
  const backfill: (typeof schema.slaAlerts.$inferInsert)[] = [];
  for (const [id, f] of facts) {
    const policy = policyOf(id, f.severity);
    const c = computeSla(f, policy, cal, now);
    // a ticket the engine sees for the first time (the plugin just switched on over many old
    // tickets): what fell due long before is recorded as past, not announced now
    if (!seen.has(id))
      for (const e of c.events)
        if (e.at <= now - BACKFILL_GRACE_MS) {
          backfill.push({ ticketId: id, kind: e.kind, target: e.target, dueAt: e.dueAt, counted: false, createdAt: now });
          sent.add(eventKey(id, e));
        }
    const pending = c.events.filter((e) => !sent.has(eventKey(id, e)));
    values.push({
      ticketId: id,
      labelId: policy?.labelId ?? null,
      firstDueAt: c.firstDueAt,
      nextDueAt: c.nextDueAt,
      resolutionDueAt: c.resolutionDueAt,
      dueAt: c.dueAt,
      dueTarget: c.dueTarget,
      warnAt: c.warnAt,
      warnMinutes: policy?.warnMinutes ?? 15,
      nextCheckAt: pending.length ? Math.min(...pending.map((e) => e.at)) : null,
      state: c.state,
      outcome: c.outcome,
      breachedAt: c.breachedAt,
      seenUpdatedAt: f.updatedAt,
      computedAt: now,
    });
  }
  for (let i = 0; i < backfill.length; i += 200)
    await handle.db
      .insert(schema.slaAlerts)
      .values(backfill.slice(i, i + 200))
      .onConflictDoNothing();
  for (let i = 0; i < values.length; i += 200) {
    const chunk = values.slice(i, i + 200);
    await handle.db
      .insert(schema.slaTickets)
      .values(chunk)
      .onConflictDoUpdate({
        target: schema.slaTickets.ticketId,
        set: Object.fromEntries(
          [
            "label_id",
            "first_due_at",
            "next_due_at",
            "resolution_due_at",
            "due_at",
            "due_target",
            "warn_at",
            "warn_minutes",
            "next_check_at",
            "state",
            "outcome",
            "breached_at",
            "seen_updated_at",
            "computed_at",
          ].map((c) => [camel(c), sql.raw(`excluded.${c}`)]),
        ),
      });
  }
  return values.filter((v) => v.state !== "none").length;
}
const camel = (s: string) => s.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/**
 * Follows ticket changes: recomputes the tickets updated since the watermark whose row is older
 * (or missing), and the rows marked stale (seen_updated_at -1: the calendar or a policy changed).
 * Answers how many tickets were recomputed.
 */
export async function sync(now = slaNow(), handle: DbHandle = getDb()) {
  const mark = Number((await settingValue(handle, MARK_KEY)) ?? 0);
  const kinds = sql.join(
    SLA_KINDS.map((k) => sql`${k}`),
    sql`, `,
  );
  let done = 0;
  let from = Math.max(0, mark - LATE_COMMIT_MS);
  for (;;) {
    const batch = await rows<{ id: number; updated_at: number }>(
      sql`select t.id as id, t.updated_at as updated_at from tickets t left join sla_tickets s on s.ticket_id = t.id
        where t.kind in (${kinds}) and t.updated_at >= ${from} and (s.ticket_id is null or s.seen_updated_at <> t.updated_at)
        order by t.updated_at, t.id limit ${SYNC_BATCH}`,
      handle,
    );
    if (!batch.length) break;
    await recompute(
      batch.map((r) => Number(r.id)),
      now,
      handle,
    );
    done += batch.length;
    const last = Number(batch.at(-1)!.updated_at);
    // never past this pass's clock: a ticket dated in the future (a skewed node) must not hide the ones after it
    await putSetting(handle, MARK_KEY, String(Math.max(mark, Math.min(last, now))));
    if (batch.length < SYNC_BATCH) break;
    from = last;
  }
  const stale = await handle.db
    .select({ id: handle.schema.slaTickets.ticketId })
    .from(handle.schema.slaTickets)
    .where(eq(handle.schema.slaTickets.seenUpdatedAt, -1))
    .limit(SYNC_BATCH);
  if (stale.length) {
    await recompute(
      stale.map((s) => s.id),
      now,
      handle,
    );
    done += stale.length;
  }
  return done;
}

/** Marks the SLA rows of a label's open tickets stale (its policy changed): the next sync recomputes them. */
export async function labelChanged(labelId: number, handle: DbHandle = getDb()) {
  const s = handle.schema.slaTickets;
  await handle.db
    .update(s)
    .set({ seenUpdatedAt: -1 })
    .where(and(sql`${s.outcome} is null`, sql`${s.ticketId} in (select ticket_id from ticket_labels where label_id = ${labelId})`));
}

const monthStart = (at: number) => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonthStart = (at: number) => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** SLA alerts counted this (UTC) month. */
export async function alertsThisMonth(now = slaNow(), handle: DbHandle | Tx = getDb()) {
  const { schema } = getDb();
  const db = "db" in handle ? handle.db : handle;
  const a = schema.slaAlerts;
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)` })
    .from(a)
    .where(and(eq(a.counted, true), sql`${a.createdAt} >= ${monthStart(now)}`));
  return Number(n);
}

type Recipient = { id: number; language: string | null };

async function recipientsOf(tx: Tx, ticket: { id: number; departmentId: number | null }) {
  const { schema } = getDb();
  const u = schema.users;
  const assignees = await tx
    .select({ id: u.id, language: u.language })
    .from(schema.participants)
    .innerJoin(u, eq(u.id, schema.participants.userId))
    .where(and(eq(schema.participants.ticketId, ticket.id), eq(schema.participants.assignee, true), sql`${u.disabledAt} is null`));
  const admins = await tx
    .select({ id: u.id, language: u.language })
    .from(u)
    .where(and(eq(u.type, "admin"), sql`${u.disabledAt} is null`, ticket.departmentId === null ? sql`true` : eq(u.departmentId, ticket.departmentId)));
  const seen = new Map<number, Recipient>();
  for (const r of [...assignees, ...admins]) seen.set(r.id, r);
  return [...seen.values()];
}

export interface DueResult {
  sent: { ticketId: number; kind: string; target: string }[];
  /** Events recorded without telling anyone: the plan's monthly limit was reached. */
  overLimit: number;
}

/** Sends the warnings and breaches due at `now`. */
export async function runDue(now = slaNow(), handle: DbHandle = getDb()): Promise<DueResult> {
  const { schema } = handle;
  const s = schema.slaTickets;
  const result: DueResult = { sent: [], overLimit: 0 };
  const settings = await getSettings();
  const limit = monthlyAlertLimit(Number(settings.plan));
  const fallbackLanguage = isLanguage(settings.language) ? settings.language : "en";
  let used: number | null = null;
  for (;;) {
    const due = await handle.db
      .select({ ticketId: s.ticketId })
      .from(s)
      .where(and(isNotNull(s.nextCheckAt), lte(s.nextCheckAt, now)))
      .orderBy(asc(s.nextCheckAt))
      .limit(DUE_BATCH);
    if (!due.length) break;
    const ids = due.map((d) => d.ticketId);
    // what is due is worked out from the ticket as it is now (it may have moved since its row was written)
    const [cal, facts, policyOf] = await Promise.all([businessCalendar(handle), factsOf(handle, ids), policiesFor(handle, ids)]);
    for (const id of ids) {
      const f = facts.get(id);
      const c = f ? computeSla(f, policyOf(id, f.severity), cal, now) : null;
      const told: { ticket: { id: number; ticketNumber: number; departmentId: number | null; kind: string }; messageId: number | null; users: number[] }[] = [];
      await handle.transaction(async (tx) => {
        if (handle.dialect === "pg") await (tx as unknown as { execute(q: unknown): Promise<unknown> }).execute(sql`select pg_advisory_xact_lock(731020)`);
        const [ticket] = await tx
          .select({
            id: schema.tickets.id,
            ticketNumber: schema.tickets.ticketNumber,
            departmentId: schema.tickets.departmentId,
            kind: schema.tickets.kind,
            title: schema.tickets.title,
          })
          .from(schema.tickets)
          .where(eq(schema.tickets.id, id));
        if (!ticket || !c) {
          await tx.update(s).set({ nextCheckAt: null }).where(eq(s.ticketId, id));
          return;
        }
        const sent = await sentKeys(tx, [id]);
        const pending = c.events.filter((e) => !sent.has(eventKey(id, e)));
        // a warning overtaken by its deadline is not sent late: the breach says more
        const breachOf = new Set(pending.filter((e) => e.kind === "breach" && e.at <= now).map((e) => `${e.target}|${e.dueAt}`));
        for (const e of pending.filter((e) => e.at <= now)) {
          const skip = e.kind === "warning" && breachOf.has(`${e.target}|${e.dueAt}`);
          // the month's count is read once a pass and kept here (one pass at a time: the job's slot key)
          if (limit !== null && used === null) used = await alertsThisMonth(now, tx);
          const counted = !skip && (limit === null || used! < limit);
          const [row] = await tx
            .insert(schema.slaAlerts)
            .values({ ticketId: id, kind: e.kind, target: e.target, dueAt: e.dueAt, counted, createdAt: now })
            .onConflictDoNothing()
            .returning({ id: schema.slaAlerts.id });
          if (!row || skip) continue;
          if (counted && used !== null) used++;
          if (!counted) {
            result.overLimit++;
            await tellLimitReached(tx, limit!, now, fallbackLanguage);
            continue;
          }
          const messageId =
            e.kind === "warning"
              ? await systemMessage(
                  tx,
                  id,
                  { event: "plugin", by: "", text: "plugin_sla.system.warning", values: { minutes: String(policyOf(id, f!.severity)?.warnMinutes ?? 15) } },
                  now,
                )
              : await systemMessage(tx, id, { event: "plugin", by: "", text: `plugin_sla.system.breach.${e.target}`, values: {} }, now);
          const people = await recipientsOf(tx, ticket);
          for (const p of people) {
            const t = translatorFor(isLanguage(p.language ?? "") ? (p.language as never) : fallbackLanguage);
            const body =
              e.kind === "warning"
                ? t("plugin_sla.system.warning", { minutes: String(policyOf(id, f!.severity)?.warnMinutes ?? 15) })
                : t(`plugin_sla.system.breach.${e.target}`);
            await addNotification(
              tx,
              {
                userId: p.id,
                type: e.kind === "warning" ? "sla_warning" : "sla_breach",
                category: "sla",
                channel: ticket.kind,
                ticketNumber: ticket.ticketNumber,
                title: ticket.title,
                body,
              },
              now,
            );
          }
          told.push({ ticket, messageId, users: people.map((p) => p.id) });
          result.sent.push({ ticketId: id, kind: e.kind, target: e.target });
        }
        const left = pending.filter((e) => e.at > now);
        await tx
          .update(s)
          .set({
            nextCheckAt: left.length ? Math.min(...left.map((e) => e.at)) : null,
            state: c.state,
            dueAt: c.dueAt,
            dueTarget: c.dueTarget,
            warnAt: c.warnAt,
            breachedAt: c.breachedAt,
            outcome: c.outcome,
          })
          .where(eq(s.ticketId, id));
      });
      // once committed: the open pages get the system message, the people their notification
      for (const t of told) {
        if (t.messageId !== null) await newMessages(t.ticket, [t.messageId], "").catch(() => undefined);
        for (const u of t.users) told_(u);
      }
    }
    if (due.length < DUE_BATCH) break;
  }
  return result;
}
const told_ = (userId: number) => told(userId, "sla");

/** Once a month: the admins hear that the plan's SLA alerts are used up (and until when). */
async function tellLimitReached(tx: Tx, limit: number, now: number, fallback: string) {
  const { schema } = getDb();
  const key = `sla_limit_told:${new Date(monthStart(now)).toISOString().slice(0, 7)}`;
  const [fresh] = await tx
    .insert(schema.settings)
    .values({ key, value: String(now) })
    .onConflictDoNothing()
    .returning({ key: schema.settings.key });
  if (!fresh) return;
  const settings = await getSettings();
  const admins = await tx
    .select({ id: schema.users.id, language: schema.users.language })
    .from(schema.users)
    .where(and(eq(schema.users.type, "admin"), sql`${schema.users.disabledAt} is null`));
  for (const a of admins) {
    const t = translatorFor(isLanguage(a.language ?? "") ? (a.language as never) : (fallback as never));
    const text = t("plugin_sla.limit.reached", { limit, date: formatDate(nextMonthStart(now), settings.timezone) });
    await addNotification(tx, { userId: a.id, type: "sla_limit", category: "sla", channel: "sla", ticketNumber: null, title: text, body: "" }, now);
  }
}

/** One scheduler pass: follow the tickets, then send what is due. */
export async function tick(now = slaNow(), handle: DbHandle = getDb()) {
  const synced = await sync(now, handle);
  const due = await runDue(now, handle);
  return { synced, ...due };
}
