// Contacts in and out as CSV (admins). Columns: name, salutation, email, phone, id_type, id_number,
// with a header row. An upload is kept in the file storage and read as a stream (csv-parse), never
// whole: 100,000 rows take the memory of one batch. UTF-8 with or without a BOM; a file that is
// not valid UTF-8 is read as Windows-1252 (what Excel writes on Windows).
//
// First a dry run: each row checked (email, phone, ID number per type, an email or phone twice in
// the file or already another contact's), counts and the rows' errors. Then the import applies the
// good rows, 1,000 a transaction: a batch is all or nothing, and the import record notes each
// committed batch so an interrupted import resumes after it. Each imported row's key (a digest of
// its values) is kept: the same file imported again adds nothing.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { parse } from "csv-parse";
import { stringify } from "csv-stringify";
import { and, asc, desc, eq, gt, inArray, isNull, sql, type AnyColumn } from "drizzle-orm";
import { getDb, isUniqueViolation, type Tx } from "@db/client";
import { EMAIL_PATTERN } from "~/forms";
import { fileStorage, TooLarge } from "~/storage.server";
import type { UserRow } from "~/accounts/users.server";
import { NAME_MAX, SALUTATION_MAX } from "./contacts.server";
import { checkIdNumber, ID_TYPES } from "./identity";
import { nameKeyOf, normaliseEmail, normalisePhone } from "./identities";
import { newUid } from "./link.server";

import { CSV_COLUMNS } from "./csv-columns";

export { CSV_COLUMNS };
export const BATCH_ROWS = 1_000;
/** Row errors kept for the page; the counts cover them all. */
export const ERRORS_SHOWN = 200;
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024;
const READ_CHUNK = 64 * 1024;
const KEY = "plugin_contacts.csv";

type Column = (typeof CSV_COLUMNS)[number];
export type RowError = { row: number; field: Column | "row"; error: string; values?: Record<string, string> };
type Good = { row: number; key: string; name: string; salutation: string; email: string; phone: string; idType: string; idNumber: string };

// ---- reading ----

/** Whether the stored file is valid UTF-8, read through once. */
async function isUtf8(key: string) {
  const stream = await fileStorage().get(key);
  if (!stream) throw new Error("import file missing");
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) decoder.decode(chunk, { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** The file's text in pieces, decoded as UTF-8 (BOM dropped) or Windows-1252. */
async function* textOf(key: string): AsyncGenerator<string> {
  const encoding = (await isUtf8(key)) ? "utf-8" : "windows-1252";
  const stream = await fileStorage().get(key);
  if (!stream) throw new Error("import file missing");
  const decoder = new TextDecoder(encoding); // drops a leading BOM (ignoreBOM is false)
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>)
    for (let at = 0; at < chunk.length; at += READ_CHUNK) {
      const text = decoder.decode(chunk.subarray(at, at + READ_CHUNK), { stream: true });
      if (text) yield text;
    }
  const rest = decoder.decode();
  if (rest) yield rest;
}

type Parsed = { line: number; values: Record<string, string> };

/** The file's data rows with their line numbers; throws CsvProblem for a file that is no such CSV. */
async function* rowsOf(key: string): AsyncGenerator<Parsed> {
  const parser = Readable.from(textOf(key)).pipe(
    parse({
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      // files pieced together from several sources mix line endings
      record_delimiter: ["\r\n", "\n", "\r"],
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
    }),
  );
  let checked = false;
  // rows as a spreadsheet numbers them: the header is row 1 (a fully empty line is not counted)
  let line = 1;
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      line++;
      if (!checked) {
        const missing = CSV_COLUMNS.filter((c) => !(c in record));
        if (missing.length) throw new CsvProblem(`${KEY}.missingColumns`, { columns: missing.join(", ") });
        checked = true;
      }
      // a row of separators only (spreadsheets write them) is no row
      if (Object.values(record).every((v) => !v)) continue;
      yield { line, values: record };
    }
  } catch (error) {
    if (error instanceof CsvProblem) throw error;
    const code = (error as { code?: string }).code;
    if (typeof code === "string" && code.startsWith("CSV_")) throw new CsvProblem(`${KEY}.unreadable`, { reason: (error as Error).message.slice(0, 200) });
    throw error;
  }
  if (!checked) throw new CsvProblem(`${KEY}.empty`);
}

