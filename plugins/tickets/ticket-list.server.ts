// The ticket list panel: filters from the query string, one page of 30, and what each row shows.
import { and, asc, count, desc, eq, exists, gte, inArray, isNotNull, lt, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { isChannel, type Kind } from "~/conversation/channels";
import { readableBy, type Reader } from "~/conversation/access.server";
import { listColumns, type ListRow } from "~/conversation/list-columns.server";
import { startOfDay } from "~/time";
import type { ListBadge } from "~/conversation/list-badges.server";
import { SLA_FILTERS, slaFilterCondition, slaOrder } from "@plugins/sla/list.server";

export const PAGE_SIZE = 30;
export const GROUP_PAGE_SIZE = 10;
export const STATUS_ALL = 4;

const DAY = 24 * 60 * 60 * 1000;
const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const optionalInt = z.coerce.number().int().positive().optional().catch(undefined);

/** Every filter is optional and a bad value is dropped, never an error: the list still loads. */
export const listQuery = z.object({
  status: z.coerce.number().int().min(0).max(4).catch(0),
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1),
  channel: z.string().refine(isChannel).optional().catch(undefined),
  label: optionalInt,
  department: optionalInt,
  priority: z.enum(["H", "M", "L", "none"]).optional().catch(undefined),
  campaign: optionalInt,
  assignee: z.string().max(100).optional().catch(undefined),
  emotion: z.enum(["anger", "fear", "happy", "love", "sad", "surprise", "curious"]).optional().catch(undefined),
  /** Tickets with a (preferred) appointment: any, or one within the next two days (spec apptLessTwoDays). */
  appt: z.enum(["any", "soon"]).optional().catch(undefined),
  dateField: z.enum(["created", "updated", "appointment"]).catch("updated"),
  preset: z.enum(["current", "yesterday", "1week", "custom"]).optional().catch(undefined),
  from: ymd.optional().catch(undefined),
  to: ymd.optional().catch(undefined),
  /** The SLA's clock (plugins/sla): breached, in its warning time, or running at all. */
  sla: z.enum(SLA_FILTERS).optional().catch(undefined),
  /** updated (newest activity first), priority (H, none, M, L), sla (least time left first). */
  sort: z.enum(["updated", "priority", "sla"]).catch("updated"),
});
export type ListQuery = z.infer<typeof listQuery>;

export function parseListQuery(params: URLSearchParams): ListQuery {
  const raw = Object.fromEntries([...params].filter(([, v]) => v !== ""));
  return listQuery.parse(raw);
}

/** [from, to) in unix ms for a date preset, or undefined for no date filter. */
export function dateRange(q: Pick<ListQuery, "preset" | "from" | "to">, now: number, timeZone: string): [number, number] | undefined {
  if (!q.preset) return undefined;
  const today = startOfDay(now, timeZone);
  switch (q.preset) {
    case "current":
      return [today, today + DAY];
    case "yesterday":
      return [today - DAY, today];
    case "1week":
      return [today - 6 * DAY, today + DAY];
    case "custom": {
      if (!q.from && !q.to) return undefined;
      const start = q.from ? startOfDay(Date.parse(`${q.from}T12:00:00Z`), timeZone) : 0;
      const end = q.to ? startOfDay(Date.parse(`${q.to}T12:00:00Z`), timeZone) + DAY : Number.MAX_SAFE_INTEGER;
      return [start, end];
    }
    default:
      return undefined;
  }
}

/** Conditions shared by the list, its groups and its counts. */
export function listConditions(reader: Reader, kind: Kind, q: ListQuery, now: number, timeZone: string): SQL[] {
  const { schema, db } = getDb();
  const t = schema.tickets;
  const where: (SQL | undefined)[] = [readableBy(reader)];
  where.push(eq(t.kind, kind));
  if (q.status !== STATUS_ALL) where.push(eq(t.status, q.status));
  if (q.channel) where.push(eq(t.channel, q.channel));
  if (q.department) where.push(eq(t.departmentId, q.department));
  if (q.priority) where.push(eq(t.severity, q.priority === "none" ? "" : q.priority));
  if (q.campaign) where.push(eq(t.campaignId, q.campaign));
  if (q.emotion) where.push(eq(t.emotion, q.emotion));
  if (q.sla) where.push(slaFilterCondition(q.sla, t.id));
  // EXISTS probes the primary keys row by row, so the newest-first scan stops after one page
  if (q.label) {
    const tl = schema.ticketLabels;
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(tl)
          .where(and(eq(tl.ticketId, t.id), eq(tl.labelId, q.label))),
      ),
    );
  }
  if (q.assignee) {
    const p = schema.participants;
    const u = schema.users;
    const userId = db.select({ id: u.id }).from(u).where(eq(u.username, q.assignee));
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(p)
          .where(and(eq(p.ticketId, t.id), eq(p.userId, userId), eq(p.assignee, true))),
      ),
    );
  }
  if (q.appt === "any") where.push(isNotNull(t.appointmentAt));
  if (q.appt === "soon") where.push(gte(t.appointmentAt, now), lt(t.appointmentAt, now + 2 * DAY));
  const range = dateRange(q, now, timeZone);
  if (range) {
    const column = q.dateField === "created" ? t.createdAt : q.dateField === "appointment" ? t.appointmentAt : t.updatedAt;
    where.push(gte(column, range[0]), lt(column, range[1]));
  }
  return where.filter((c): c is SQL => !!c);
}

