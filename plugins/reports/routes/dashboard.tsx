// /dashboard, /report/omnichannel, /report/call and /interactions: Vega-Lite charts drawn as SVG
// on the server (readable without JavaScript), interactive with it. Admin or view_report only.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requireReportViewer, loadDashboardPage, type DashboardId } from "../index.server";
import { INTERVAL_KEYS } from "../constants";
import { ChartCard, RangeForm } from "../components/ReportUI";
import { pageMeta } from "~/meta";

const BY_PATH: Record<string, DashboardId> = {
  "/dashboard": "dashboard",
  "/report/omnichannel": "omnichannel",
  "/report/call": "call",
  "/interactions": "interactions",
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireReportViewer(request, context);
  const url = new URL(request.url);
  const dashboard = BY_PATH[url.pathname.replace(/\/$/, "")];
  if (!dashboard) throw new Response("Not Found", { status: 404 });
  const page = await loadDashboardPage(ctx, url, dashboard);
  return json({ ...page, path: url.pathname, isAdmin: ctx.user?.type === "admin" }, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta<{ dashboard: DashboardId }>(
  (data) => `reports.dashboards.${data?.dashboard ?? "dashboard"}`,
  [{ name: "robots", content: "noindex" }],
);

export default function DashboardPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="report-page stack">
      <h1>{t(`reports.dashboards.${data.dashboard}`)}</h1>
      <nav className="report-links" aria-label={t("reports.summary.title")}>
        <Link to="/report/ticket/4">{t("reports.summary.title")}</Link>
        {data.isAdmin ? <Link to="/report/share">{t("reports.share.link")}</Link> : null}
        {data.query ? (
          <a href={`/report/export?${data.query}&dashboard=${data.dashboard}`} download>
            {t("reports.export")}
          </a>
        ) : null}
      </nav>
      <RangeForm action={data.path} values={data.values} error={data.error} intervals={INTERVAL_KEYS} />
      <div className="report-grid">
        {data.widgets.map((w) => (
          <ChartCard key={w.id} widget={w} csvUrl={`/report/export?${data.query}&dashboard=${data.dashboard}&widget=${w.id}`} />
        ))}
      </div>
    </section>
  );
}
