// /forms: survey submissions for agents and admins. Tab Main is the first survey (the demo one),
// each other survey has its own tab; every tab pages by links (?tab=&page=), so it works without
// JavaScript. Admins also create surveys, edit their fields (plain form: the fields plus three
// empty rows) and renew a survey's public link.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, requireAdmin } from "~/context.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { formResult, formValues, refusalKey, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import {
  FIELD_TYPES,
  createSurvey,
  listSubmissions,
  listSurveys,
  renewSurveyLink,
  saveSurvey,
  type EditorResult,
  type EditorRow,
  type SurveyField,
} from "../forms.server";
import { formatDate, formatTime } from "~/time";
import { FormMessage } from "~/components/FormMessage";

const PATH = "/forms";
const EMPTY_ROWS = 3;
const ROWS_MAX = 200;

const toRow = (f: SurveyField): EditorRow => ({
  id: f.id,
  label: f.label,
  type: f.type,
  required: f.required,
  options: f.type === "select" ? f.options.join(", ") : "",
  remove: false,
});
const NEW_ROW: EditorRow = { id: "", label: "", type: "text", required: false, options: "", remove: false };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const url = new URL(request.url);
  const surveys = await listSurveys();
  const current = surveys.find((s) => String(s.id) === url.searchParams.get("tab")) ?? surveys[0];
  const list = current ? await listSubmissions(current, Number(url.searchParams.get("page")) || 1) : undefined;
  const { timeZone } = ctx.workspace;
  const isAdmin = ctx.user?.type === "admin";
  return json({
    isAdmin,
    origin: url.origin,
    saved: url.searchParams.get("saved"),
    tabs: surveys.map((s, i) => ({ id: s.id, title: s.title, main: i === 0 })),
    current: current
      ? { id: current.id, title: current.title, token: current.token, main: current.id === surveys[0]!.id, rows: isAdmin ? current.fields.map(toRow) : [] }
      : undefined,
    list: list && {
      page: list.page,
      pages: list.pages,
      total: list.total,
      submissions: list.submissions.map((s) => ({ ...s, day: formatDate(s.createdAt, timeZone), time: formatTime(s.createdAt, timeZone) })),
    },
  });
}

/**
 * A refused create or save: the model's error as the message, the title and the bad rows' inputs
 * (`label_${i}`, `options_${i}`) as field errors, and every input as sent (the editor's own names).
 */
function refused(intent: string, result: EditorResult<unknown> & { ok: false }, values: Record<string, string>) {
  const message = `forms.editorErrors.${result.code}`;
  const errors: Record<string, string> = result.title ? { title: message } : {};
  for (const i of result.rows) errors[`label_${i}`] = errors[`options_${i}`] = message;
  return refuse(formResult({ intent, message, errors, values }));
}

/** The editor's rows as a refusal kept them. */
function rowsOf(values: Record<string, string>): EditorRow[] {
  const count = Math.min(Number(values.rows) || 0, ROWS_MAX);
  return Array.from({ length: count }, (_, i) => ({
    id: values[`id_${i}`] ?? "",
    label: values[`label_${i}`] ?? "",
    type: values[`type_${i}`] ?? "",
    required: `required_${i}` in values,
    options: values[`options_${i}`] ?? "",
    remove: `remove_${i}` in values,
  }));
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireAdmin(request);
  const form = await request.formData();
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v : "";
  };
  const intent = text("intent");
  if (intent === "create") {
    const result = await createSurvey(text("title"));
    if (!result.ok) return refused(intent, result, formValues(form, ["title"]));
    return redirect(`${PATH}?tab=${result.value.id}&saved=created`);
  }
  const surveyId = Number(text("survey"));
  if (intent === "link") {
    if (!(await renewSurveyLink(surveyId))) throw new Response("Not Found", { status: 404 });
    return redirect(`${PATH}?tab=${surveyId}&saved=link`);
  }
  if (intent !== "save") throw new Response("Bad Request", { status: 400 });
  const values = formValues(form);
  const result = await saveSurvey(surveyId, text("title"), rowsOf(values));
  if (!result) throw new Response("Not Found", { status: 404 });
  if (!result.ok) return refused(intent, result, values);
  return redirect(`${PATH}?tab=${surveyId}&saved=fields`);
}

