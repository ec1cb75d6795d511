// Loading a dashboard page: range and interval from the query string (refused before any query
// when bad), the widgets of the enabled plugins drawn on the server, and the links it offers.
import type { RequestContext } from "~/context.server";
import { defaultRange, isInterval, parseRange, toDmy, type DashboardId, type Interval, type RangeError } from "./reports.server";
import { renderDashboard, type RenderedWidget } from "./widgets.server";

export interface DashboardPage {
  dashboard: DashboardId;
  values: { start: string; end: string; interval: Interval };
  error: RangeError | null;
  widgets: RenderedWidget[];
  /** Query string of the range (for CSV links). */
  query: string;
}

export async function loadDashboardPage(ctx: RequestContext, url: URL, dashboard: DashboardId, now = Date.now()): Promise<DashboardPage> {
  const timeZone = ctx.workspace.timeZone;
  const params = url.searchParams;
  const interval: Interval = isInterval(params.get("interval")) ? (params.get("interval") as Interval) : "day";
  const parsed = rangeFromQuery(params, now, timeZone);
  if (!parsed.ok) return { dashboard, values: { ...parsed.values, interval }, error: parsed.error, widgets: [], query: "" };
  const { range } = parsed;
  const widgets = await renderDashboard({ dashboard, enabledPlugins: ctx.edition.enabled, range, interval, now, timeZone, language: ctx.language });
  const query = new URLSearchParams({ startDate: range.start, endDate: range.end, step: interval }).toString();
  return { dashboard, values: { start: toDmy(range.start), end: toDmy(range.end), interval }, error: null, widgets, query };
}

/**
 * The range a report page's GET form asks for (start and end, DD-MM-YYYY), the last `days` days
 * when it asks for none; refused with what was typed kept.
 */
export function rangeFromQuery(params: URLSearchParams, now: number, timeZone: string, days = 30) {
  const asked = params.has("start") || params.has("end");
  const parsed = asked ? parseRange(params.get("start"), params.get("end"), now, timeZone) : { ok: true as const, range: defaultRange(now, timeZone, days) };
  if (!parsed.ok) return { ok: false as const, error: parsed.error, values: { start: params.get("start") ?? "", end: params.get("end") ?? "" } };
  return { ok: true as const, range: parsed.range, values: { start: toDmy(parsed.range.start), end: toDmy(parsed.range.end) } };
}
