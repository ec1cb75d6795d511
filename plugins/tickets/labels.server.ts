// Ticket labels: the list, and the admin's batch save (updates, inserts and deletes in one
// transaction). Validation texts are the spec's (sections 5 and 8); the page translates the codes.
import { asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";

export interface Label {
  id: number;
  name: string;
  color: string;
  colorDark: string;
  level: number;
  sla: number;
}

/** Defaults of a new label (spec section 3). */
export const LABEL_DEFAULTS = { name: "", color: "#000000", colorDark: "#000000", level: 0, sla: 30 } as const;
export const LABEL_NAME_MAX = 60;
/** More rows than this in one save is not a form anyone filled in. */
export const LABEL_BATCH_MAX = 500;
const INT_MAX = 2_147_483_647; // PostgreSQL integer

/** Error codes in order of precedence: the first one found in a batch is the one reported. */
export const LABEL_ERROR_CODES = ["empty", "whole", "color", "input"] as const;
export type LabelErrorCode = (typeof LABEL_ERROR_CODES)[number];

export const LABEL_MESSAGES: Record<LabelErrorCode | "saved", string> = {
  empty: "Please check all the fields are not empty.",
  whole: "Priority level and SLA must be whole number.",
  color: "Color format is not correct",
  input: "Please check the input.",
  saved: "Label updated.",
};

export const LABEL_FIELDS = ["name", "color", "colorDark", "level", "sla"] as const;
export type LabelField = (typeof LABEL_FIELDS)[number];

/** Where a problem is: a row (index into the submitted rows) and field, or a deleted id. */
export interface LabelIssue {
  code: LabelErrorCode;
  row?: number;
  field?: LabelField | "id";
  deleteId?: number;
}

export type SaveLabelsResult = { ok: true; labels: Label[] } | { ok: false; code: LabelErrorCode; message: string; issues: LabelIssue[] };

export async function listLabels(): Promise<Label[]> {
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.labels).orderBy(asc(schema.labels.id));
  return rows.map(({ id, name, color, colorDark, level, sla }) => ({ id, name, color, colorDark, level, sla }));
}

// ---- validation ------------------------------------------------------------------------------

const isCode = (value: string): value is LabelErrorCode => (LABEL_ERROR_CODES as readonly string[]).includes(value);
const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/** A required scalar (string or number) as trimmed text; blank -> empty, other types -> input. */
function required(v: unknown, ctx: z.RefinementCtx): string | undefined {
  if (blank(v)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "empty" });
    return undefined;
  }
  if (typeof v !== "string" && typeof v !== "number") {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "input" });
    return undefined;
  }
  return String(v).trim();
}

const nameSchema = z.unknown().transform((v, ctx) => {
  if (typeof v === "number") {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "input" });
    return z.NEVER;
  }
  const text = required(v, ctx);
  if (text === undefined) return z.NEVER;
  if ([...text].length > LABEL_NAME_MAX) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "input" });
    return z.NEVER;
  }
  return text;
});

const colorSchema = z.unknown().transform((v, ctx) => {
  const text = required(v, ctx);
  if (text === undefined) return z.NEVER;
  if (!/^#[0-9a-f]{6}$/i.test(text)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "color" });
    return z.NEVER;
  }
  return text.toLowerCase();
});

const wholeSchema = z.unknown().transform((v, ctx) => {
  const text = required(v, ctx);
  if (text === undefined) return z.NEVER;
  if (!/^[+-]?\d+$/.test(text)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "whole" });
    return z.NEVER;
  }
  const n = Number(text);
  if (n < 0 || n > INT_MAX) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "input" });
    return z.NEVER;
  }
  return n === 0 ? 0 : n; // no -0
});

const idSchema = z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)]).pipe(z.number().int().min(1).max(INT_MAX));

/** The spec's flag for an unsaved label: such a row is inserted whatever its (temporary) id. */
const isNewFlag = (v: unknown) => v === true || v === 1 || v === "1" || v === "true";

/** No id (or the isNew flag) means a new label. */
const rowIdSchema = z.unknown().transform((v, ctx) => {
  if (blank(v)) return undefined;
  const parsed = idSchema.safeParse(v);
  if (!parsed.success) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: "input" });
    return z.NEVER;
  }
  return parsed.data;
});

const rowSchema = z.preprocess(
  (v) => (v && typeof v === "object" && !Array.isArray(v) && isNewFlag((v as { isNew?: unknown }).isNew) ? { ...v, id: undefined } : v),
  z
    .object({
      id: rowIdSchema,
      isNew: z.unknown().optional(),
      name: nameSchema,
      color: colorSchema,
      colorDark: colorSchema,
      level: wholeSchema,
      sla: wholeSchema,
    })
    .transform(({ isNew: _isNew, ...row }) => row),
);

const batchSchema = z.object({
  rows: z.array(rowSchema).max(LABEL_BATCH_MAX),
  deleteIds: z.array(idSchema).max(LABEL_BATCH_MAX),
});