export default function FormsPage() {
  const data = useLoaderData<typeof loader>();
  const failed = useFormResult();
  const { t } = useTranslation();
  const current = data.current;
  const tabHref = (id: number, page?: number) => `${PATH}?tab=${id}${page && page > 1 ? `&page=${page}` : ""}`;
  return (
    <section className="forms-page stack">
      <h1>{t("forms.title")}</h1>
      {data.saved && !failed ? (
        <p className="notice" role="status">
          {t(`forms.saved.${data.saved === "created" ? "created" : data.saved === "link" ? "link" : "fields"}`)}
        </p>
      ) : null}
      {data.tabs.length ? (
        <nav className="tabs" aria-label={t("forms.tabs")}>
          {data.tabs.map((tab) => (
            <Link
              key={tab.id}
              to={tabHref(tab.id)}
              className={tab.id === current?.id ? "tab active" : "tab"}
              aria-current={tab.id === current?.id ? "page" : undefined}
            >
              {tab.main ? t("forms.main") : tab.title}
            </Link>
          ))}
        </nav>
      ) : (
        <p className="muted">{t("forms.noSurveys")}</p>
      )}
      {current && data.list ? (
        <div className="stack" aria-label={current.main ? t("forms.main") : current.title} role="region">
          <h2>{current.title}</h2>
          {data.list.submissions.length ? (
            <ol className="submissions">
              {data.list.submissions.map((s) => (
                <li key={s.id} className="submission">
                  <p className="muted">
                    <span>{t("forms.number", { id: s.id })}</span> · <time dateTime={new Date(s.createdAt).toISOString()}>{`${s.day} ${s.time}`}</time>
                  </p>
                  <dl>
                    {s.answers.map((a, i) => (
                      <div key={i} className="answer">
                        <dt>{a.label}</dt>
                        <dd>{a.value === "" ? <span className="muted">{t("forms.noAnswer")}</span> : a.value}</dd>
                      </div>
                    ))}
                  </dl>
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">{t("forms.noSubmissions")}</p>
          )}
          {data.list.pages > 1 ? (
            <nav className="pager" aria-label={t("forms.pager")}>
              {data.list.page > 1 ? (
                <Link to={tabHref(current.id, data.list.page - 1)} rel="prev">
                  {t("forms.prev")}
                </Link>
              ) : (
                <span />
              )}
              <span>{t("forms.pageOf", { page: data.list.page, pages: data.list.pages })}</span>
              {data.list.page < data.list.pages ? (
                <Link to={tabHref(current.id, data.list.page + 1)} rel="next">
                  {t("forms.next")}
                </Link>
              ) : (
                <span />
              )}
            </nav>
          ) : null}
        </div>
      ) : null}
      {data.isAdmin && current ? <SurveyAdmin key={`${current.id}-${refusalKey(failed, "")}`} failed={failed?.intent === "save" ? failed : undefined} /> : null}
      {data.isAdmin ? <CreateSurvey failed={failed?.intent === "create" ? failed : undefined} /> : null}
    </section>
  );
}

function SurveyAdmin({ failed }: { failed?: FormResult }) {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const base = useId();
  const location = useLocation();
  const navigation = useNavigation();
  const current = data.current!;
  const rows = failed ? rowsOf(failed.values) : [...current.rows, ...Array.from({ length: EMPTY_ROWS }, () => NEW_ROW)];
  const link = `/survey/${current.token}`;
  const col = (name: string) => `${base}-col-${name}`;
  const busy = navigation.state === "submitting" && navigation.formAction?.startsWith(PATH);
  return (
    <section className="survey-admin stack" aria-labelledby={`${base}-h`} key={location.key}>
      <h2 id={`${base}-h`}>{t("forms.editTitle")}</h2>
      <div className="survey-link">
        <span>{t("forms.publicLink")} </span>
        <a href={link} target="_blank" rel="noopener noreferrer">
          {`${data.origin}${link}`}
        </a>
        <Form method="post" action={`${PATH}?tab=${current.id}`} className="inline-form">
          <input type="hidden" name="survey" value={current.id} />
          <button type="submit" name="intent" value="link" className="button" disabled={busy}>
            {t("forms.newLink")}
          </button>
        </Form>
      </div>
      <Form method="post" action={`${PATH}?tab=${current.id}`} className="stack" aria-label={t("forms.editTitle")}>
        <input type="hidden" name="survey" value={current.id} />
        <input type="hidden" name="rows" value={rows.length} />
        <FormMessage result={failed} />
        <label>
          {t("forms.surveyTitle")}
          <input name="title" defaultValue={failed ? failed.values.title : current.title} maxLength={200} aria-invalid={!!failed?.errors.title || undefined} />
        </label>
        <div className="labels-table-wrap">
          <table className="labels-table survey-fields">
            <thead>
              <tr>
                <th scope="col">
                  <span className="sr-only">{t("forms.field")}</span>
                </th>
                <th scope="col" id={col("label")}>
                  {t("forms.fieldLabel")}
                </th>
                <th scope="col" id={col("type")}>
                  {t("forms.fieldType")}
                </th>
                <th scope="col" id={col("required")}>
                  {t("forms.fieldRequired")}
                </th>
                <th scope="col" id={col("options")}>
                  {t("forms.fieldOptions")}
                </th>
                <th scope="col" id={col("remove")}>
                  {t("forms.fieldRemove")}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => {
                const rowId = `${base}-row-${i}`;
                const invalid = !!failed?.errors[`label_${i}`] || undefined;
                const by = (name: string) => `${col(name)} ${rowId}`;
                return (
                  <tr key={i} className={row.id ? "field-row" : "field-row field-new"}>
                    <th scope="row" id={rowId}>
                      {row.id ? t("forms.fieldNumber", { n: i + 1 }) : t("forms.newField", { n: i + 1 })}
                      <input type="hidden" name={`id_${i}`} value={row.id} />
                    </th>
                    <td>
                      <input
                        name={`label_${i}`}
                        defaultValue={row.label}
                        aria-labelledby={by("label")}
                        aria-invalid={invalid}
                        maxLength={200}
                        autoComplete="off"
                      />
                    </td>
                    <td>
                      <select name={`type_${i}`} defaultValue={row.type} aria-labelledby={by("type")}>
                        {FIELD_TYPES.map((type) => (
                          <option key={type} value={type}>
                            {t(`forms.types.${type}`)}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input type="checkbox" name={`required_${i}`} defaultChecked={row.required} aria-labelledby={by("required")} />
                    </td>
                    <td>
                      <input name={`options_${i}`} defaultValue={row.options} aria-labelledby={by("options")} aria-invalid={invalid} autoComplete="off" />
                    </td>
                    <td>{row.id ? <input type="checkbox" name={`remove_${i}`} defaultChecked={row.remove} aria-labelledby={by("remove")} /> : null}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p className="muted">{t("forms.optionsHelp")}</p>
        <div>
          <button type="submit" name="intent" value="save" className="button primary" disabled={busy}>
            {t("forms.saveFields")}
          </button>
        </div>
      </Form>
    </section>
  );
}

function CreateSurvey({ failed }: { failed?: FormResult }) {
  const { t } = useTranslation();
  return (
    <section className="stack">
      <h2>{t("forms.createTitle")}</h2>
      <Form method="post" action={PATH} className="inline-form" key={refusalKey(failed, "create")}>
        <FormMessage result={failed} />
        <label>
          {t("forms.newSurveyTitle")}
          <input name="title" defaultValue={failed?.values.title ?? ""} maxLength={200} aria-invalid={failed?.errors.title ? true : undefined} />
        </label>
        <button type="submit" name="intent" value="create" className="button">
          {t("forms.create")}
        </button>
      </Form>
    </section>
  );
}

export const ErrorBoundary = deniedBoundary("admin.denied");
