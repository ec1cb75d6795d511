// /prediction_validator (spec section 2, trading edition, admins): how often the emotion and the
// classification the AI predicted matched the agent's final label (set on /ai/label from a
// conversation's Emotion panel), week by week, as a chart drawn on the server with its table.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { pageMeta } from "~/meta";
import { accuracyChart, chartingFor, pageRange, requireAnalyst } from "../charts.server";
import { AnalystPage } from "../components/AnalystUI";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireAnalyst(request, context, "prediction_validator");
  const url = new URL(request.url);
  const parsed = pageRange(ctx, url);
  const charts = parsed.ok ? [await accuracyChart(parsed.range, chartingFor(ctx))] : [];
  return json(
    { path: url.pathname, values: parsed.values, error: parsed.ok ? null : parsed.error, charts },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_analyst.menu.prediction_validator", [{ name: "robots", content: "noindex" }]);

export default function PredictionValidator() {
  const data = useLoaderData<typeof loader>();
  return <AnalystPage title="plugin_analyst.menu.prediction_validator" intro="plugin_analyst.validator.intro" {...data} />;
}