export type LabelRow = z.output<typeof rowSchema>;

/** API clients send JSON strings; blank means an empty list. */
function fromJson(value: unknown): { ok: true; value: unknown } | { ok: false } {
  if (value === undefined || value === null) return { ok: true, value: [] };
  if (typeof value !== "string") return { ok: true, value };
  if (value.trim() === "") return { ok: true, value: [] };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}

function failure(issues: LabelIssue[]): SaveLabelsResult & { ok: false } {
  const code = LABEL_ERROR_CODES.find((c) => issues.some((i) => i.code === c)) ?? "input";
  return { ok: false, code, message: LABEL_MESSAGES[code], issues };
}

/**
 * Checks a batch without touching the database: rows (array or JSON string) and ids to delete
 * (array or JSON string). Rows whose id is also deleted are not checked: the delete wins.
 */
export function validateLabels(
  rowsInput: unknown,
  deleteInput: unknown,
): { ok: true; rows: { index: number; row: LabelRow }[]; deleteIds: number[] } | (SaveLabelsResult & { ok: false }) {
  const rowsJson = fromJson(rowsInput);
  const deleteJson = fromJson(deleteInput);
  if (!rowsJson.ok || !deleteJson.ok) return failure([{ code: "input" }]);
  const rawRows = rowsJson.value;
  const rawDeletes = deleteJson.value;
  if (!Array.isArray(rawRows) || !Array.isArray(rawDeletes)) return failure([{ code: "input" }]);

  const deletes = z.array(idSchema).max(LABEL_BATCH_MAX).safeParse(rawDeletes);
  if (!deletes.success) return failure([{ code: "input", field: "id" }]);
  const deleteIds = [...new Set(deletes.data)];
  const deleted = new Set(deleteIds);
  const kept = rawRows
    .map((row, index) => ({ row, index }))
    .filter(({ row }) => {
      if (!row || typeof row !== "object" || Array.isArray(row)) return true;
      const { id, isNew } = row as Record<string, unknown>;
      const parsed = isNewFlag(isNew) ? undefined : idSchema.safeParse(id);
      return !(parsed?.success && deleted.has(parsed.data));
    });

  const parsed = batchSchema.safeParse({ rows: kept.map((k) => k.row), deleteIds });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue): LabelIssue => {
      const [scope, position, field] = issue.path;
      const code = isCode(issue.message) ? issue.message : "input";
      if (scope !== "rows" || typeof position !== "number") return { code };
      const out: LabelIssue = { code, row: kept[position]?.index };
      if (typeof field === "string" && (field === "id" || (LABEL_FIELDS as readonly string[]).includes(field))) out.field = field as LabelField | "id";
      return out;
    });
    return failure(issues);
  }
  const rows = parsed.data.rows.map((row, i) => ({ index: kept[i].index, row }));
  const seen = new Set<number>();
  for (const { index, row } of rows) {
    if (row.id === undefined) continue;
    if (seen.has(row.id)) return failure([{ code: "input", row: index, field: "id" }]);
    seen.add(row.id);
  }
  return { ok: true, rows, deleteIds };
}

class UnknownLabel extends Error {
  constructor(readonly issue: LabelIssue) {
    super("unknown label");
  }
}

/**
 * Validates every row, then writes all changes in one transaction: deletes, updates of rows with
 * an id, inserts of rows without one. Any error leaves the labels as they were.
 * Returns the new list.
 */
export async function saveLabels(rowsInput: unknown, deleteInput: unknown = []): Promise<SaveLabelsResult> {
  const checked = validateLabels(rowsInput, deleteInput);
  if (!checked.ok) return checked;
  const handle = getDb();
  const { schema } = handle;
  const { labels } = schema;
  try {
    await handle.transaction(async (tx) => {
      if (checked.deleteIds.length) {
        const gone = await tx.delete(labels).where(inArray(labels.id, checked.deleteIds)).returning({ id: labels.id });
        const found = new Set(gone.map((g) => g.id));
        const missing = checked.deleteIds.find((id) => !found.has(id));
        if (missing !== undefined) throw new UnknownLabel({ code: "input", deleteId: missing });
      }
      const inserts: (typeof labels.$inferInsert)[] = [];
      for (const { index, row } of checked.rows) {
        const { id, ...values } = row;
        if (id === undefined) {
          inserts.push(values);
          continue;
        }
        const updated = await tx.update(labels).set(values).where(eq(labels.id, id)).returning({ id: labels.id });
        if (!updated.length) throw new UnknownLabel({ code: "input", row: index, field: "id" });
      }
      if (inserts.length) await tx.insert(labels).values(inserts);
    });
  } catch (error) {
    if (error instanceof UnknownLabel) return failure([error.issue]);
    throw error;
  }
  return { ok: true, labels: await listLabels() };
}
