// /dashboard/{token}: a read-only dashboard for anyone holding a link an admin created.
// Unknown or revoked tokens answer 404.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { loadDashboardPage, isDashboardToken } from "../index.server";
import { INTERVAL_KEYS } from "../constants";
import { ChartCard, RangeForm } from "../components/ReportUI";
import { pageMeta } from "~/meta";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!(await isDashboardToken(params.id))) throw new Response("Not Found", { status: 404 });
  const url = new URL(request.url);
  const page = await loadDashboardPage(ctx, url, "public");
  return json(
    { ...page, path: url.pathname, product: ctx.edition.title },
    { headers: { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" } },
  );
}

export const meta = pageMeta("reports.publicTitle", [{ name: "robots", content: "noindex, nofollow" }]);

export default function PublicDashboard() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="public-dashboard report-page stack">
      <header>
        <p className="muted">{data.product}</p>
        <h1>{t("reports.publicTitle")}</h1>
      </header>
      <RangeForm action={data.path} values={data.values} error={data.error} intervals={INTERVAL_KEYS} />
      <div className="report-grid">
        {data.widgets.map((w) => (
          <ChartCard key={w.id} widget={w} />
        ))}
      </div>
    </main>
  );
}