export interface ListItem {
  id: number;
  ticketNumber: number;
  title: string;
  channel: string;
  kind: string;
  status: number;
  severity: string;
  lastMessage: string;
  /** End-to-end encrypted (plugins/e2ee): the preview says 'Encrypted message'. */
  encrypted: boolean;
  updatedAt: number;
  responded: boolean;
  unread: boolean;
  // only what a list item shows (the page's data is sent with every list page)
  assignees: { username: string; name: string }[];
  labels: { id: number; name: string | null; color: string | null; colorDark: string | null }[];
  /** Plugins' marks on the row (app/conversation/list-badges.server.ts), when the page asked for them. */
  badges?: (ListBadge & { plugin: string })[];
}

/** Priority order H, none, M, L (spec section 9), newest first within each. */
function orderBy(q: ListQuery) {
  const t = getDb().schema.tickets;
  const byPriority = sql`case ${t.severity} when 'H' then 0 when '' then 1 when 'M' then 2 when 'L' then 3 else 4 end`;
  if (q.sort === "sla") return [asc(slaOrder()), desc(t.updatedAt), desc(t.id)];
  return q.sort === "priority" ? [asc(byPriority), desc(t.updatedAt), desc(t.id)] : [desc(t.updatedAt), desc(t.id)];
}

/**
 * Counting a large filtered set costs a scan of all of it, so counts stop at a cap (at least
 * 1,000, and always ten pages past the current one); above it the list says "1000+".
 */
export function countCap(page: number) {
  return Math.max(1_000, (page + 10) * PAGE_SIZE);
}

export async function countUpTo(where: SQL | undefined, cap: number) {
  const { db, schema } = getDb();
  const capped = db
    .select({ one: sql`1` })
    .from(schema.tickets)
    .where(where)
    .limit(cap + 1)
    .as("capped");
  const [{ n }] = await db.select({ n: count() }).from(capped);
  return Number(n) > cap ? { total: cap, capped: true } : { total: Number(n), capped: false };
}

