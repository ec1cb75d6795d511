// Admin: ticket labels. One plain form lists every label as a row of inputs plus one new row;
// Save sends everything and the model writes it in one transaction. Works without JavaScript;
// with it, "Add another row" adds more new rows.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { formResult, refusalKey, useFormResult, valueList, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { LABEL_DEFAULTS, LABEL_FIELDS, listLabels, saveLabels, type LabelErrorCode, type LabelField } from "../labels.server";
import { FormMessage } from "~/components/FormMessage";
import { MIN_TEXT_CONTRAST, isHexColor, ratioText, shortfall } from "~/contrast";
import { pageMeta } from "~/meta";

const PATH = "/settings/labels";

/** A row as the form holds it: every value is the text of an input. */
interface RowValues {
  id: string;
  name: string;
  color: string;
  colorDark: string;
  level: string;
  sla: string;
}

const NEW_ROW: RowValues = {
  id: "",
  name: LABEL_DEFAULTS.name,
  color: LABEL_DEFAULTS.color,
  colorDark: LABEL_DEFAULTS.colorDark,
  level: String(LABEL_DEFAULTS.level),
  sla: String(LABEL_DEFAULTS.sla),
};

const COLUMNS = ["id", ...LABEL_FIELDS] as const;

/**
 * A refusal keeps the table as typed: each cell as `${column}.${row}`, the ticked deletes one id
 * per line; a bad cell has its error under the same name.
 */
function rowsOf(values: Record<string, string>): RowValues[] {
  const rows: RowValues[] = [];
  for (let i = 0; `id.${i}` in values; i++) {
    const cell = (column: (typeof COLUMNS)[number]) => values[`${column}.${i}`] ?? "";
    rows.push({ id: cell("id"), name: cell("name"), color: cell("color"), colorDark: cell("colorDark"), level: cell("level"), sla: cell("sla") });
  }
  return rows;
}

/** A new row nobody typed into (blank or default values, no name) is not a label to create. */
function untouched(row: RowValues) {
  if (row.id || row.name.trim()) return false;
  return LABEL_FIELDS.every((f) => f === "name" || row[f].trim() === "" || row[f].trim().toLowerCase() === NEW_ROW[f]);
}

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const labels = await listLabels();
  return json({
    saved: new URL(request.url).searchParams.has("saved"),
    rows: labels.map((l): RowValues => ({
      id: String(l.id),
      name: l.name,
      color: l.color,
      colorDark: l.colorDark,
      level: String(l.level),
      sla: String(l.sla),
    })),
  });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  const form = await request.formData();
  const column = (name: string) => form.getAll(name).map((v) => (typeof v === "string" ? v : ""));
  const ids = column("id");
  const columns = Object.fromEntries(LABEL_FIELDS.map((f) => [f, column(f)])) as Record<LabelField, string[]>;
  const rows: RowValues[] = ids.map((id, i) => ({
    id,
    name: columns.name[i] ?? "",
    color: columns.color[i] ?? "",
    colorDark: columns.colorDark[i] ?? "",
    level: columns.level[i] ?? "",
    sla: columns.sla[i] ?? "",
  }));
  const deleted = column("delete");
  const values = Object.fromEntries([...rows.flatMap((row, i) => COLUMNS.map((c) => [`${c}.${i}`, row[c]])), ["delete", deleted.join("\n")]]);
  const failed = (code: LabelErrorCode, invalid: string[] = []) =>
    refuse(formResult({ message: `labels.errors.${code}`, errors: Object.fromEntries(invalid.map((cell) => [cell, `labels.errors.${code}`])), values }));
  // every row has every input; anything else was not sent by this form
  if (LABEL_FIELDS.some((f) => columns[f].length !== ids.length)) return failed("input");

  const sent = rows.map((row, index) => ({ row, index })).filter(({ row }) => !untouched(row));
  const result = await saveLabels(
    sent.map(({ row }) => row),
    deleted,
  );
  if (!result.ok) {
    const invalid = result.issues.flatMap((issue) => {
      if (issue.row === undefined) {
        const index = rows.findIndex((row) => issue.deleteId !== undefined && row.id === String(issue.deleteId));
        return index < 0 ? [] : [`delete.${index}`];
      }
      const index = sent[issue.row]?.index;
      return index === undefined ? [] : [`${issue.field ?? "id"}.${index}`];
    });
    return failed(result.code, invalid);
  }
  return redirect(`${PATH}?saved=1`);
}

export const meta = pageMeta("labels.title");

export default function LabelsAdmin() {
  const data = useLoaderData<typeof loader>();
  const failed = useFormResult();
  const location = useLocation();
  const navigation = useNavigation();
  const { t } = useTranslation();
  const rows = failed ? rowsOf(failed.values) : [...data.rows, NEW_ROW];
  // after a failed save there is still one blank new row to fill in
  const withBlank = failed && !rows.some(untouched) ? [...rows, NEW_ROW] : rows;
  const busy = navigation.state === "submitting" && navigation.formAction === PATH;
  return (
    <section className="labels-admin stack">
      <h1>{t("labels.title")}</h1>
      <p className="muted">{t("labels.help")}</p>
      {data.saved && !failed ? (
        <p className="notice" role="status">
          {t("labels.saved")}
        </p>
      ) : null}
      <FormMessage result={failed} />
      {/* keyed per load and per refused post, so the inputs re-render from the right values */}
      <LabelForm key={refusalKey(failed, location.key)} rows={withBlank} deleted={valueList(failed?.values.delete)} errors={failed?.errors ?? {}} busy={busy} />
    </section>
  );
}

