// SLA policies (per label and priority) and the business-hours calendar, as admins edit them on
// /sla: one zod schema per form, refusals as FormResult (app/forms.ts) with what was typed.
import { z } from "zod";
import { asc, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { formError, formResult, type FormResult } from "~/forms";
import { MAX_SLA_MINUTES, parseClock, type DayHours } from "./business-hours";
import { isHolidayCountry } from "./holidays.server";
import { labelChanged, saveCalendarSetting } from "./engine.server";

export const PRIORITY_CHOICES = ["", "H", "M", "L"] as const;

const minutes = (required: boolean) =>
  z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === "") {
        if (required) ctx.addIssue({ code: "custom", message: "plugin_sla.errors.minutes", params: { max: String(MAX_SLA_MINUTES) } });
        return null;
      }
      const n = Number(v);
      if (!/^\d+$/.test(v) || !Number.isInteger(n) || n < 1 || n > MAX_SLA_MINUTES) {
        ctx.addIssue({ code: "custom", message: "plugin_sla.errors.minutes", params: { max: String(MAX_SLA_MINUTES) } });
        return z.NEVER;
      }
      return n;
    });

export const policySchema = z.object({
  label_id: z.coerce.number({ message: "plugin_sla.errors.label" }).int().positive("plugin_sla.errors.label"),
  priority: z.enum(PRIORITY_CHOICES, { message: "plugin_sla.errors.priority" }),
  first_response: minutes(false),
  next_response: minutes(false),
  resolution: minutes(false),
  warn: minutes(true),
  pause_on_pending: z.string().optional(),
});
export type PolicyValues = Record<keyof z.input<typeof policySchema>, string>;

export async function listPolicies() {
  const { db, schema } = getDb();
  const p = schema.slaPolicies;
  return db
    .select({
      id: p.id,
      labelId: p.labelId,
      label: schema.labels.name,
      labelSla: schema.labels.sla,
      priority: p.priority,
      firstResponseMinutes: p.firstResponseMinutes,
      nextResponseMinutes: p.nextResponseMinutes,
      resolutionMinutes: p.resolutionMinutes,
      warnMinutes: p.warnMinutes,
      pauseOnPending: p.pauseOnPending,
    })
    .from(p)
    .innerJoin(schema.labels, eq(schema.labels.id, p.labelId))
    .orderBy(asc(schema.labels.name), asc(p.priority));
}

export async function labelChoices() {
  const { db, schema } = getDb();
  return db.select({ id: schema.labels.id, name: schema.labels.name, sla: schema.labels.sla }).from(schema.labels).orderBy(asc(schema.labels.name));
}

/** Creates or replaces the policy of a label and priority. */
export async function savePolicy(values: PolicyValues): Promise<{ ok: true } | { ok: false; result: FormResult }> {
  const parsed = policySchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, "policy") };
  const d = parsed.data;
  const handle = getDb();
  const { db, schema } = handle;
  const [label] = await db.select({ id: schema.labels.id, sla: schema.labels.sla }).from(schema.labels).where(eq(schema.labels.id, d.label_id));
  if (!label) return { ok: false, result: formResult({ intent: "policy", errors: { label_id: "plugin_sla.errors.label" }, values }) };
  // the label's own SLA stands in for a resolution time left empty: it too must be a sane number
  if (d.resolution === null && !(label.sla >= 1 && label.sla <= MAX_SLA_MINUTES))
    return {
      ok: false,
      result: formResult({ intent: "policy", errors: { resolution: "plugin_sla.errors.minutes" }, values, messageValues: { max: String(MAX_SLA_MINUTES) } }),
    };
  const row = {
    labelId: d.label_id,
    priority: d.priority,
    firstResponseMinutes: d.first_response,
    nextResponseMinutes: d.next_response,
    resolutionMinutes: d.resolution,
    warnMinutes: d.warn!,
    pauseOnPending: d.pause_on_pending === "on" || d.pause_on_pending === "1",
  };
  await handle.transaction(async (tx) => {
    await tx
      .insert(schema.slaPolicies)
      .values({ ...row, createdAt: Date.now() })
      .onConflictDoUpdate({ target: [schema.slaPolicies.labelId, schema.slaPolicies.priority], set: row });
  });
  await labelChanged(d.label_id);
  return { ok: true };
}

export async function deletePolicy(id: number) {
  const { db, schema } = getDb();
  const [gone] = await db.delete(schema.slaPolicies).where(eq(schema.slaPolicies.id, id)).returning({ labelId: schema.slaPolicies.labelId });
  if (gone) await labelChanged(gone.labelId);
  return !!gone;
}

export const DAYS = [0, 1, 2, 3, 4, 5, 6] as const;

/** The calendar form: per day open (checkbox), from and to (HH:MM), and the holiday country. */
export function parseCalendar(values: Record<string, string>): { ok: true; week: DayHours[]; country: string } | { ok: false; result: FormResult } {
  const errors: Record<string, string> = {};
  const week: DayHours[] = [];
  for (const d of DAYS) {
    if (!values[`open_${d}`]) {
      week.push([]);
      continue;
    }
    const from = parseClock(values[`from_${d}`] ?? "");
    const to = parseClock(values[`to_${d}`] ?? "");
    if (from === null) errors[`from_${d}`] = "plugin_sla.errors.clock";
    if (to === null) errors[`to_${d}`] = "plugin_sla.errors.clock";
    if (from !== null && to !== null && to <= from) errors[`to_${d}`] = "plugin_sla.errors.order";
    week.push(from !== null && to !== null ? [[from, to]] : []);
  }
  const country = (values.country ?? "").trim().toUpperCase();
  if (country && !isHolidayCountry(country)) errors.country = "plugin_sla.errors.country";
  if (Object.keys(errors).length) return { ok: false, result: formResult({ intent: "calendar", errors, values }) };
  return { ok: true, week, country };
}

export async function saveCalendar(values: Record<string, string>) {
  const parsed = parseCalendar(values);
  if (!parsed.ok) return parsed;
  await saveCalendarSetting({ week: parsed.week, country: parsed.country });
  return { ok: true as const };
}
