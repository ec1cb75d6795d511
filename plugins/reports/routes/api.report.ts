// JSON twins (spec section 7): GET /api/report/interval (startDate, endDate, interval),
// /api/report/aux and /api/report/csat, with token/_token or the session cookie.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiFailure, reportApiAuth, defaultRange, isInterval, parseRange, dashboardData } from "../index.server";
import { translatorFor } from "~/i18n.server";

const WIDGET: Record<string, string> = { "/api/report/interval": "volume", "/api/report/aux": "aux", "/api/report/csat": "csat" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await reportApiAuth(request, context);
  const url = new URL(request.url);
  const widget = WIDGET[url.pathname];
  if (!widget) throw new Response("Not Found", { status: 404 });
  const now = Date.now();
  const timeZone = ctx.workspace.timeZone;
  const params = url.searchParams;
  const asked = params.has("startDate") || params.has("endDate");
  const parsed = asked ? parseRange(params.get("startDate"), params.get("endDate"), now, timeZone) : { ok: true as const, range: defaultRange(now, timeZone) };
  if (!parsed.ok) return apiFailure(400, translatorFor(ctx.language)(`reports.range.errors.${parsed.error}`));
  const interval = params.get("interval") ?? "day";
  if (!isInterval(interval)) return apiFailure(400, "interval must be one of 15m, 30m, 1h, day");
  const [found] = await dashboardData({
    dashboard: "omnichannel",
    enabledPlugins: ctx.edition.enabled,
    range: parsed.range,
    interval,
    now,
    timeZone,
    language: ctx.language,
    only: widget,
  });
  if (!found) throw new Response("Not Found", { status: 404 });
  return json(
    { result: "success", startDate: parsed.range.start, endDate: parsed.range.end, interval, data: found.data.rows, note: found.data.note ?? null },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
