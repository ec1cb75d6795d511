// The audit log: who did what, appended in the same transaction as the change it records. The
// table refuses UPDATE and DELETE (database triggers, migration 0010): nothing here edits it.
import { and, asc, desc, eq, gt, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb, type Tx } from "@db/client";
import { zonedDayStart } from "~/time";
import { AUDIT_ACTIONS, AUDIT_TARGETS } from "~/accounts/audit-actions";

export type AuditEvent = {
  /** Dotted verb, e.g. "signin.ok", "signin.failed", "user.created", "user.disabled", "plugin.toggled", "export.csv", "tfa.enabled". */
  action: string;
  actor?: { id: number; name: string } | null;
  target?: { type: string; id: string | number };
  detail?: Record<string, unknown>;
  ip?: string;
};

/** Appends one entry; pass the transaction of the change so both commit or neither. */
export async function audit(event: AuditEvent, tx?: Tx) {
  const { db, schema } = getDb();
  await (tx ?? db).insert(schema.auditLog).values({
    at: Date.now(),
    actorId: event.actor?.id ?? null,
    actorName: event.actor?.name ?? "",
    action: event.action,
    targetType: event.target?.type ?? "",
    targetId: event.target ? String(event.target.id) : "",
    detail: JSON.stringify(event.detail ?? {}),
    ip: event.ip ?? "",
  });
}

export const AUDIT_PAGE_SIZE = 50;

const YMD = /^\d{4}-\d{2}-\d{2}$/;
const validYmd = (v: string) => {
  if (!YMD.test(v)) return false;
  const [y, m, d] = v.split("-").map(Number);
  const at = new Date(Date.UTC(y, m - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === m - 1 && at.getUTCDate() === d;
};
const date = z
  .string()
  .trim()
  .refine((v) => v === "" || validYmd(v), "audit.errors.badDate");
const cursor = z
  .string()
  .trim()
  .refine((v) => v === "" || /^\d{1,15}$/.test(v), "audit.errors.badPage")
  .transform((v) => (v ? Number(v) : undefined));

/** The page's GET filters (every field optional; dates YYYY-MM-DD in the workspace time zone). */
export const auditFilterSchema = z
  .object({
    action: z
      .string()
      .trim()
      .toLowerCase()
      .max(80, "audit.errors.badAction")
      .regex(/^[a-z0-9_.-]*$/, "audit.errors.badAction")
      .transform((v) => v.replace(/\.+$/, "")),
    actor: z.string().trim().max(200, "audit.errors.badActor"),
    from: date,
    to: date,
    before: cursor,
    after: cursor,
  })
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: "audit.errors.rangeOrder", path: ["to"] });
export type AuditFilter = z.output<typeof auditFilterSchema>;
export const AUDIT_FILTER_FIELDS = ["action", "actor", "from", "to", "before", "after"] as const;

// the day boundaries of the filter are the workspace's days (app/time.ts)
export { zonedDayStart } from "~/time";

const nextDay = (ymd: string) => {
  const [y, m, d] = ymd.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
};

function conditions(filter: AuditFilter, timeZone: string): (SQL | undefined)[] {
  const { db, schema } = getDb();
  const a = schema.auditLog;
  const u = schema.users;
  const out: (SQL | undefined)[] = [];
  if (filter.action) {
    // "signin" is the exact action or the family under it (signin.ok, signin.failed)
    const prefix = `${filter.action}.`;
    out.push(or(eq(a.action, filter.action), sql`substr(${a.action}, 1, ${prefix.length}) = ${prefix}`));
  }
  if (filter.actor) {
    const name = filter.actor.toLowerCase();
    const byUsername = db
      .select({ id: u.id })
      .from(u)
      .where(sql`lower(${u.username}) = ${name}`);
    out.push(or(inArray(a.actorId, byUsername), sql`lower(${a.actorName}) = ${name}`));
  }
  if (filter.from) out.push(gte(a.at, zonedDayStart(filter.from, timeZone)));
  // the end day counts whole: up to the start of the day after it
  if (filter.to) out.push(lt(a.at, zonedDayStart(nextDay(filter.to), timeZone)));
  return out;
}

