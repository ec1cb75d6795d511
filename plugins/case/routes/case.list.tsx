// /case: the cases, the latest changed first, filtered by status (or overdue) and type, paged; each
// with its type, status, owner, due date (overdue marked in words) and number of tickets.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { caseTypes, listCases, listQuery } from "../case.server";
import { requireCaseUser } from "../guard.server";
import { CASE_STATUSES } from "../limits";
import { DueDate } from "../components/DueDate";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireCaseUser(request, context);
  const q = listQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  const [list, types] = await Promise.all([listCases(q, ctx.workspace.timeZone), caseTypes()]);
  return json(
    { ...list, types, query: { status: q.status, type: q.type ? String(q.type) : "" }, isAdmin: ctx.user.type === "admin" },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_case.title");

export default function CaseList() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const pageLink = (page: number) => {
    const search = new URLSearchParams();
    if (data.query.status) search.set("status", data.query.status);
    if (data.query.type) search.set("type", data.query.type);
    if (page > 1) search.set("page", String(page));
    const s = search.toString();
    return s ? `/case?${s}` : "/case";
  };
  return (
    <section className="stack case-page">
      <h1>{t("plugin_case.title")}</h1>
      <p>
        <Link to="/case/new" className="button primary">
          {t("plugin_case.new.title")}
        </Link>
        {data.isAdmin ? (
          <>
            {" "}
            <Link to="/case/types">{t("plugin_case.types.title")}</Link>
          </>
        ) : null}
      </p>
      <Form method="get" className="inline-form" aria-label={t("plugin_case.list.filters")}>
        <div className="stack">
          <label htmlFor="case-filter-status">{t("plugin_case.field.status")}</label>
          <select id="case-filter-status" name="status" defaultValue={data.query.status}>
            <option value="">{t("plugin_case.list.all")}</option>
            {CASE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`plugin_case.status.${s}`)}
              </option>
            ))}
            <option value="overdue">{t("plugin_case.overdue")}</option>
          </select>
        </div>
        <div className="stack">
          <label htmlFor="case-filter-type">{t("plugin_case.field.type")}</label>
          <select id="case-filter-type" name="type" defaultValue={data.query.type}>
            <option value="">{t("plugin_case.list.all")}</option>
            {data.types.map((ty) => (
              <option key={ty.id} value={String(ty.id)}>
                {ty.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" className="button">
            {t("plugin_case.list.filter")}
          </button>
        </div>
      </Form>
      <h2 id="case-list">{t("plugin_case.list.count", { count: data.total })}</h2>
      {data.cases.length ? (
        <TableScroll label={t("plugin_case.title")}>
          <table className="payment-table case-list">
            <thead>
              <tr>
                <th scope="col">{t("plugin_case.field.number")}</th>
                <th scope="col">{t("plugin_case.field.title")}</th>
                <th scope="col">{t("plugin_case.field.type")}</th>
                <th scope="col">{t("plugin_case.field.status")}</th>
                <th scope="col">{t("plugin_case.field.owner")}</th>
                <th scope="col">{t("plugin_case.field.dueDate")}</th>
                <th scope="col">{t("plugin_case.field.tickets")}</th>
              </tr>
            </thead>
            <tbody>
              {data.cases.map((c) => (
                <tr key={c.number} data-testid={`case-${c.number}`}>
                  <td>
                    <Link to={`/case/${c.number}`}>#{c.number}</Link>
                  </td>
                  <td>
                    <Link to={`/case/${c.number}`}>{c.title}</Link>
                  </td>
                  <td>{c.type ?? t("plugin_case.none")}</td>
                  <td>{t(`plugin_case.status.${c.status}`)}</td>
                  <td>{c.owner ?? t("plugin_case.nobody")}</td>
                  <td>
                    <DueDate day={c.dueDate} overdue={c.overdue} />
                  </td>
                  <td>{c.tickets}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_case.list.none")}</p>
      )}
      {data.pages > 1 ? (
        <nav aria-label={t("list.pager")} className="inline-form">
          {data.page > 1 ? <Link to={pageLink(data.page - 1)}>{t("list.prev")}</Link> : null}
          <span>{t("plugin_case.list.page", { page: data.page, pages: data.pages })}</span>
          {data.page < data.pages ? <Link to={pageLink(data.page + 1)}>{t("list.next")}</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}
