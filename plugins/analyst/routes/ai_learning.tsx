// /ai_learning (spec section 2, trading edition, admins): what agents did with the reply
// recommendations (used as offered, edited before sending, dismissed), acceptance per kind per
// week, drawn on the server with its table.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { pageMeta } from "~/meta";
import { acceptanceChart, chartingFor, pageRange, requireAnalyst } from "../charts.server";
import { AnalystPage } from "../components/AnalystUI";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireAnalyst(request, context, "ai_learning");
  const url = new URL(request.url);
  const parsed = pageRange(ctx, url);
  const charts = parsed.ok ? [await acceptanceChart(parsed.range, chartingFor(ctx))] : [];
  return json(
    { path: url.pathname, values: parsed.values, error: parsed.ok ? null : parsed.error, charts },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_analyst.menu.ai_learning", [{ name: "robots", content: "noindex" }]);

export default function AiLearning() {
  const data = useLoaderData<typeof loader>();
  return <AnalystPage title="plugin_analyst.menu.ai_learning" intro="plugin_analyst.learning.intro" {...data} />;
}
