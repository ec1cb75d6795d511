// The analyst pages' charts, drawn on the server as the reports plugin draws its widgets (SVG, a
// sentence describing it, the numbers in a <details> table): what customers ask about and how it
// moves week by week (/analyst_intelligence), how often the AI's prediction matched the agent's
// final label (/prediction_validator), how agents take the recommendations (/ai_learning).
// /integrated_insight shows them together. Each is built for a reader and a range.
import { redirect } from "@remix-run/node";
import type { TopLevelSpec } from "vega-lite";
import type { TFunction } from "i18next";
import { guardPluginRoute, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";
import type { Language } from "~/i18n";
import { translatorFor } from "~/i18n.server";
import { formatDate } from "~/time";
import { barSpec, chartWidget, type WidgetData } from "@plugins/reports/widgets.server";
import { rangeFromQuery } from "@plugins/reports/dashboard.server";
import { acceptanceByWeek } from "@plugins/ai/feedback.server";
import { accuracyByWeek } from "@plugins/ai/labels.server";
import { KINDS } from "@plugins/ai/recommend";
import { topicCounts, topicTrend, type Range } from "./insight.server";

export type AnalystContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

/** The page's menu item decides, on the server too (spec section 6: admin only, on the trading variant). */
export async function requireAnalyst(request: Request, context: object | undefined, item: string): Promise<AnalystContext> {
  const { ctx } = await guardPluginRoute(request, context);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("analyst", item, viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}

/** The days the page covers: its GET form's range, else the last 12 weeks. */
export function pageRange(ctx: RequestContext, url: URL, now = Date.now()) {
  return rangeFromQuery(url.searchParams, now, ctx.workspace.timeZone, 84);
}

export interface Charting {
  t: TFunction;
  language: Language;
  /** The workspace's zone: weeks start on its Mondays. */
  timeZone: string;
}

/** The charts' settings for a request: its reader's language, the workspace's zone. */
export const chartingFor = (ctx: RequestContext): Charting => ({ t: translatorFor(ctx.language), language: ctx.language, timeZone: ctx.workspace.timeZone });

/** "Week of DD/MM/YYYY" (spec section 9's date format) for a week's Monday, in the workspace's zone. */
export function weekLabel(t: TFunction, monday: number, timeZone: string) {
  return t("plugin_analyst.week", { date: formatDate(monday, timeZone) });
}

const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 100) : 0);

/** What customers ask about: conversations per classification, and per classification week by week. */
export async function topicCharts(reader: AnalystContext["user"], range: Range, c: Charting) {
  const { t, language } = c;
  const [counts, trend] = await Promise.all([topicCounts(reader, range), topicTrend(reader, range, c.timeZone)]);
  const topic = t("plugin_analyst.columns.topic");
  const conversations = t("plugin_analyst.columns.conversations");
  const classes: WidgetData = {
    rows: counts.classes.map((r) => ({ topic: t(`plugin_ai.class.${r.key}`), count: r.count })),
    columns: [
      { key: "topic", label: topic },
      { key: "count", label: conversations },
    ],
  };
  const weekly: WidgetData = {
    rows: trend.map((r) => ({ week: weekLabel(t, r.week, c.timeZone), topic: t(`plugin_ai.class.${r.key}`), count: r.count })),
    columns: [
      { key: "week", label: t("plugin_analyst.columns.week") },
      { key: "topic", label: topic },
      { key: "count", label: conversations },
    ],
  };
  const trendSpec = {
    width: "container",
    height: 220,
    mark: { type: "line", point: true, tooltip: true },
    encoding: {
      x: { field: "week", type: "ordinal", sort: null, title: t("plugin_analyst.columns.week"), axis: { labelAngle: 0 } },
      y: { field: "count", type: "quantitative", title: conversations },
      color: { field: "topic", type: "nominal", title: topic },
    },
  } as unknown as TopLevelSpec;
  return {
    counts,
    charts: [
      await chartWidget(
        "topics",
        t("plugin_analyst.charts.topics"),
        barSpec({ x: "topic", y: "count", xTitle: topic, yTitle: conversations }),
        classes,
        t,
        language,
      ),
      await chartWidget("trend", t("plugin_analyst.charts.trend"), trendSpec, weekly, t, language),
    ],
  };
}