export interface AuditRow {
  id: number;
  at: number;
  actorId: number | null;
  actorName: string;
  actorUsername: string | null;
  action: string;
  /** The action has a label in the locale files (audit.action.*); otherwise the page shows it raw. */
  known: boolean;
  targetType: string;
  targetId: string;
  /** A user target's username, when the user still exists. */
  targetName: string | null;
  /** The detail as key and text pairs (nested values as JSON). */
  detail: [string, string][];
  ip: string;
}

function detailPairs(raw: string): [string, string][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw ? [["", raw]] : [];
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return parsed == null ? [] : [["", JSON.stringify(parsed)]];
  return Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]);
}

const KNOWN = new Set<string>(AUDIT_ACTIONS);

/**
 * One page of the log, newest first: `before` (an id) pages to older entries, `after` to newer
 * ones (keyset on the id, so a page stays stable while entries are added).
 */
export async function listAudit(filter: AuditFilter, timeZone: string, limit = AUDIT_PAGE_SIZE) {
  const { db, schema } = getDb();
  const a = schema.auditLog;
  const u = schema.users;
  const base = conditions(filter, timeZone);
  const newerFirst = filter.after === undefined;
  const page = await db
    .select({ entry: a, actorUsername: u.username })
    .from(a)
    .leftJoin(u, eq(u.id, a.actorId))
    .where(and(...base, filter.before !== undefined ? lt(a.id, filter.before) : undefined, filter.after !== undefined ? gt(a.id, filter.after) : undefined))
    .orderBy(newerFirst ? desc(a.id) : asc(a.id))
    .limit(limit + 1);
  const more = page.length > limit;
  const rows = (newerFirst ? page.slice(0, limit) : page.slice(0, limit).reverse()).map((r) => ({ ...r.entry, actorUsername: r.actorUsername }));
  // the other direction: is there anything past this page's edge?
  const edge = newerFirst ? rows[0]?.id : rows.at(-1)?.id;
  const beyond =
    edge === undefined
      ? []
      : await db
          .select({ id: a.id })
          .from(a)
          .where(and(...base, newerFirst ? gt(a.id, edge) : lt(a.id, edge)))
          .limit(1);
  const userIds = [...new Set(rows.filter((r) => r.targetType === "user" && /^\d+$/.test(r.targetId)).map((r) => Number(r.targetId)))];
  const targets = userIds.length ? await db.select({ id: u.id, username: u.username }).from(u).where(inArray(u.id, userIds)) : [];
  const usernames = new Map(targets.map((x) => [String(x.id), x.username]));
  const entries: AuditRow[] = rows.map((r) => ({
    id: r.id,
    at: r.at,
    actorId: r.actorId,
    actorName: r.actorName,
    actorUsername: r.actorUsername ?? null,
    action: r.action,
    known: KNOWN.has(r.action),
    targetType: r.targetType,
    targetId: r.targetId,
    targetName: r.targetType === "user" ? (usernames.get(r.targetId) ?? null) : null,
    detail: detailPairs(r.detail),
    ip: r.ip,
  }));
  return {
    entries,
    /** The id to page older from, when there are older entries. */
    older: (newerFirst ? more : beyond.length > 0) ? entries.at(-1)!.id : null,
    /** The id to page newer from, when there are newer entries. */
    newer: (newerFirst ? beyond.length > 0 : more) ? entries[0].id : null,
  };
}

const LOCALES: Record<string, string> = { en: "en-GB", ms: "ms-MY", zh: "zh-CN", ko: "ko-KR", ja: "ja-JP" };

/** An entry's time as the reader reads dates: their language, the workspace time zone. */
export function auditTimeFormat(language: string, timeZone: string) {
  const f = new Intl.DateTimeFormat(LOCALES[language] ?? language, {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  return (at: number) => f.format(at);
}

export { AUDIT_ACTIONS, AUDIT_TARGETS };
