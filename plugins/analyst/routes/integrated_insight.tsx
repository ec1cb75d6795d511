// /integrated_insight (spec section 2, trading edition, admins): one dashboard of the analyst
// pages over the same range: what customers ask about and its trend, the customers' emotion
// segment, how often the AI's predictions matched the agents' labels, and how agents take the
// recommendations; each chart links to its own page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { segmentCharts } from "@plugins/customer_analysis/charts.server";
import { acceptanceChart, accuracyChart, chartingFor, pageRange, requireAnalyst, topicCharts } from "../charts.server";
import { AnalystPage } from "../components/AnalystUI";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireAnalyst(request, context, "integrated_insight");
  const url = new URL(request.url);
  const parsed = pageRange(ctx, url);
  const c = chartingFor(ctx);
  const charts = parsed.ok
    ? await Promise.all([
        topicCharts(ctx.user, parsed.range, c).then((x) => x.charts),
        segmentCharts(ctx.user, parsed.range, c.t, c.language).then((x) => x.charts.filter((w) => w.id === "emotion")),
        accuracyChart(parsed.range, c).then((w) => [w]),
        acceptanceChart(parsed.range, c).then((w) => [w]),
      ]).then((all) => all.flat())
    : [];
  return json(
    { path: url.pathname, values: parsed.values, error: parsed.ok ? null : parsed.error, charts },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_analyst.menu.integrated_insight", [{ name: "robots", content: "noindex" }]);

export default function IntegratedInsight() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <AnalystPage title="plugin_analyst.menu.integrated_insight" intro="plugin_analyst.integrated.intro" {...data}>
      <nav aria-label={t("plugin_analyst.integrated.pages")} className="report-links">
        <Link to="/analyst_intelligence">{t("plugin_analyst.menu.analyst_intelligence")}</Link>
        <Link to="/customer_analysis">{t("plugin_customer_analysis.menu.customer_analysis")}</Link>
        <Link to="/prediction_validator">{t("plugin_analyst.menu.prediction_validator")}</Link>
        <Link to="/ai_learning">{t("plugin_analyst.menu.ai_learning")}</Link>
      </nav>
    </AnalystPage>
  );
}