/** How often the predicted emotion and classification matched the agent's final label, per week (percent). */
export async function accuracyChart(range: Range, c: Charting) {
  const { t, language } = c;
  const weeks = await accuracyByWeek(range.from, range.to, c.timeZone);
  const emotion = t("plugin_analyst.validator.emotion");
  const classification = t("plugin_analyst.validator.classification");
  const data: WidgetData = {
    rows: weeks.flatMap((w) => [
      { week: weekLabel(t, w.week, c.timeZone), measure: emotion, compared: w.emotionCompared, matched: percent(w.emotionMatched, w.emotionCompared) },
      { week: weekLabel(t, w.week, c.timeZone), measure: classification, compared: w.classCompared, matched: percent(w.classMatched, w.classCompared) },
    ]),
    columns: [
      { key: "week", label: t("plugin_analyst.columns.week") },
      { key: "measure", label: t("plugin_analyst.columns.measure") },
      { key: "compared", label: t("plugin_analyst.columns.compared") },
      { key: "matched", label: t("plugin_analyst.columns.matched") },
    ],
  };
  const totals = weeks.reduce((a, w) => ({ e: a.e + w.emotionCompared, em: a.em + w.emotionMatched, c: a.c + w.classCompared, cm: a.cm + w.classMatched }), {
    e: 0,
    em: 0,
    c: 0,
    cm: 0,
  });
  data.note = t("plugin_analyst.validator.note", {
    emotion: String(percent(totals.em, totals.e)),
    emotionOf: String(totals.e),
    classification: String(percent(totals.cm, totals.c)),
    classificationOf: String(totals.c),
  });
  const spec = barSpec({
    x: "week",
    y: "matched",
    group: "measure",
    xTitle: t("plugin_analyst.columns.week"),
    yTitle: t("plugin_analyst.columns.matched"),
    groupTitle: t("plugin_analyst.columns.measure"),
    percent: true,
  });
  return chartWidget("validator", t("plugin_analyst.charts.validator"), spec, data, t, language);
}

/** Recommendations used or edited, of all that agents decided on, per kind per week (percent). */
export async function acceptanceChart(range: Range, c: Charting) {
  const { t, language } = c;
  const weeks = await acceptanceByWeek(range.from, range.to, c.timeZone);
  const data: WidgetData = {
    rows: weeks.map((w) => ({
      week: weekLabel(t, w.week, c.timeZone),
      kind: t(`plugin_ai.rec.kind.${w.kind}`),
      used: w.used,
      edited: w.edited,
      dismissed: w.dismissed,
      acceptance: w.acceptance === null ? 0 : Math.round(w.acceptance * 100),
    })),
    columns: [
      { key: "week", label: t("plugin_analyst.columns.week") },
      { key: "kind", label: t("plugin_analyst.columns.kind") },
      { key: "used", label: t("plugin_analyst.learning.used") },
      { key: "edited", label: t("plugin_analyst.learning.edited") },
      { key: "dismissed", label: t("plugin_analyst.learning.dismissed") },
      { key: "acceptance", label: t("plugin_analyst.columns.acceptance") },
    ],
  };
  const sums = Object.fromEntries(KINDS.map((k) => [k, { yes: 0, all: 0 }]));
  for (const w of weeks) {
    sums[w.kind].yes += w.used + w.edited;
    sums[w.kind].all += w.used + w.edited + w.dismissed;
  }
  data.note = KINDS.map((k) =>
    t("plugin_analyst.learning.kindNote", { kind: t(`plugin_ai.rec.kind.${k}`), share: String(percent(sums[k].yes, sums[k].all)), of: String(sums[k].all) }),
  ).join(" ");
  const spec = barSpec({
    x: "week",
    y: "acceptance",
    group: "kind",
    xTitle: t("plugin_analyst.columns.week"),
    yTitle: t("plugin_analyst.columns.acceptance"),
    groupTitle: t("plugin_analyst.columns.kind"),
    percent: true,
  });
  return chartWidget("learning", t("plugin_analyst.charts.learning"), spec, data, t, language);
}
