// Surveys (admin-defined public forms at /survey/{token}) and their submissions, listed on /forms.
// A survey's answers are checked by a zod schema built from its fields; texts are translation
// keys of plugins/forms/locales/<lng>.json (the email one is the spec's, as on /new_ticket).
import { randomBytes } from "node:crypto";
import { and, asc, count, desc, eq, isNull } from "drizzle-orm";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { z } from "zod";
import { getDb, type DB } from "@db/client";
import { EMAIL_PATTERN } from "~/forms";

export const FIELD_TYPES = ["text", "textarea", "email", "number", "select", "rating"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const RATING_OPTIONS = ["1", "2", "3", "4", "5"];
export const PAGE_SIZE = 10;
export const TITLE_MAX = 200;
export const LABEL_MAX = 200;
export const FIELDS_MAX = 50;
export const OPTIONS_MAX = 30;
export const OPTION_MAX = 100;
/**
 * A visitor (address) sends at most 20 answers to one survey in 10 minutes; refused posts do not
 * count. Per survey, so a flood on one link does not silence the others.
 */
const ANSWERS_PER_VISITOR = 20;
export const surveyAnswerLimiter = new RateLimiterMemory({ points: ANSWERS_PER_VISITOR, duration: 600 });
const ANSWER_MAX: Record<FieldType, number> = { text: 1000, textarea: 10_000, email: 200, number: 50, select: OPTION_MAX, rating: 1 };

const fieldSchema = z.object({
  id: z.string().regex(/^[a-z0-9_]{1,40}$/),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  options: z.array(z.string()),
});
export type SurveyField = z.infer<typeof fieldSchema>;

export interface Survey {
  id: number;
  token: string;
  title: string;
  fields: SurveyField[];
  createdAt: number;
  updatedAt: number;
}

type SurveyRow = { id: number; token: string; title: string; fields: string; createdAt: number; updatedAt: number };

/** Stored JSON that does not parse (hand-edited rows) reads as no fields rather than a crash. */
function parseFields(json: string): SurveyField[] {
  try {
    const parsed = z.array(fieldSchema).safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

const toSurvey = (row: SurveyRow): Survey => ({ ...row, fields: parseFields(row.fields) });

/** The survey behind a public link, only while its token is a live "survey" public token. */
export async function getSurveyByToken(token: string | undefined, db: DB = getDb().db): Promise<Survey | undefined> {
  if (!token || token.length > 200) return undefined;
  const { schema } = getDb();
  const s = schema.surveys;
  const t = schema.publicTokens;
  const rows = await db
    .select({ id: s.id, token: s.token, title: s.title, fields: s.fields, createdAt: s.createdAt, updatedAt: s.updatedAt })
    .from(s)
    .innerJoin(t, and(eq(t.kind, "survey"), eq(t.token, s.token), isNull(t.revokedAt)))
    .where(eq(s.token, token));
  return rows[0] ? toSurvey(rows[0]) : undefined;
}

export async function getSurvey(id: number): Promise<Survey | undefined> {
  if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return undefined;
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.surveys).where(eq(schema.surveys.id, id));
  return rows[0] ? toSurvey(rows[0]) : undefined;
}

/** Every survey, oldest first (the first one is the Main tab), with its number of submissions. */
export async function listSurveys(): Promise<(Survey & { submissions: number })[]> {
  const { db, schema } = getDb();
  const [rows, counts] = await Promise.all([
    db.select().from(schema.surveys).orderBy(asc(schema.surveys.id)),
    db.select({ surveyId: schema.surveySubmissions.surveyId, n: count() }).from(schema.surveySubmissions).groupBy(schema.surveySubmissions.surveyId),
  ]);
  const bySurvey = new Map(counts.map((c) => [c.surveyId, Number(c.n)]));
  return rows.map((row) => ({ ...toSurvey(row), submissions: bySurvey.get(row.id) ?? 0 }));
}

// ---- answers -----------------------------------------------------------------------------------

/** A basic address pattern, the same as the new-ticket form's. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export interface FieldError {
  key: string;
  values?: Record<string, string>;
}
export const ERROR_KEYS = {
  empty: "forms.empty",
  email: "forms.badEmail",
  number: "forms.badNumber",
  choice: "forms.badChoice",
  tooLong: "forms.tooLong",
} as const;

export const optionsOf = (field: SurveyField) => (field.type === "rating" ? RATING_OPTIONS : field.options);

/** The zod schema of one survey's answers: field id -> trimmed text ("" for an unanswered optional field). */
export function answersSchema(fields: SurveyField[]) {
  const shape: Record<string, z.ZodType<string, z.ZodTypeDef, unknown>> = {};
  for (const field of fields) {
    shape[field.id] = z
      .unknown()
      .transform((v) => (typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : ""))
      .superRefine((text, ctx) => {
        const fail = (key: string, values?: Record<string, string>) => ctx.addIssue({ code: z.ZodIssueCode.custom, message: key, params: values });
        if (text === "") return field.required ? fail(ERROR_KEYS.empty) : undefined;
        if ([...text].length > ANSWER_MAX[field.type]) return fail(ERROR_KEYS.tooLong);
        if (field.type === "email" && !EMAIL_PATTERN.test(text)) return fail(ERROR_KEYS.email, { address: text });
        if (field.type === "number" && !NUMBER.test(text)) return fail(ERROR_KEYS.number);
        if ((field.type === "select" || field.type === "rating") && !optionsOf(field).includes(text)) return fail(ERROR_KEYS.choice);
      });
  }
  return z.object(shape);
}

export type ValidationResult = { ok: true; data: Record<string, string> } | { ok: false; errors: Record<string, FieldError> };

export function validateAnswers(fields: SurveyField[], input: Record<string, unknown>): ValidationResult {
  const parsed = answersSchema(fields).safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data as Record<string, string> };
  const errors: Record<string, FieldError> = {};
  for (const issue of parsed.error.issues) {
    const id = String(issue.path[0]);
    errors[id] ??= { key: issue.message, values: issue.code === "custom" ? issue.params : undefined };
  }
  return { ok: false, errors };
}

export type SubmitResult = ValidationResult | { ok: false; invalidLink: true };

/** Checks and stores one visitor's answers; the link is checked again inside the transaction. */
export async function submitSurvey(token: string, input: Record<string, unknown>, now = Date.now()): Promise<SubmitResult> {
  const handle = getDb();
  return handle.transaction(async (tx) => {
    const survey = await getSurveyByToken(token, tx);
    if (!survey) return { ok: false as const, invalidLink: true as const };
    const result = validateAnswers(survey.fields, input);
    if (!result.ok) return result;
    await tx.insert(handle.schema.surveySubmissions).values({ surveyId: survey.id, data: JSON.stringify(result.data), createdAt: now });
    return result;
  });
}

export interface Submission {
  id: number;
  createdAt: number;
  /** Label and answer per field of the survey as it is now, then any answers to removed fields. */
  answers: { label: string; value: string }[];
}

export async function listSubmissions(survey: Survey, page: number) {
  const { db, schema } = getDb();
  const t = schema.surveySubmissions;
  const [{ n }] = await db.select({ n: count() }).from(t).where(eq(t.surveyId, survey.id));
  const total = Number(n);
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), pages);
  const rows = await db
    .select()
    .from(t)
    .where(eq(t.surveyId, survey.id))
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(PAGE_SIZE)
    .offset((current - 1) * PAGE_SIZE);
  const submissions: Submission[] = rows.map((row) => {
    let data: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(row.data);
      if (parsed && typeof parsed === "object") data = parsed;
    } catch {
      /* a broken row shows as empty */
    }
    const known = new Set(survey.fields.map((f) => f.id));
    const answers = [
      ...survey.fields.map((f) => ({ label: f.label, value: String(data[f.id] ?? "") })),
      ...Object.entries(data)
        .filter(([id]) => !known.has(id))
        .map(([id, value]) => ({ label: id, value: String(value ?? "") })),
    ];
    return { id: row.id, createdAt: row.createdAt, answers };
  });
  return { submissions, total, page: current, pages };
}