export async function listTickets(reader: Reader, kind: Kind, q: ListQuery, opts: { now?: number; timeZone: string }) {
  const { db, schema } = getDb();
  const where = and(...listConditions(reader, kind, q, opts.now ?? Date.now(), opts.timeZone));
  const t = schema.tickets;
  // The page's ids first, from the list index alone (the rows skipped by the offset are never
  // read from the table), then the 30 rows by id: page 1,000 costs what page 1 does, plus the walk.
  const pageIds = db
    .select({ id: t.id })
    .from(t)
    .where(where)
    .orderBy(...orderBy(q))
    .limit(PAGE_SIZE)
    .offset((q.page - 1) * PAGE_SIZE);
  const [items, { total, capped }] = await Promise.all([pageItems(reader, pageIds, q), countUpTo(where, countCap(q.page))]);
  return { items, total, capped, page: q.page, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

/** The page's rows by their ids, decorated. */
async function pageItems(reader: Reader, pageIds: SQLWrapper, q: ListQuery): Promise<ListItem[]> {
  const { db, schema } = getDb();
  const t = schema.tickets;
  // in-process SQLite: separate statements cost no wait
  if (getDb().dialect !== "pg")
    return decorate(
      reader,
      await db
        .select(listColumns())
        .from(t)
        .where(inArray(t.id, pageIds))
        .orderBy(...orderBy(q)),
    );
  // on PostgreSQL each statement is a round trip: the rows come with their labels and people
  // (JSON), beside the count, so the page is one wait
  const rows = await rowsWithDecorations(pageIds, q);
  return toItems(reader, rows, {
    labelsOf: new Map(rows.map((r) => [r.id, (r.labels ?? []).map(([id, name, color, colorDark]) => ({ ticketId: r.id, id, name, color, colorDark }))])),
    peopleOf: new Map(
      rows.map((r) => [
        r.id,
        (r.people ?? []).map(([userId, assignee, unread, username, name]) => ({ ticketId: r.id, userId, assignee, unread, username, name })),
      ]),
    ),
  });
}

/**
 * PostgreSQL: the rows `ids` names with their labels and people as JSON arrays, in one statement.
 * `tickets.id` is written out: drizzle renders a column unqualified, which inside these subqueries
 * would name labels.id or users.id.
 */
function rowsWithDecorations(ids: SQLWrapper, q: ListQuery) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  return db
    .select({
      ...listColumns(),
      labels: sql<
        [number, string | null, string | null, string | null][] | null
      >`(select json_agg(json_build_array(tl.label_id, l.name, l.color, l.color_dark) order by tl.label_id) from ticket_labels tl left join labels l on l.id = tl.label_id where tl.ticket_id = tickets.id)`,
      people: sql<
        [number, boolean, boolean, string, string][] | null
      >`(select json_agg(json_build_array(p.user_id, p.assignee, p.unread, u.username, u.name) order by p.added_at, p.user_id) from participants p join users u on u.id = p.user_id where p.ticket_id = tickets.id)`,
    })
    .from(t)
    .where(inArray(t.id, ids))
    .orderBy(...orderBy(q));
}

/** Rows decorated per query: the Department and Label tabs can ask for hundreds per group. */
const DECORATE_CHUNK = 1_000;

/** Adds labels, assignees and the reader's unread flag to rows (two small queries per 1,000 rows). */
export async function decorate(reader: Reader, rows: ListRow[]): Promise<ListItem[]> {
  if (rows.length > DECORATE_CHUNK) {
    const items: ListItem[] = [];
    for (let i = 0; i < rows.length; i += DECORATE_CHUNK) items.push(...(await decorate(reader, rows.slice(i, i + DECORATE_CHUNK))));
    return items;
  }
  if (rows.length === 0) return [];
  return toItems(reader, rows, await decorations(rows.map((r) => r.id)));
}

/** Labels and people (assignees, unread flags) of the tickets `ids`. */
async function decorations(ids: number[]) {
  const { db, schema } = getDb();
  const [labels, people] = await Promise.all([
    db
      .select({
        ticketId: schema.ticketLabels.ticketId,
        id: schema.ticketLabels.labelId,
        name: schema.labels.name,
        color: schema.labels.color,
        colorDark: schema.labels.colorDark,
      })
      .from(schema.ticketLabels)
      .leftJoin(schema.labels, eq(schema.labels.id, schema.ticketLabels.labelId))
      .where(inArray(schema.ticketLabels.ticketId, ids))
      .orderBy(asc(schema.ticketLabels.labelId)),
    db
      .select({
        ticketId: schema.participants.ticketId,
        userId: schema.participants.userId,
        assignee: schema.participants.assignee,
        unread: schema.participants.unread,
        username: schema.users.username,
        name: schema.users.name,
      })
      .from(schema.participants)
      .innerJoin(schema.users, eq(schema.users.id, schema.participants.userId))
      .where(inArray(schema.participants.ticketId, ids))
      .orderBy(asc(schema.participants.addedAt), asc(schema.participants.userId)),
  ]);
  return { labelsOf: groupBy(labels, (l) => l.ticketId), peopleOf: groupBy(people, (p) => p.ticketId) };
}

function toItems(reader: Reader, rows: ListRow[], { labelsOf, peopleOf }: Awaited<ReturnType<typeof decorations>>): ListItem[] {
  return rows.map((r) => {
    const here = peopleOf.get(r.id) ?? [];
    return {
      id: r.id,
      ticketNumber: r.ticketNumber,
      title: r.title,
      channel: r.channel,
      kind: r.kind,
      status: r.status,
      severity: r.severity,
      lastMessage: r.encryption ? "" : r.lastMessage,
      encrypted: r.encryption,
      updatedAt: r.updatedAt,
      responded: r.responded,
      unread: !!here.find((p) => p.userId === reader.id)?.unread,
      assignees: here.filter((p) => p.assignee).map(({ username, name }) => ({ username, name })),
      labels: (labelsOf.get(r.id) ?? []).map(({ id, name, color, colorDark }) => ({ id, name, color, colorDark })),
    };
  });
}

function groupBy<T, K>(items: T[], key: (item: T) => K) {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** The spec's list parameters (section 7) mapped onto the list panel's query names. */
export function listParamsFromApi(url: URL, status: string, offset: number) {
  const q = url.searchParams;
  const out = new URLSearchParams({ status, page: String(Math.floor(Math.max(0, offset) / 30) + 1) });
  const map: [string, string][] = [
    ["channelFilter", "channel"],
    ["labelFilter", "label"],
    ["depFilter", "department"],
    ["priorityFilter", "priority"],
    ["campaignId", "campaign"],
    ["assignee", "assignee"],
    ["agent", "assignee"],
    ["emotion", "emotion"],
    ["slaFilter", "sla"],
    ["sla", "sla"],
  ];
  for (const [from, to] of map) if (q.get(from)) out.set(to, q.get(from)!);
  const ranges: [string, string, string][] = [
    ["startDate", "endDate", "updated"],
    ["receivedStartDate", "receivedEndDate", "created"],
    ["appStartDate", "appEndDateFilter", "appointment"],
  ];
  for (const [start, end, field] of ranges) {
    if (q.get(start) || q.get(end)) {
      out.set("dateField", field);
      out.set("preset", "custom");
      if (q.get(start)) out.set("from", q.get(start)!.slice(0, 10));
      if (q.get(end)) out.set("to", q.get(end)!.slice(0, 10));
    }
  }
  if (q.get("apptLessTwoDays") && q.get("apptLessTwoDays") !== "false") out.set("appt", "soon");
  else if (q.get("appt") && q.get("appt") !== "false") out.set("appt", "any");
  if (q.get("sort") === "priority" || q.get("sort") === "sla") out.set("sort", q.get("sort")!);
  return out;
}