export class CsvProblem extends Error {
  constructor(
    readonly key: string,
    readonly values: Record<string, string> = {},
  ) {
    super(key);
  }
}

// ---- checking ----

const ID_LABELS: Record<string, string> = {
  none: "",
  "mykad id": "mykad",
  mykad: "mykad",
  "mykid id": "mykid",
  mykid: "mykid",
  "pr mykad": "pr_mykad",
  "passport no.": "passport",
  "army id": "army",
  "police id": "police",
  "baby of (b/o)": "baby_of",
  "refuses to provide": "refused",
};
/** An ID type as written in a file: the stored value (mykad) or its English label (MyKad ID). */
const idTypeOf = (raw: string) => {
  const v = raw.trim().toLowerCase();
  return (ID_TYPES as readonly string[]).includes(v) ? v : (ID_LABELS[v] ?? raw);
};

/** Checks one row on its own; `seen` holds the emails and phones of the rows before it in the file. */
function checkRow(p: Parsed, seen: Map<string, number>, now: Date): { good?: Good; errors: RowError[] } {
  const v = Object.fromEntries(CSV_COLUMNS.map((c) => [c, (p.values[c] ?? "").trim()])) as Record<Column, string>;
  const errors: RowError[] = [];
  const fail = (field: RowError["field"], error: string, values?: Record<string, string>) =>
    errors.push({ row: p.line, field, error: `${KEY}.${error}`, values });
  if (v.name.length > NAME_MAX) fail("name", "nameTooLong");
  if (v.salutation.length > SALUTATION_MAX) fail("salutation", "salutationTooLong");
  const email = v.email ? normaliseEmail(v.email) : "";
  if (v.email && (!email || !EMAIL_PATTERN.test(email))) fail("email", "badEmail", { value: v.email });
  const phone = v.phone ? normalisePhone(v.phone) : "";
  if (v.phone && !phone) fail("phone", "badPhone", { value: v.phone });
  const idType = idTypeOf(v.id_type);
  const id = checkIdNumber(idType, v.id_number, now);
  if (!id.ok)
    errors.push({
      row: p.line,
      field: idType === v.id_type.trim().toLowerCase() || ID_LABELS[v.id_type.trim().toLowerCase()] !== undefined ? "id_number" : "id_type",
      error: id.error,
      values: id.values,
    });
  if (!v.name && !v.email && !v.phone) fail("row", "nobody");
  for (const [field, value] of [
    ["email", email],
    ["phone", phone],
  ] as const) {
    if (!value || errors.some((e) => e.field === field)) continue;
    const first = seen.get(`${field} ${value}`);
    if (first !== undefined) fail(field, field === "email" ? "emailTwice" : "phoneTwice", { row: String(first) });
    else seen.set(`${field} ${value}`, p.line);
  }
  if (errors.length) return { errors };
  const number = id.ok ? id.number : "";
  const key = createHash("sha256")
    .update(JSON.stringify([v.name, v.salutation, email, phone, idType, number]))
    .digest("base64url");
  // the same row again (with no email or phone to tell it by)
  const twin = seen.get(`row ${key}`);
  if (twin !== undefined) {
    fail("row", "rowTwice", { row: String(twin) });
    return { errors };
  }
  seen.set(`row ${key}`, p.line);
  return { good: { row: p.line, key, name: v.name, salutation: v.salutation, email, phone, idType: idType, idNumber: number }, errors };
}

/**
 * A batch's rows against the database: rows imported before (by their key) are skipped; an email
 * or phone another contact has is an error. Answers what to import, what was skipped, the errors.
 */
async function checkBatch(tx: Tx, rows: Good[]) {
  const { schema } = getDb();
  const done = new Set<string>();
  const keys = rows.map((r) => r.key);
  if (keys.length)
    for (const r of await tx
      .select({ key: schema.contactImportRows.rowKey })
      .from(schema.contactImportRows)
      .where(inArray(schema.contactImportRows.rowKey, keys)))
      done.add(r.key);
  const fresh = rows.filter((r) => !done.has(r.key));
  const ci = schema.contactIdentities;
  const values = fresh.flatMap((r) => [r.email, r.phone].filter(Boolean));
  const taken = new Set<string>();
  if (values.length)
    for (const r of await tx.select({ kind: ci.kind, value: ci.value }).from(ci).where(inArray(ci.value, values))) taken.add(`${r.kind} ${r.value}`);
  const errors: RowError[] = [];
  const good: Good[] = [];
  for (const r of fresh) {
    const before = errors.length;
    if (r.email && taken.has(`email ${r.email}`)) errors.push({ row: r.row, field: "email", error: `${KEY}.emailTaken`, values: { value: r.email } });
    if (r.phone && taken.has(`phone ${r.phone}`)) errors.push({ row: r.row, field: "phone", error: `${KEY}.phoneTaken`, values: { value: r.phone } });
    if (errors.length === before) good.push(r);
  }
  return { good, skipped: rows.length - fresh.length, errors };
}