// ---- admin: surveys and their fields ------------------------------------------------------------

export const EDITOR_ERROR_CODES = ["empty", "options", "input"] as const;
export type EditorErrorCode = (typeof EDITOR_ERROR_CODES)[number];

/** One row of the field editor as posted: every value is the text of an input. */
export interface EditorRow {
  id: string;
  label: string;
  type: string;
  required: boolean;
  options: string;
  remove: boolean;
}

export type EditorResult<T> = { ok: true; value: T } | { ok: false; code: EditorErrorCode; rows: number[]; title?: boolean };

const newToken = () => randomBytes(12).toString("base64url");
const newFieldId = (taken: Set<string>) => {
  let id: string;
  do id = `f${randomBytes(4).toString("hex")}`;
  while (taken.has(id));
  return id;
};

/** A row nobody filled in (a new row without label or options) is not a field to add. */
export const blankRow = (row: EditorRow) => !row.id && !row.label.trim() && !row.options.trim() && !row.required;

function checkTitle(title: string): EditorErrorCode | undefined {
  const text = title.trim();
  if (!text) return "empty";
  if ([...text].length > TITLE_MAX) return "input";
}

export async function createSurvey(title: string, now = Date.now()): Promise<EditorResult<Survey>> {
  const problem = checkTitle(title);
  if (problem) return { ok: false, code: problem, rows: [], title: true };
  const handle = getDb();
  const token = newToken();
  const row = await handle.transaction(async (tx) => {
    await tx.insert(handle.schema.publicTokens).values({ kind: "survey", token, createdAt: now });
    const [inserted] = await tx.insert(handle.schema.surveys).values({ token, title: title.trim(), fields: "[]", createdAt: now, updatedAt: now }).returning();
    return inserted;
  });
  return { ok: true, value: toSurvey(row) };
}

