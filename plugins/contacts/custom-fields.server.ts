// Custom contact fields: admins add fields to every contact (text, number, date or a select of
// choices), mark them required, rename them (values belong to the field's id, so they stay), move
// them up or down (the order is kept in `position`, and every place that lists fields reads it
// through customFields) and retire them (their values are kept, and shown again when the field
// returns). Agents fill them in on the contact's page; each kind is checked on the server
// with a message tied to the field, and a refused form keeps everything typed.
import { and, asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { formError, formResult, type FormResult } from "~/forms";
import { audit } from "~/accounts/audit.server";

export const FIELD_KINDS = ["text", "number", "date", "select"] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];
export const LABEL_MAX = 80;
export const VALUE_MAX = 500;
export const OPTIONS_MAX = 50;
export const FIELDS_MAX = 50;

export type CustomField = { id: number; label: string; kind: FieldKind; options: string[]; required: boolean; active: boolean };

/** The form field name of a custom field on the contact page. */
export const inputName = (id: number) => `field_${id}`;

const optionsOf = (text: string) => [
  ...new Set(
    text
      .split(/\r?\n/)
      .map((o) => o.trim())
      .filter(Boolean),
  ),
];

/** The fields, in the order admins put them; the retired ones too with `all`. */
export async function customFields(opts: { all?: boolean } = {}): Promise<CustomField[]> {
  const { db, schema } = getDb();
  const f = schema.contactFields;
  const rows = await db
    .select()
    .from(f)
    .where(opts.all ? undefined : eq(f.active, true))
    .orderBy(asc(f.position), asc(f.id));
  return rows.map((r) => ({ id: r.id, label: r.label, kind: r.kind as FieldKind, options: optionsOf(r.options), required: r.required, active: r.active }));
}

const labelSchema = z.object({
  label: z.string().trim().min(1, "plugin_contacts.customFields.error.labelRequired").max(LABEL_MAX, "plugin_contacts.customFields.error.labelTooLong"),
});

const fieldSchema = z
  .object({
    label: labelSchema.shape.label,
    kind: z.enum(FIELD_KINDS, { errorMap: () => ({ message: "plugin_contacts.customFields.error.kind" }) }),
    options: z.string().transform(optionsOf),
    required: z.string().transform((v) => v === "1" || v === "on"),
  })
  .superRefine((v, ctx) => {
    if (v.kind === "select" && v.options.length === 0)
      ctx.addIssue({ code: "custom", path: ["options"], message: "plugin_contacts.customFields.error.optionsRequired" });
    if (v.options.length > OPTIONS_MAX || v.options.some((o) => o.length > LABEL_MAX))
      ctx.addIssue({ code: "custom", path: ["options"], message: "plugin_contacts.customFields.error.optionsTooMany", params: { max: OPTIONS_MAX } });
  });

export const FIELD_FORM = ["label", "kind", "options", "required"] as const;

/** Adds a field (admins). */
export async function addCustomField(
  values: Record<(typeof FIELD_FORM)[number], string>,
  by: { id: number; username: string },
  now = Date.now(),
): Promise<{ ok: true; id: number } | { ok: false; result: FormResult }> {
  const intent = "addField";
  const parsed = fieldSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, intent) };
  const handle = getDb();
  const f = handle.schema.contactFields;
  return handle.transaction(async (tx) => {
    const existing = await tx.select({ id: f.id, position: f.position }).from(f);
    if (existing.length >= FIELDS_MAX)
      return {
        ok: false as const,
        result: formResult({ intent, values, message: "plugin_contacts.customFields.error.tooMany", messageValues: { max: String(FIELDS_MAX) } }),
      };
    const { label, kind, options, required } = parsed.data;
    const [row] = await tx
      .insert(f)
      .values({
        label,
        kind,
        options: kind === "select" ? options.join("\n") : "",
        required,
        position: Math.max(0, ...existing.map((e) => e.position)) + 1,
        createdAt: now,
      })
      .returning({ id: f.id });
    await audit(
      { action: "contact.field_added", actor: { id: by.id, name: by.username }, target: { type: "contact_field", id: row.id }, detail: { name: label, kind } },
      tx,
    );
    return { ok: true as const, id: row.id };
  });
}

/** Retires or brings back a field (admins); false when there is no such field. */
export async function setCustomFieldActive(id: number, active: boolean, by: { id: number; username: string }): Promise<boolean> {
  const handle = getDb();
  const f = handle.schema.contactFields;
  return handle.transaction(async (tx) => {
    const [done] = await tx.update(f).set({ active }).where(eq(f.id, id)).returning({ id: f.id, label: f.label });
    if (!done) return false;
    await audit(
      {
        action: active ? "contact.field_restored" : "contact.field_retired",
        actor: { id: by.id, name: by.username },
        target: { type: "contact_field", id },
        detail: { name: done.label },
      },
      tx,
    );
    return true;
  });
}