export type CheckResult = { rows: number; good: number; bad: number; skipped: number; errors: RowError[] };

/** Walks the file a batch at a time; `apply` gets each batch's checked rows (all of them from `fromRow` on). */
async function walk(key: string, onBatch: (batch: Good[], errors: RowError[], rowsInBatch: number, rowIndex: number) => Promise<void>, now: Date) {
  const seen = new Map<string, number>();
  let batch: Good[] = [];
  let errors: RowError[] = [];
  let count = 0;
  let inBatch = 0;
  for await (const parsed of rowsOf(key)) {
    const checked = checkRow(parsed, seen, now);
    if (checked.good) batch.push(checked.good);
    errors.push(...checked.errors);
    count++;
    inBatch++;
    if (inBatch === BATCH_ROWS) {
      await onBatch(batch, errors, inBatch, count);
      [batch, errors, inBatch] = [[], [], 0];
    }
  }
  if (inBatch) await onBatch(batch, errors, inBatch, count);
  return count;
}

/** The dry run: nothing written but the import record that the Import button then applies. */
export async function dryRun(fileKey: string, fileName: string, by: Pick<UserRow, "id">, now = new Date()) {
  const { db, schema } = getDb();
  const result: CheckResult = { rows: 0, good: 0, bad: 0, skipped: 0, errors: [] };
  const badRows = new Set<number>();
  const keep = (errors: RowError[]) => {
    for (const e of errors) {
      badRows.add(e.row);
      if (result.errors.length < ERRORS_SHOWN) result.errors.push(e);
    }
  };
  result.rows = await walk(
    fileKey,
    async (batch, errors) => {
      keep(errors);
      const checked = await checkBatch(db, batch);
      keep(checked.errors);
      result.good += checked.good.length;
      result.skipped += checked.skipped;
    },
    now,
  );
  result.bad = badRows.size;
  result.errors.sort((a, b) => a.row - b.row);
  const [row] = await db
    .insert(schema.contactImports)
    .values({ fileKey, fileName: fileName.slice(0, 200), byUser: by.id, createdAt: now.getTime(), rows: result.rows, good: result.good, bad: result.bad })
    .returning({ id: schema.contactImports.id });
  return { importId: row.id, ...result };
}

/** Stores an upload for its dry run; throws TooLarge past IMPORT_MAX_BYTES. */
export async function storeUpload(data: AsyncIterable<Uint8Array>) {
  return fileStorage().putStream(Readable.from(data), { maxBytes: IMPORT_MAX_BYTES });
}
export { TooLarge };

export async function importRecord(id: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.contactImports).where(eq(schema.contactImports.id, id));
  return row ? { ...row, createdAt: Number(row.createdAt), finishedAt: row.finishedAt === null ? null : Number(row.finishedAt) } : undefined;
}

/**
 * Imports the good rows of a checked file, a transaction per 1,000 rows, each noting in the import
 * record how far it got; run again (after a crash, or twice at once) it goes on from there and
 * adds no row twice.
 */
