// /report/{type}/{status}: the summary report (spec section 2). A GET form with the range as
// DD-MM-YYYY, tables grouped by the day conversations were created, Load More by 30. No JS needed.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { loadSummaryPage, parsePath, requireReportViewer, summaryGroups } from "../index.server";
import { MAX_SHOWN, REPORT_PAGE, REPORT_TYPES } from "../constants";
import { RangeForm } from "../components/ReportUI";
import { pageMeta } from "~/meta";
import { TableScroll } from "~/components/TableScroll";

const MAX_AVATARS = 4;
const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const ctx = await requireReportViewer(request, context);
  const path = parsePath(params);
  if (!path) throw new Response("Not Found", { status: 404 });
  const url = new URL(request.url);
  const page = await loadSummaryPage(ctx, url, path.type, path.status);
  const groups = summaryGroups(page.items, ctx.workspace.timeZone);
  return json({ ...page, items: undefined, groups, path: url.pathname }, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta("reports.summary.title", [{ name: "robots", content: "noindex" }]);

export default function SummaryReport() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const liveChat = data.type === "livechat";
  const shownRows = data.groups.reduce((a, g) => a + g.rows.length, 0);
  const more = new URLSearchParams({ start: data.values.start, end: data.values.end, shown: String(data.shown + REPORT_PAGE) });
  const keep = new URLSearchParams({ start: data.values.start, end: data.values.end });
  return (
    <section className="report-page stack">
      <h1>{t("reports.summary.title")}</h1>
      <nav className="report-tabs" aria-label={t("reports.summary.type")}>
        {REPORT_TYPES.map((type) => (
          <Link key={type} to={`/report/${type}/${data.status}?${keep}`} aria-current={type === data.type ? "page" : undefined}>
            {t(`reports.summary.types.${type}`)}
          </Link>
        ))}
      </nav>
      <nav className="report-tabs" aria-label={t("reports.summary.status")}>
        {[0, 1, 2, 3, 4].map((s) => (
          <Link key={s} to={`/report/${data.type}/${s}?${keep}`} aria-current={s === data.status ? "page" : undefined}>
            {t(`reports.statuses.${s}`)}
          </Link>
        ))}
      </nav>
      <RangeForm action={data.path} values={data.values} error={data.error} />
      {data.error ? null : (
        <>
          <p className="muted" role="status">
            {t("reports.summary.count", { count: data.count })}
          </p>
          {data.groups.length === 0 ? <p>{t("reports.summary.empty")}</p> : null}
          {data.groups.map((g) => (
            <TableScroll key={g.key} label={g.key}>
              <table className="report-table">
                <caption>{g.key}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("reports.summary.ticketNo")}</th>
                    <th scope="col">{t("reports.summary.titleCol")}</th>
                    <th scope="col">{t("reports.summary.channel")}</th>
                    <th scope="col">{t("reports.summary.label")}</th>
                    <th scope="col">{t("reports.summary.statusCol")}</th>
                    <th scope="col">{t("reports.summary.assignee")}</th>
                    <th scope="col">{t("reports.summary.department")}</th>
                    <th scope="col">{t("reports.summary.created")}</th>
                    <th scope="col">{t("reports.summary.updated")}</th>
                    <th scope="col">{t("reports.summary.sla")}</th>
                    {liveChat ? <th scope="col">{t("reports.summary.rating")}</th> : null}
                    {liveChat ? <th scope="col">{t("reports.summary.reason")}</th> : null}
                  </tr>
                </thead>
                <tbody>
                  {g.rows.map((r) => (
                    <tr key={r.id} id={`row-${r.index}`} data-ticket={r.ticketNumber}>
                      <td>
                        <Link to={r.href}>{r.ticketNumber}</Link>
                      </td>
                      <td>{r.title}</td>
                      <td>{t(`channel.${r.channel}`, { defaultValue: r.channel })}</td>
                      <td>{r.labels.map((l) => l.name ?? t("reports.summary.removed")).join(", ")}</td>
                      <td>{t(`reports.statuses.${r.status}`, { defaultValue: "?" })}</td>
                      <td>
                        {r.assignees.length ? (
                          <span className="avatars">
                            {r.assignees.slice(0, MAX_AVATARS).map((a) => (
                              <span key={a.username} className="avatar" title={a.name}>
                                {initials(a.name)}
                                <span className="sr-only"> {a.name}</span>
                              </span>
                            ))}
                            {r.assignees.length > MAX_AVATARS ? (
                              <span className="avatar more">{t("reports.summary.more", { count: r.assignees.length - MAX_AVATARS })}</span>
                            ) : null}
                          </span>
                        ) : (
                          t("reports.summary.none")
                        )}
                      </td>
                      <td>{r.department ?? ""}</td>
                      <td>{r.created}</td>
                      <td>{r.updated}</td>
                      <td>{r.slaMinutes == null ? "" : t("reports.summary.slaValue", { outcome: t(`reports.sla.${r.sla}`), minutes: r.slaMinutes })}</td>
                      {liveChat ? <td>{r.rating ?? ""}</td> : null}
                      {liveChat ? <td>{r.reason ?? ""}</td> : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          ))}
          {shownRows < data.count && shownRows >= REPORT_PAGE && data.shown < MAX_SHOWN ? (
            <Link className="button" to={`${data.path}?${more}#row-${shownRows}`} preventScrollReset>
              {t("reports.summary.loadMore")}
            </Link>
          ) : null}
          {data.range ? (
            <a
              href={`/report/export?${new URLSearchParams({ startDate: data.range.start, endDate: data.range.end, step: "day", dashboard: "dashboard" })}`}
              download
            >
              {t("reports.export")}
            </a>
          ) : null}
        </>
      )}
    </section>
  );
}