/** Replaces a survey's title and fields: rows keep their ids, removed rows go, new rows get ids. */
export async function saveSurvey(id: number, title: string, rows: EditorRow[], now = Date.now()): Promise<EditorResult<Survey> | undefined> {
  const survey = await getSurvey(id);
  if (!survey) return undefined;
  const titleProblem = checkTitle(title);
  if (titleProblem) return { ok: false, code: titleProblem, rows: [], title: true };
  const existing = new Map(survey.fields.map((f) => [f.id, f]));
  const taken = new Set(existing.keys());
  const issues: { code: EditorErrorCode; row: number }[] = [];
  const fields: SurveyField[] = [];
  rows.forEach((row, index) => {
    if (row.remove || blankRow(row)) return;
    if (row.id && !existing.has(row.id)) return issues.push({ code: "input", row: index });
    const label = row.label.trim();
    const type = (FIELD_TYPES as readonly string[]).includes(row.type) ? (row.type as FieldType) : undefined;
    const options = [
      ...new Set(
        row.options
          .split(",")
          .map((o) => o.trim())
          .filter(Boolean),
      ),
    ];
    if (!label) return issues.push({ code: "empty", row: index });
    if (!type || [...label].length > LABEL_MAX || options.length > OPTIONS_MAX || options.some((o) => [...o].length > OPTION_MAX))
      return issues.push({ code: "input", row: index });
    if (type === "select" && options.length === 0) return issues.push({ code: "options", row: index });
    fields.push({
      id: row.id || newFieldId(taken),
      label,
      type,
      required: row.required,
      options: type === "select" ? options : type === "rating" ? RATING_OPTIONS : [],
    });
    taken.add(fields.at(-1)!.id);
  });
  if (fields.length > FIELDS_MAX) return { ok: false, code: "input", rows: [] };
  if (issues.length) {
    // the first kind of problem in order of precedence is the one reported; its rows are marked
    const code = EDITOR_ERROR_CODES.find((c) => issues.some((i) => i.code === c))!;
    return { ok: false, code, rows: issues.filter((i) => i.code === code).map((i) => i.row) };
  }
  const handle = getDb();
  await handle.transaction(async (tx) => {
    await tx
      .update(handle.schema.surveys)
      .set({ title: title.trim(), fields: JSON.stringify(fields), updatedAt: now })
      .where(eq(handle.schema.surveys.id, id));
  });
  return { ok: true, value: { ...survey, title: title.trim(), fields, updatedAt: now } };
}

/** Revokes a survey's public link and gives it a new one; the old link then shows 'Invalid link'. */
export async function renewSurveyLink(id: number, now = Date.now()): Promise<string | undefined> {
  const survey = await getSurvey(id);
  if (!survey) return undefined;
  const handle = getDb();
  const { schema } = handle;
  const token = newToken();
  await handle.transaction(async (tx) => {
    await tx
      .update(schema.publicTokens)
      .set({ revokedAt: now })
      .where(and(eq(schema.publicTokens.kind, "survey"), eq(schema.publicTokens.token, survey.token)));
    await tx.insert(schema.publicTokens).values({ kind: "survey", token, createdAt: now });
    await tx.update(schema.surveys).set({ token, updatedAt: now }).where(eq(schema.surveys.id, id));
  });
  return token;
}