/** Renames a field (admins); its values stay with it. A refusal keeps the typed label and names the field. */
export async function renameCustomField(
  id: number,
  label: string,
  by: { id: number; username: string },
): Promise<{ ok: true } | { ok: false; result: FormResult; status: number }> {
  const intent = "rename";
  const values = { field: String(id), label };
  const parsed = labelSchema.safeParse({ label });
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, intent), status: 400 };
  const handle = getDb();
  const f = handle.schema.contactFields;
  return handle.transaction(async (tx) => {
    const [before] = await tx.select({ label: f.label }).from(f).where(eq(f.id, id));
    if (!before) return { ok: false as const, result: formResult({ intent, values, message: "plugin_contacts.customFields.error.gone" }), status: 404 };
    if (before.label === parsed.data.label) return { ok: true as const };
    await tx.update(f).set({ label: parsed.data.label }).where(eq(f.id, id));
    await audit(
      {
        action: "contact.field_renamed",
        actor: { id: by.id, name: by.username },
        target: { type: "contact_field", id },
        detail: { name: parsed.data.label, from: before.label },
      },
      tx,
    );
    return { ok: true as const };
  });
}

/**
 * Moves a field one place up or down among all fields (retired ones keep their place too), in one
 * transaction: the positions are written anew as 1..n, so equal or missing positions of older
 * rows settle as well. False when there is no such field; at either end nothing moves.
 */
export async function moveCustomField(id: number, direction: "up" | "down", by: { id: number; username: string }): Promise<boolean> {
  const handle = getDb();
  const f = handle.schema.contactFields;
  return handle.transaction(async (tx) => {
    const rows = await tx.select({ id: f.id, label: f.label, position: f.position }).from(f).orderBy(asc(f.position), asc(f.id));
    const at = rows.findIndex((r) => r.id === id);
    if (at < 0) return false;
    const to = direction === "up" ? at - 1 : at + 1;
    if (to < 0 || to >= rows.length) return true;
    [rows[at], rows[to]] = [rows[to], rows[at]];
    for (const [i, row] of rows.entries())
      if (row.position !== i + 1)
        await tx
          .update(f)
          .set({ position: i + 1 })
          .where(eq(f.id, row.id));
    await audit(
      {
        action: "contact.field_moved",
        actor: { id: by.id, name: by.username },
        target: { type: "contact_field", id },
        detail: { name: rows[to].label, to: to + 1 },
      },
      tx,
    );
    return true;
  });
}

/** A contact's values of the active fields, by field id. */
export async function customValues(contactId: number): Promise<Record<number, string>> {
  const { db, schema } = getDb();
  const v = schema.contactFieldValues;
  const rows = await db.select({ fieldId: v.fieldId, value: v.value }).from(v).where(eq(v.contactId, contactId));
  return Object.fromEntries(rows.map((r) => [r.fieldId, r.value]));
}

const validDay = (v: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/** The message key of what is wrong with a value of this field, or null (the value as it will be kept otherwise). */
export function checkValue(field: CustomField, raw: string): { error: string; values?: Record<string, string> } | { value: string } {
  const value = raw.trim();
  if (!value) return field.required ? { error: "plugin_contacts.customFields.error.required" } : { value: "" };
  if (value.length > VALUE_MAX) return { error: "plugin_contacts.customFields.error.tooLong", values: { max: String(VALUE_MAX) } };
  switch (field.kind) {
    case "number": {
      // as people type them: 42, -3.5, 1,234.50 (the separators dropped)
      const plain = value.replace(/[\s,]/g, "");
      return /^-?\d+(\.\d+)?$/.test(plain) && plain.length <= 30 ? { value: plain } : { error: "plugin_contacts.customFields.error.number" };
    }
    case "date":
      return validDay(value) ? { value } : { error: "plugin_contacts.customFields.error.date" };
    case "select":
      return field.options.includes(value) ? { value } : { error: "plugin_contacts.customFields.error.select" };
    default:
      return { value };
  }
}

/**
 * Saves a contact's values of the active fields from its form (field_<id> per field), in one
 * transaction; an empty value removes it. Refused as a whole, each wrong field with its message.
 */
export async function saveCustomValues(contactId: number, form: Record<string, string>): Promise<{ ok: true } | { ok: false; result: FormResult }> {
  const intent = "customFields";
  const fields = await customFields();
  const errors: Record<string, string> = {};
  let messageValues: Record<string, string> | undefined;
  const values: Record<string, string> = {};
  const kept: { fieldId: number; value: string }[] = [];
  for (const field of fields) {
    const name = inputName(field.id);
    values[name] = form[name] ?? "";
    const checked = checkValue(field, values[name]);
    if ("error" in checked) {
      errors[name] = checked.error;
      if (checked.values) messageValues = { ...messageValues, ...checked.values };
    } else kept.push({ fieldId: field.id, value: checked.value });
  }
  if (Object.keys(errors).length) return { ok: false, result: formResult({ intent, errors, values, message: "plugin_contacts.error.check", messageValues }) };
  const handle = getDb();
  const v = handle.schema.contactFieldValues;
  await handle.transaction(async (tx) => {
    if (fields.length)
      await tx.delete(v).where(
        and(
          eq(v.contactId, contactId),
          inArray(
            v.fieldId,
            fields.map((f) => f.id),
          ),
        ),
      );
    const rows = kept.filter((k) => k.value !== "").map((k) => ({ contactId, ...k }));
    if (rows.length) await tx.insert(v).values(rows);
  });
  return { ok: true };
}
