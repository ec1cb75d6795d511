// Report queries: date ranges, dashboard aggregates and the summary report. Everything is
// aggregated in SQL over report_facts (see facts.server.ts) and works on SQLite and PostgreSQL.
import { sql, type SQL } from "drizzle-orm";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { KINDS, type Kind } from "~/conversation/channels";
import { startOfDay } from "~/time";
import { formatDate } from "~/time";
import { DAY, INTERVALS, REPORT_PAGE, REPORT_TYPES, STATUS_ALL, type Interval, type ReportType } from "./constants";
import { contributionsSql, DURATION_BOUNDS, ratingReasonSql, refreshFacts, rows } from "./facts.server";

export { DAY, REPORT_PAGE, INTERVALS, REPORT_TYPES, STATUS_ALL, type Interval, type ReportType };

// ---------------------------------------------------------------- date ranges

export type RangeError = "format" | "future" | "order" | "tooLong";
export interface DateRange {
  /** [from, to) in unix ms: whole days in the workspace time zone. */
  from: number;
  to: number;
  /** YYYY-MM-DD of the first and last day. */
  start: string;
  end: string;
}

const DMY = /^(\d{2})-(\d{2})-(\d{4})$/;
const YMD = /^(\d{4})-(\d{2})-(\d{2})$/;

/** YYYY-MM-DD of a DD-MM-YYYY or YYYY-MM-DD text, or undefined when it is not a real date. */
export function toYmd(text: string | null | undefined): string | undefined {
  const value = (text ?? "").trim();
  let y: string, m: string, d: string;
  const dmy = DMY.exec(value);
  const ymd = YMD.exec(value);
  if (dmy) [, d, m, y] = dmy;
  else if (ymd) [, y, m, d] = ymd;
  else return undefined;
  const at = new Date(Date.UTC(+y, +m - 1, +d));
  if (at.getUTCFullYear() !== +y || at.getUTCMonth() !== +m - 1 || at.getUTCDate() !== +d || +y < 1970) return undefined;
  return `${y}-${m}-${d}`;
}

/** DD-MM-YYYY, as the report's date picker shows it (spec section 9). */
export const toDmy = (ymd: string) => ymd.split("-").reverse().join("-");