export async function applyImport(importId: number, now = new Date()) {
  const handle = getDb();
  const { schema } = handle;
  const imp = schema.contactImports;
  const record = await importRecord(importId);
  if (!record) return undefined;
  if (record.state === "done") return record;
  await handle.db
    .update(imp)
    .set({ state: "importing" })
    .where(and(eq(imp.id, importId), eq(imp.state, "checked")));
  const at = now.getTime();
  await walk(
    record.fileKey,
    async (batch, _errors, rowsInBatch, rowIndex) => {
      const first = rowIndex - rowsInBatch;
      for (let attempt = 1; ; attempt++) {
        try {
          await handle.transaction(async (tx) => {
            // a batch another run committed meanwhile is not done twice
            const [current] = await tx.select({ doneRows: imp.doneRows }).from(imp).where(eq(imp.id, importId));
            if (current.doneRows > first) return;
            const { good } = await checkBatch(tx, batch);
            if (good.length) {
              const uids = good.map(() => newUid());
              const inserted = await tx
                .insert(schema.contacts)
                .values(
                  good.map((r, i) => ({
                    uid: uids[i],
                    name: r.name,
                    nameKey: nameKeyOf(r.name),
                    salutation: r.salutation,
                    idType: r.idType,
                    idNumber: r.idNumber,
                    createdAt: at,
                    updatedAt: at,
                  })),
                )
                .returning({ id: schema.contacts.id, uid: schema.contacts.uid });
              const byUid = new Map(inserted.map((r) => [r.uid, r.id]));
              const made = uids.map((uid) => ({ id: byUid.get(uid)! }));
              const identities = good.flatMap((r, i) => [
                ...(r.email ? [{ contactId: made[i].id, kind: "email", value: r.email }] : []),
                ...(r.phone ? [{ contactId: made[i].id, kind: "phone", value: r.phone }] : []),
              ]);
              if (identities.length) await tx.insert(schema.contactIdentities).values(identities);
              await tx.insert(schema.contactImportRows).values(good.map((r, i) => ({ rowKey: r.key, contactId: made[i].id, importId })));
            }
            await tx
              .update(imp)
              .set({ doneRows: rowIndex, imported: sqlAdd(imp.imported, good.length) })
              .where(eq(imp.id, importId));
          });
          return;
        } catch (error) {
          // a twin run or a new conversation took a row's email meanwhile: check the batch again
          if (attempt >= 3 || !isUniqueViolation(error)) throw error;
        }
      }
    },
    now,
  );
  await handle.db.update(imp).set({ state: "done", finishedAt: Date.now() }).where(eq(imp.id, importId));
  await fileStorage().remove(record.fileKey);
  return importRecord(importId);
}

const sqlAdd = (column: AnyColumn, n: number) => sql`${column} + ${n}`;

/** Recent imports, newest first, for the import page. */
export async function recentImports(limit = 10) {
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.contactImports).orderBy(desc(schema.contactImports.createdAt), desc(schema.contactImports.id)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    fileName: r.fileName,
    state: r.state,
    rows: r.rows,
    good: r.good,
    bad: r.bad,
    imported: r.imported,
    createdAt: Number(r.createdAt),
  }));
}

// ---- export ----

const EXPORT_PAGE = 1_000;

/** Every contact standing on its own, by id, a page at a time, as the import's columns. */
async function* exportRows(): AsyncGenerator<Record<Column, string>> {
  const { db, schema } = getDb();
  const c = schema.contacts;
  const ci = schema.contactIdentities;
  let after = 0;
  for (;;) {
    const page = await db
      .select({ id: c.id, name: c.name, salutation: c.salutation, idType: c.idType, idNumber: c.idNumber })
      .from(c)
      .where(and(gt(c.id, after), isNull(c.mergedInto)))
      .orderBy(asc(c.id))
      .limit(EXPORT_PAGE);
    if (!page.length) return;
    const ids = page.map((p) => p.id);
    const identities = await db
      .select({ contactId: ci.contactId, kind: ci.kind, value: ci.value })
      .from(ci)
      .where(and(inArray(ci.contactId, ids), inArray(ci.kind, ["email", "phone"])))
      .orderBy(ci.kind, ci.value);
    const first = (id: number, kind: string) => identities.find((i) => i.contactId === id && i.kind === kind)?.value ?? "";
    for (const p of page)
      yield { name: p.name, salutation: p.salutation, email: first(p.id, "email"), phone: first(p.id, "phone"), id_type: p.idType, id_number: p.idNumber };
    after = page[page.length - 1].id;
  }
}

/** The export as a Node stream of UTF-8 CSV (with a BOM, so spreadsheet programs read it as UTF-8). */
export function exportCsv(): Readable {
  const rows = Readable.from(exportRows());
  const csv = stringify({ header: true, columns: [...CSV_COLUMNS], bom: true });
  // a failed query ends the download with an error instead of a short file that looks whole
  rows.on("error", (error) => csv.destroy(error));
  return rows.pipe(csv);
}
