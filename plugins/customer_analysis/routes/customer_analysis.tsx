// /customer_analysis (spec sections 2 and 6): segments of the contacts who wrote in a range, by
// emotion, channel, volume and outcome, drawn on the server with their tables. A GET form picks
// the range: it works without JavaScript.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { translatorFor } from "~/i18n.server";
import { rangeFromQuery } from "@plugins/reports/dashboard.server";
import { ChartCard, RangeForm } from "@plugins/reports/components/ReportUI";
import { requireCustomerAnalysis, segmentCharts } from "../charts.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireCustomerAnalysis(request, context);
  const url = new URL(request.url);
  const parsed = rangeFromQuery(url.searchParams, Date.now(), ctx.workspace.timeZone, 84);
  const segments = parsed.ok ? await segmentCharts(ctx.user, parsed.range, translatorFor(ctx.language), ctx.language) : null;
  return json(
    { path: url.pathname, values: parsed.values, error: parsed.ok ? null : parsed.error, segments },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_customer_analysis.title", [{ name: "robots", content: "noindex" }]);

export default function CustomerAnalysis() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="report-page stack" data-testid="customer-analysis">
      <h1>{t("plugin_customer_analysis.title")}</h1>
      <p>{t("plugin_customer_analysis.intro")}</p>
      <RangeForm action={data.path} values={data.values} error={data.error} />
      {data.segments ? (
        <>
          <p data-testid="customer-totals">{t("plugin_customer_analysis.totals", { contacts: data.segments.contacts, unlinked: data.segments.unlinked })}</p>
          <div className="report-grid">
            {data.segments.charts.map((w) => (
              <ChartCard key={w.id} widget={w} />
            ))}
          </div>
        </>
      ) : null}
    </section>
  );
}