/** Today's YYYY-MM-DD in the time zone. */
export function todayYmd(now: number, timeZone: string) {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

const dayStart = (ymd: string, timeZone: string) => startOfDay(Date.parse(`${ymd}T12:00:00Z`), timeZone);

/** The longest range a report covers (days). */
export const MAX_RANGE_DAYS = 366;

/**
 * A report range from two dates (DD-MM-YYYY from the form or YYYY-MM-DD from the API). Refused,
 * before any query, when a date is malformed, the range ends in the future, or starts after it ends.
 */
export function parseRange(
  start: string | null | undefined,
  end: string | null | undefined,
  now: number,
  timeZone: string,
): { ok: true; range: DateRange } | { ok: false; error: RangeError } {
  const s = toYmd(start);
  const e = toYmd(end);
  if (!s || !e) return { ok: false, error: "format" };
  if (e > todayYmd(now, timeZone)) return { ok: false, error: "future" };
  if (s > e) return { ok: false, error: "order" };
  const range = { from: dayStart(s, timeZone), to: dayStart(e, timeZone) + DAY, start: s, end: e };
  // a year at most: one request must not draw millions of quarter-hours
  if (range.to - range.from > MAX_RANGE_DAYS * DAY) return { ok: false, error: "tooLong" };
  return { ok: true, range };
}

/** The last `days` days up to today. */
export function defaultRange(now: number, timeZone: string, days = 30): DateRange {
  const end = todayYmd(now, timeZone);
  const to = dayStart(end, timeZone) + DAY;
  const start = todayYmd(to - days * DAY + DAY / 2, timeZone);
  return { from: dayStart(start, timeZone), to, start, end };
}

// ---------------------------------------------------------------- dashboards

export const isInterval = (v: unknown): v is Interval => typeof v === "string" && v in INTERVALS;

export const DASHBOARDS = {
  dashboard: { kinds: [...KINDS] },
  omnichannel: { kinds: ["ticket", "chat", "livechat"] },
  call: { kinds: ["call"] },
  interactions: { kinds: ["chat", "livechat"] },
  public: { kinds: ["ticket", "chat", "livechat"] },
} satisfies Record<string, { kinds: Kind[] }>;
export type DashboardId = keyof typeof DASHBOARDS;

/**
 * Channel groups of spec section 9; channels outside them count as "other". The spec names FB post
 * and TW mention as social media, FB PM, TW DM, LINE DM and WhatsApp as mobile messaging; the
 * channels it names elsewhere join the group they are like: Instagram's posts and mentions are
 * public posts, its direct messages, Telegram and SMS are one person's messages.
 */
export const CHANNEL_GROUPS: Record<string, string[]> = {
  email: ["EMAIL", "GRAPH_EMAIL"],
  chatbot: ["WAUCHAT"],
  livechat: ["LIVECHAT", "LIVECHAT2"],
  social: ["FB_PAGE_POST", "TW_MENTION", "IG_POST", "IG_MENTION"],
  mobile: ["FB_PM", "TW_DM", "LINE_DM", "WHATSAPP", "IG_PM", "TELEGRAM", "SMS"],
};
export const GROUP_ORDER = [...Object.keys(CHANNEL_GROUPS), "other"];
export function channelGroup(channel: string) {
  for (const [group, channels] of Object.entries(CHANNEL_GROUPS)) if (channels.includes(channel)) return group;
  return "other";
}

/** Buckets of first-response and resolution times (DURATION_BOUNDS, then open-ended). */
export const DURATION_BUCKETS = [
  ...DURATION_BOUNDS.map((below, i) => ({ key: ["lt5m", "lt15m", "lt1h", "lt4h", "lt24h"][i], below })),
  { key: "gt24h", below: Infinity },
];

export type SlaOutcome = "none" | "met" | "breached" | "pending";

// kind filters on report_facts are written as an expression so SQLite's planner keeps to the
// created_at index (with kind IN it walks the (kind, updated_at) index and visits every row)
const inKinds = (kinds: readonly string[]) =>
  sql`(kind || '') in (${sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  )})`;
const kindIn = (kinds: readonly string[]) =>
  sql`kind in (${sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  )})`;
const inRange = (range: Pick<DateRange, "from" | "to">) => sql`created_at >= ${range.from} and created_at < ${range.to}`;

/** Counts per dimension value: cs "CHANNEL|status", fr/res bucket, sla outcome, rating. */
export interface DimRow {
  dim: "cs" | "fr" | "res" | "sla" | "rating";
  key: string;
  n: number;
  sumMs: number;
  nMs: number;
}

async function maxSlaMinutes() {
  const [{ m }] = await rows<{ m: number | null }>(sql`select max(sla) as m from labels`);
  return Number(m ?? 0);
}

/**
 * Every dashboard chart but the interval volume is a fold of these rows. Whole UTC days come from
 * report_rollup; the partial days at either end of the range from report_facts; open
 * conversations with an SLA are split into in progress and breached against `now`.
 */
export async function breakdown(range: Pick<DateRange, "from" | "to">, kinds: readonly string[], now: number): Promise<DimRow[]> {
  const midFrom = Math.ceil(range.from / DAY) * DAY;
  const midTo = Math.max(midFrom, Math.floor(range.to / DAY) * DAY);
  const edges =
    midFrom >= midTo
      ? [range]
      : [
          { from: range.from, to: midFrom },
          { from: midTo, to: range.to },
        ].filter((e) => e.from < e.to);
  const edgeWhere = edges.length
    ? sql.join(
        edges.map((e) => sql`(${inRange(e)})`),
        sql` or `,
      )
    : sql`1 = 0`;
  const maxSla = await maxSlaMinutes();
  const [whole, partial, pending] = await Promise.all([
    midFrom < midTo
      ? rows<Record<string, unknown>>(sql`
          select dim, key, sum(n) as n, sum(sum_ms) as sum_ms, sum(n_ms) as n_ms from report_rollup
          where dim in ('cs', 'fr', 'res', 'sla', 'rating') and ${kindIn(kinds)} and at >= ${midFrom} and at < ${midTo}
          group by dim, key`)
      : Promise.resolve([]),
    rows<Record<string, unknown>>(sql`
      select dim, key, count(*) as n, coalesce(sum(ms), 0) as sum_ms, count(ms) as n_ms
      from (${contributionsSql(sql`(${edgeWhere}) and ${inKinds(kinds)}`, { byTime: false, volume: false })}) c
      group by dim, key`),
    // open and still inside their SLA: only conversations younger than the longest SLA qualify
    rows<{ n: number }>(sql`
      select count(*) as n from report_facts
      where created_at >= ${Math.max(range.from, now - maxSla * 60000)} and created_at < ${range.to} and ${inKinds(kinds)}
        and resolved_at is null and sla_minutes is not null and ${now} - created_at <= cast(sla_minutes as bigint) * 60000`),
  ]);
  const totals = new Map<string, DimRow>();
  for (const r of [...whole, ...partial]) {
    const id = `${r.dim}:${r.key}`;
    const row = totals.get(id) ?? { dim: r.dim as DimRow["dim"], key: String(r.key), n: 0, sumMs: 0, nMs: 0 };
    row.n += Number(r.n);
    row.sumMs += Number(r.sum_ms);
    row.nMs += Number(r.n_ms);
    totals.set(id, row);
  }
  const open = totals.get("sla:open");
  totals.delete("sla:open");
  const inProgress = Number(pending[0]?.n ?? 0);
  const breached = totals.get("sla:breached") ?? { dim: "sla" as const, key: "breached", n: 0, sumMs: 0, nMs: 0 };
  breached.n += (open?.n ?? 0) - inProgress;
  totals.set("sla:breached", breached);
  totals.set("sla:pending", { dim: "sla", key: "pending", n: inProgress, sumMs: 0, nMs: 0 });
  return [...totals.values()].filter((r) => r.n !== 0);
}

/**
 * Conversations created per interval, every interval of the range present (zeros included),
 * summed from the 15-minute rollup (time zones are whole quarters of an hour from UTC).
 */
export async function intervalVolume(range: Pick<DateRange, "from" | "to">, kinds: readonly string[], interval: Interval) {
  const step = INTERVALS[interval];
  const result = await rows<{ b: number; n: number }>(sql`
    select cast((at - ${range.from}) / ${step} as integer) as b, sum(n) as n
    from report_rollup where dim = 'vol' and ${kindIn(kinds)} and at >= ${range.from} and at < ${range.to}
    group by 1 order by 1`);
  const counts = new Map(result.map((r) => [Number(r.b), Number(r.n)]));
  const buckets = Math.ceil((range.to - range.from) / step);
  return Array.from({ length: buckets }, (_, i) => ({ at: range.from + i * step, count: counts.get(i) ?? 0 }));
}

/** Emotions a conversation can carry (spec 'Ticket' emotion), in the order reports show them. */
export const EMOTIONS = ["anger", "fear", "happy", "love", "sad", "surprise", "curious"] as const;

/** Conversations of the range by their customer's emotion (those with one). */
export async function emotionCounts(range: Pick<DateRange, "from" | "to">, kinds: readonly string[]) {
  const result = await rows<{ e: string; n: number }>(sql`
    select emotion as e, count(*) as n from tickets
    where created_at >= ${range.from} and created_at < ${range.to} and ${kindIn(kinds)} and emotion <> ''
    group by emotion`);
  return new Map(result.map((r) => [String(r.e), Number(r.n)]));
}

/** Minutes each agent has spent in their current status (the only status time recorded so far). */
export async function auxTimes(now: number) {
  const { db, schema } = getDb();
  const u = schema.users;
  const agents = await db
    .select({ username: u.username, name: u.name, status: u.status, secondStatus: u.secondStatus, statusTime: u.statusTime })
    .from(u)
    .where(isNull(u.disabledAt))
    .orderBy(u.name);
  return agents
    .filter((a) => a.statusTime > 0)
    .map((a) => ({ agent: a.name, username: a.username, status: a.secondStatus || a.status, minutes: Math.max(0, Math.round((now - a.statusTime) / 60000)) }));
}

// ---------------------------------------------------------------- summary report

export const isReportType = (v: unknown): v is ReportType => typeof v === "string" && (REPORT_TYPES as readonly string[]).includes(v);

export interface SummaryRow {
  id: number;
  ticketNumber: number;
  title: string;
  channel: string;
  kind: string;
  status: number;
  labels: { id: number; name: string | null }[];
  assignees: { username: string; name: string; photo: string | null }[];
  department: string | null;
  createdAt: number;
  updatedAt: number;
  slaMinutes: number | null;
  sla: SlaOutcome;
  rating: number | null;
  reason: string | null;
}

/**
 * report_facts rows of conversations the reader may read (the list's rule, readableBy), or
 * undefined for no limit. Written against an unaliased `tickets`, which readableBy refers to.
 */
function readableFacts(reader: Reader, column: SQL): SQL | undefined {
  const readable = readableBy(reader);
  return readable && sql`${column} in (select tickets.id from tickets where ${readable})`;
}

const summaryWhere = (reader: Reader, type: ReportType, status: number, range: Pick<DateRange, "from" | "to">) =>
  sql.join(
    [
      inRange(range),
      type === "all" ? undefined : sql`kind = ${type}`,
      status === STATUS_ALL ? undefined : sql`status = ${status}`,
      readableFacts(reader, sql`ticket_id`),
    ].filter((x): x is SQL => !!x),
    sql` and `,
  );

/**
 * The SLA engine's verdict when it keeps one (plugins/sla writes sla_tickets: business hours,
 * pauses, reopenings): met or breached once resolved, breached once an open one's deadline passed.
 * Null when it has none, and the wall-clock rule below answers.
 */
export function engineOutcome(r: { sla_outcome?: unknown; sla_state?: unknown; sla_due_at?: unknown }, now: number): SlaOutcome | null {
  if (r.sla_state == null || r.sla_state === "none") return null;
  if (r.sla_outcome === "met" || r.sla_outcome === "breached") return r.sla_outcome;
  if (r.sla_state === "breached" || (r.sla_due_at != null && Number(r.sla_due_at) <= now)) return "breached";
  return "pending";
}

/** SLA columns of sla_tickets s, for engineOutcome. */
const engineColumns = sql`s.outcome as sla_outcome, s.state as sla_state, s.due_at as sla_due_at`;

export function slaOutcome(f: { slaMinutes: number | null; createdAt: number; resolvedAt: number | null }, now: number): SlaOutcome {
  if (f.slaMinutes == null) return "none";
  const limit = f.slaMinutes * 60000;
  if (f.resolvedAt != null) return f.resolvedAt - f.createdAt <= limit ? "met" : "breached";
  return now - f.createdAt > limit ? "breached" : "pending";
}

/** One page of the summary report, newest first, and the number of rows in the range: only rows the reader may read. */
export async function summary(
  reader: Reader,
  type: ReportType,
  status: number,
  range: Pick<DateRange, "from" | "to">,
  offset: number,
  limit: number,
  now: number,
) {
  await refreshFacts();
  const { db, schema } = getDb();
  const where = summaryWhere(reader, type, status, range);
  const [page, [{ n }]] = await Promise.all([
    rows<Record<string, unknown>>(sql`
      select f.ticket_id as id, f.sla_minutes as sla_minutes, f.resolved_at as resolved_at, f.rating as rating,
        t.ticket_number as ticket_number, t.title as title, t.channel as channel, t.kind as kind, t.status as status,
        t.created_at as created_at, t.updated_at as updated_at, d.name as department, ${ratingReasonSql()} as reason, ${engineColumns}
      from (select * from report_facts where ${where} order by created_at desc, ticket_id desc limit ${limit} offset ${offset}) f
      join tickets t on t.id = f.ticket_id
      left join departments d on d.id = t.department_id
      left join sla_tickets s on s.ticket_id = f.ticket_id
      order by f.created_at desc, f.ticket_id desc`),
    rows<{ n: number }>(sql`select count(*) as n from report_facts where ${where}`),
  ]);
  const ids = page.map((r) => Number(r.id));
  const [labels, people] = ids.length
    ? await Promise.all([
        db
          .select({ ticketId: schema.ticketLabels.ticketId, id: schema.ticketLabels.labelId, name: schema.labels.name })
          .from(schema.ticketLabels)
          .leftJoin(schema.labels, sql`${schema.labels.id} = ${schema.ticketLabels.labelId}`)
          .where(inArray(schema.ticketLabels.ticketId, ids))
          .orderBy(schema.ticketLabels.labelId),
        db
          .select({ ticketId: schema.participants.ticketId, username: schema.users.username, name: schema.users.name, photo: schema.users.photo })
          .from(schema.participants)
          .innerJoin(schema.users, sql`${schema.users.id} = ${schema.participants.userId}`)
          .where(and(inArray(schema.participants.ticketId, ids), eq(schema.participants.assignee, true)))
          .orderBy(schema.participants.addedAt, schema.participants.userId),
      ])
    : [[], []];
  const items: SummaryRow[] = page.map((r) => {
    const id = Number(r.id);
    const f = {
      slaMinutes: r.sla_minutes == null ? null : Number(r.sla_minutes),
      createdAt: Number(r.created_at),
      resolvedAt: r.resolved_at == null ? null : Number(r.resolved_at),
    };
    return {
      id,
      ticketNumber: Number(r.ticket_number),
      title: String(r.title),
      channel: String(r.channel),
      kind: String(r.kind),
      status: Number(r.status),
      labels: labels.filter((l) => l.ticketId === id).map(({ id, name }) => ({ id, name })),
      assignees: people.filter((p) => p.ticketId === id).map(({ username, name, photo }) => ({ username, name, photo })),
      department: r.department == null ? null : String(r.department),
      createdAt: f.createdAt,
      updatedAt: Number(r.updated_at),
      slaMinutes: f.slaMinutes,
      sla: engineOutcome(r, now) ?? slaOutcome(f, now),
      rating: r.rating == null ? null : Number(r.rating),
      reason: r.reason == null ? null : String(r.reason),
    };
  });
  return { items, count: Number(n) };
}

/** Rows grouped by their creation day (DD/MM/YYYY), in order: the summary report's tables. */
export function groupByDay<T extends { createdAt: number }>(items: T[], timeZone: string) {
  const groups: { key: string; rows: T[] }[] = [];
  for (const item of items) {
    const key = formatDate(item.createdAt, timeZone);
    if (groups.at(-1)?.key !== key) groups.push({ key, rows: [] });
    groups.at(-1)!.rows.push(item);
  }
  return groups;
}

// ---------------------------------------------------------------- CSV export

export const EXPORT_BATCH = 1000;
export const EXPORT_HEADER = [
  "ticket_number",
  "title",
  "channel",
  "kind",
  "status",
  "created_at",
  "updated_at",
  "interval_start",
  "first_response_minutes",
  "resolution_minutes",
  "sla_minutes",
  "sla",
  "rating",
];

const iso = (at: number | null) => (at == null ? "" : new Date(at).toISOString());
const minutes = (from: number, to: number | null) => (to == null ? "" : ((to - from) / 60000).toFixed(1));

/**
 * Every conversation of the range that the reader may read as CSV rows, in ticket order, read in keyset batches of 1,000
 * along the primary key so memory stays flat and each batch starts where the last one ended.
 * (`+created_at` keeps the planners off the created_at index, which would sort the whole range
 * for every batch.)
 */
export async function* exportRows(
  reader: Reader,
  range: Pick<DateRange, "from" | "to">,
  kinds: readonly string[],
  step: Interval,
  now: number,
  batchSize = EXPORT_BATCH,
): AsyncGenerator<(string | number)[]> {
  await refreshFacts();
  const size = INTERVALS[step];
  const readable = readableFacts(reader, sql`f.ticket_id`);
  const access = readable ? sql`and ${readable}` : sql``;
  let after: number | undefined;
  for (;;) {
    const cursor = after ? sql`and f.ticket_id > ${after}` : sql``;
    const batch = await rows<Record<string, unknown>>(sql`
      select f.ticket_id as id, f.created_at as created_at, f.status as status, f.first_response_at as fr, f.resolved_at as res,
        f.sla_minutes as sla_minutes, f.rating as rating, f.kind as kind, f.channel as channel,
        t.ticket_number as ticket_number, t.title as title, t.updated_at as updated_at, ${engineColumns}
      from report_facts f join tickets t on t.id = f.ticket_id left join sla_tickets s on s.ticket_id = f.ticket_id
      where +f.created_at >= ${range.from} and +f.created_at < ${range.to} and (f.kind || '') in (${sql.join(
        kinds.map((k) => sql`${k}`),
        sql`, `,
      )}) ${access} ${cursor}
      order by f.ticket_id
      limit ${batchSize}`);
    for (const r of batch) {
      const createdAt = Number(r.created_at);
      const res = r.res == null ? null : Number(r.res);
      const slaMinutes = r.sla_minutes == null ? null : Number(r.sla_minutes);
      yield [
        Number(r.ticket_number),
        String(r.title),
        String(r.channel),
        String(r.kind),
        Number(r.status),
        iso(createdAt),
        iso(Number(r.updated_at)),
        iso(range.from + Math.floor((createdAt - range.from) / size) * size),
        minutes(createdAt, r.fr == null ? null : Number(r.fr)),
        minutes(createdAt, res),
        slaMinutes ?? "",
        engineOutcome(r, now) ?? slaOutcome({ slaMinutes, createdAt, resolvedAt: res }, now),
        r.rating == null ? "" : Number(r.rating),
      ];
    }
    if (batch.length < batchSize) return;
    after = Number(batch[batch.length - 1].id);
  }
}
