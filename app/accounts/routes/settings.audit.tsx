// /settings/audit: admins read the audit log, newest first, 50 a page, filtered by a GET form.
// Read only: a post is refused (405) and nothing on the page edits an entry.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext, requireAdmin } from "~/context.server";
import { AUDIT_FILTER_FIELDS, auditFilterSchema, auditTimeFormat, listAudit, type AuditRow } from "~/accounts/audit.server";
import { AUDIT_ACTIONS, AUDIT_DETAIL_KEYS, AUDIT_FAMILIES, AUDIT_TARGETS } from "~/accounts/audit-actions";
import { formError } from "~/forms";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { pageMeta } from "~/meta";
import { TableScroll } from "~/components/TableScroll";

type Entry = AuditRow & { time: string; iso: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const params = new URL(request.url).searchParams;
  const values = Object.fromEntries(AUDIT_FILTER_FIELDS.map((k) => [k, params.get(k) ?? ""])) as Record<(typeof AUDIT_FILTER_FIELDS)[number], string>;
  const parsed = auditFilterSchema.safeParse(values);
  const timeZone = ctx.workspace.timeZone;
  if (!parsed.success)
    return json({ refused: formError(parsed.error, values), values, timeZone, entries: [] as Entry[], older: null, newer: null }, { status: 400 });
  const page = await listAudit(parsed.data, timeZone);
  const time = auditTimeFormat(ctx.language, timeZone);
  return json({
    refused: null,
    values,
    timeZone,
    entries: page.entries.map((e): Entry => ({ ...e, time: time(e.at), iso: new Date(e.at).toISOString() })),
    older: page.older,
    newer: page.newer,
  });
}

const KNOWN_TARGETS = new Set<string>(AUDIT_TARGETS);
const KNOWN_DETAIL_KEYS = new Set<string>(AUDIT_DETAIL_KEYS);

export const meta = pageMeta("audit.title");

export default function AuditLog() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const errors = data.refused?.errors ?? {};
  // the filters travel with the pager's links (not the page cursors)
  const filters = new URLSearchParams();
  for (const k of ["action", "actor", "from", "to"] as const) if (data.values[k]) filters.set(k, data.values[k]);
  const pageLink = (cursor: "before" | "after", id: number) => {
    const q = new URLSearchParams(filters);
    q.set(cursor, String(id));
    return `?${q}`;
  };
  const filtered = [...filters.keys()].length > 0;
  // the error sits beside its label (named by aria-describedby), not in the field's name
  const field = (name: "action" | "actor" | "from" | "to", label: string, input: JSX.Element) => (
    <div>
      <label>
        {label} {input}
      </label>
      {errors[name] ? (
        <span className="field-error" id={`audit-${name}-error`} role="alert">
          {t(errors[name])}
        </span>
      ) : null}
    </div>
  );
  const invalid = (name: string) => (errors[name] ? { "aria-invalid": true, "aria-describedby": `audit-${name}-error` } : {});
  return (
    <section className="settings stack audit-log">
      <SettingsNav admin />
      <h1>{t("audit.title")}</h1>
      <p className="muted">{t("audit.help", { timeZone: data.timeZone })}</p>
      <Form method="get" className="inline-form audit-filters" role="search" aria-label={t("audit.filters")}>
        {field(
          "action",
          t("audit.filter.action"),
          <input name="action" list="audit-actions" defaultValue={data.values.action} maxLength={80} {...invalid("action")} />,
        )}
        <datalist id="audit-actions">
          {AUDIT_FAMILIES.map((f) => (
            <option key={f} value={f} label={t("audit.filter.family", { family: f })} />
          ))}
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a} label={t(`audit.action.${a}`)} />
          ))}
        </datalist>
        {field(
          "actor",
          t("audit.filter.actor"),
          <input name="actor" defaultValue={data.values.actor} maxLength={200} autoComplete="off" {...invalid("actor")} />,
        )}
        {field("from", t("audit.filter.from"), <input name="from" type="date" defaultValue={data.values.from} {...invalid("from")} />)}
        {field("to", t("audit.filter.to"), <input name="to" type="date" defaultValue={data.values.to} {...invalid("to")} />)}
        <button type="submit" className="button primary">
          {t("audit.filter.apply")}
        </button>
        {filtered ? <Link to="/settings/audit">{t("audit.filter.clear")}</Link> : null}
      </Form>
      <TableScroll label={filtered ? t("audit.captionFiltered") : t("audit.caption")}>
        <table className="report-table audit-table">
          <caption>{filtered ? t("audit.captionFiltered") : t("audit.caption")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("audit.col.time")}</th>
              <th scope="col">{t("audit.col.actor")}</th>
              <th scope="col">{t("audit.col.action")}</th>
              <th scope="col">{t("audit.col.target")}</th>
              <th scope="col">{t("audit.col.detail")}</th>
              <th scope="col">{t("audit.col.ip")}</th>
            </tr>
          </thead>
          <tbody>
            {data.entries.map((e) => (
              <tr key={e.id} data-action={e.action}>
                <th scope="row">
                  <time dateTime={e.iso}>{e.time}</time>
                </th>
                <td>
                  {e.actorName || e.actorUsername ? (
                    <>
                      <span className="audit-who">{e.actorName || e.actorUsername}</span>
                      {e.actorUsername && e.actorUsername !== e.actorName ? (
                        <span className="muted">
                          {" "}
                          (<span className="audit-who">{e.actorUsername}</span>)
                        </span>
                      ) : null}
                    </>
                  ) : (
                    <span className="muted">{t("audit.nobody")}</span>
                  )}
                </td>
                <td>
                  {e.known ? t(`audit.action.${e.action}`) : null}
                  {e.known ? " " : null}
                  <code className={e.known ? "muted" : undefined}>{e.action}</code>
                </td>
                <td>
                  {e.targetType ? (
                    <>
                      {KNOWN_TARGETS.has(e.targetType) ? t(`audit.target.${e.targetType}`) : e.targetType}{" "}
                      <span className="audit-who">{e.targetName ?? e.targetId}</span>
                    </>
                  ) : null}
                </td>
                <td>
                  {e.detail.length ? (
                    <ul style={{ margin: 0, paddingLeft: "1rem" }}>
                      {e.detail.map(([k, v], i) => (
                        <li key={i}>
                          {k ? <span className="muted">{KNOWN_DETAIL_KEYS.has(k) ? t(`audit.detailKey.${k}`) : k}: </span> : null}
                          <span className="audit-value">{v}</span>
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </td>
                <td>{e.ip}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {data.entries.length === 0 && !data.refused ? <p role="status">{filtered ? t("audit.noMatch") : t("audit.empty")}</p> : null}
      {data.newer !== null || data.older !== null ? (
        <nav className="pager" aria-label={t("audit.pager")}>
          {data.newer !== null ? (
            <Link to={pageLink("after", data.newer)} rel="prev">
              {t("audit.newer")}
            </Link>
          ) : (
            <span />
          )}
          {data.newer !== null ? <Link to={`?${filters}`}>{t("audit.newest")}</Link> : null}
          {data.older !== null ? (
            <Link to={pageLink("before", data.older)} rel="next">
              {t("audit.older")}
            </Link>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
    </section>
  );
}

/** The log is read only: a post changes nothing (signed out: the login form; agents: 403). */
export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return new Response("Method Not Allowed: the audit log is read only.", { status: 405, headers: { Allow: "GET" } });
}

export { AdminOnlyBoundary as ErrorBoundary } from "~/components/AdminOnly";