function LabelForm({ rows, deleted, errors, busy }: { rows: RowValues[]; deleted: string[]; errors: FormResult["errors"]; busy: boolean }) {
  const { t } = useTranslation();
  const base = useId();
  const [added, setAdded] = useState(0);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const all = [...rows, ...Array.from({ length: added }, () => NEW_ROW)];
  const columnId = (field: string) => `${base}-col-${field}`;
  return (
    <Form method="post" action={PATH} className="stack" aria-label={t("labels.title")}>
      <div className="labels-table-wrap">
        <table className="labels-table">
          <thead>
            <tr>
              <th scope="col">
                <span className="sr-only">{t("labels.label")}</span>
              </th>
              <th scope="col" id={columnId("name")}>
                {t("labels.name")}
              </th>
              <th scope="col" id={columnId("color")}>
                {t("labels.color")}
              </th>
              <th scope="col" id={columnId("colorDark")}>
                {t("labels.colorDark")}
              </th>
              <th scope="col" id={columnId("level")}>
                {t("labels.level")}
              </th>
              <th scope="col" id={columnId("sla")}>
                {t("labels.sla")}
              </th>
              <th scope="col" id={columnId("delete")}>
                {t("labels.delete")}
              </th>
            </tr>
          </thead>
          <tbody>
            {all.map((row, index) => {
              const rowId = `${base}-row-${index}`;
              const bad = (field: string) => `${field}.${index}` in errors;
              return (
                <tr key={index} className={row.id ? "label-row" : "label-row label-new"} data-label-id={row.id || undefined}>
                  <th scope="row" id={rowId} className={bad("id") ? "invalid" : undefined}>
                    {row.id ? t("labels.number", { id: row.id }) : t("labels.newRow")}
                    <input type="hidden" name="id" value={row.id} />
                  </th>
                  <td>
                    <input
                      name="name"
                      defaultValue={row.name}
                      aria-labelledby={`${columnId("name")} ${rowId}`}
                      aria-invalid={bad("name") || undefined}
                      autoComplete="off"
                    />
                  </td>
                  <ColorCell field="color" value={row.color} labelledBy={`${columnId("color")} ${rowId}`} invalid={bad("color")} />
                  <ColorCell field="colorDark" value={row.colorDark} labelledBy={`${columnId("colorDark")} ${rowId}`} invalid={bad("colorDark")} dark />
                  {(["level", "sla"] as const).map((field) => (
                    <td key={field}>
                      <input
                        name={field}
                        defaultValue={row[field]}
                        inputMode="numeric"
                        size={6}
                        aria-labelledby={`${columnId(field)} ${rowId}`}
                        aria-invalid={bad(field) || undefined}
                        autoComplete="off"
                      />
                    </td>
                  ))}
                  <td>
                    {row.id ? (
                      <input
                        type="checkbox"
                        name="delete"
                        value={row.id}
                        defaultChecked={deleted.includes(row.id)}
                        aria-labelledby={`${columnId("delete")} ${rowId}`}
                        aria-invalid={bad("delete") || undefined}
                      />
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="labels-actions">
        {hydrated ? (
          <button type="button" className="button" onClick={() => setAdded((n) => n + 1)}>
            {t("labels.addRow")}
          </button>
        ) : null}
        <button type="submit" className="button primary" disabled={busy}>
          {t("common.save")}
        </button>
      </div>
    </Form>
  );
}

/**
 * A text input (so wrong text stays visible) with a swatch of the colour it holds, and a warning
 * when the colour cannot be read on its theme as it is (chips then show a darker or lighter shade).
 */
function ColorCell({
  field,
  value,
  labelledBy,
  invalid,
  dark = false,
}: {
  field: "color" | "colorDark";
  value: string;
  labelledBy: string;
  invalid: boolean;
  dark?: boolean;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState(value);
  const valid = isHexColor(text);
  const short = shortfall(text, dark ? "dark" : "light");
  const warningId = useId();
  return (
    <td>
      <span className="label-color">
        <span
          className={`label-swatch${dark ? " on-dark" : ""}${valid ? "" : " invalid"}`}
          style={valid ? { background: text.trim() } : undefined}
          aria-hidden="true"
        />
        <input
          name={field}
          defaultValue={value}
          onChange={(e) => setText(e.currentTarget.value)}
          size={8}
          spellCheck={false}
          autoComplete="off"
          aria-labelledby={labelledBy}
          aria-invalid={invalid || undefined}
          aria-describedby={short === null ? undefined : warningId}
        />
      </span>
      {short === null ? null : (
        <p className="field-warning" id={warningId}>
          {t(dark ? "labels.contrastDark" : "labels.contrastLight", { ratio: ratioText(short), needed: MIN_TEXT_CONTRAST.toFixed(1) })}
        </p>
      )}
    </td>
  );
}

export { AdminOnlyBoundary as ErrorBoundary } from "~/components/AdminOnly";
