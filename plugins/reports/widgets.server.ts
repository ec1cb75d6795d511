// Report widgets: the manifests' "widgets" (Vega-Lite spec file + data loader by name), their
// data for a range, and each chart rendered to SVG on the server (vega View, renderer 'none',
// toSVG: no canvas or browser needed), so dashboards show and print with JavaScript off. Each
// chart speaks the reader's language (chart-locale.server.ts) and is described in words.
import fs from "node:fs";
import path from "node:path";
import type { TFunction } from "i18next";
import type { TopLevelSpec } from "vega-lite";
import { plugins } from "~/plugins/registry.server";
import { pluginExport } from "~/plugins/modules.server";
import type { Language } from "~/i18n";
import { translatorFor } from "~/i18n.server";
import { formatter } from "~/time";
import { statusLabel } from "~/presence";
import { refreshFacts } from "./facts.server";
import { chartConfig, LOCALE_TAGS } from "./chart-locale.server";
import {
  auxTimes,
  breakdown,
  channelGroup,
  DASHBOARDS,
  DURATION_BUCKETS,
  emotionCounts,
  EMOTIONS,
  GROUP_ORDER,
  intervalVolume,
  type DimRow,
  type DashboardId,
  type DateRange,
  type Interval,
} from "./reports.server";

export type Row = Record<string, string | number | null>;

export interface WidgetInput {
  range: Pick<DateRange, "from" | "to">;
  kinds: readonly string[];
  interval: Interval;
  now: number;
  timeZone: string;
  language: Language;
  t: TFunction;
  /** The shared one-pass aggregate, run at most once per dashboard. */
  breakdown(): Promise<DimRow[]>;
}

/** A widget's data loader: the export a manifest's `loader` names ("file#export"). */
export type WidgetLoader = (input: WidgetInput) => Promise<WidgetData>;

export interface WidgetData {
  /** Rows the chart draws (and the data table and CSV list). */
  rows: Row[];
  /** Data-table columns: field and header. */
  columns: { key: string; label: string }[];
  /** A line under the chart (e.g. the average time). */
  note?: string;
}

/** Counts of one dimension, folded by `key` into the given order (other keys are kept too). */
const sum = (rows: DimRow[], dim: DimRow["dim"], key: (k: string) => string | number, order: (string | number)[]) => {
  const counts = new Map<string | number, number>(order.map((k) => [k, 0]));
  for (const r of rows) if (r.dim === dim) counts.set(key(r.key), (counts.get(key(r.key)) ?? 0) + r.n);
  return counts;
};

function minutesText(t: TFunction, ms: number | null) {
  if (ms == null) return t("reports.noAverage");
  const minutes = ms / 60000;
  const value = minutes < 120 ? `${minutes.toFixed(1)} min` : `${(minutes / 60).toFixed(1)} h`;
  return t("reports.averageOf", { value });
}

function durationWidget(input: WidgetInput, rows: DimRow[], which: "fr" | "res"): WidgetData {
  const { t } = input;
  const keys = [...DURATION_BUCKETS.map((_, i) => i), -1];
  const counts = sum(rows, which, Number, keys);
  const mine = rows.filter((r) => r.dim === which);
  const total = mine.reduce((a, r) => a + r.sumMs, 0);
  const n = mine.reduce((a, r) => a + r.nMs, 0);
  return {
    rows: keys.map((k) => ({ bucket: t(`reports.buckets.${k < 0 ? "none" : DURATION_BUCKETS[k].key}`), count: counts.get(k) ?? 0 })),
    columns: [
      { key: "bucket", label: t("reports.columns.bucket") },
      { key: "count", label: t("reports.columns.count") },
    ],
    note: minutesText(t, n ? total / n : null),
  };
}

// Data loaders of the reports plugin's own widgets (plugin.json names each as "widgets.server.ts#name").

// a point's time as the tooltip and the data table say it: weekday, day, month (and time) in the reader's language
const pointFormats = new Map<string, Intl.DateTimeFormat>();
function pointFormat(language: Language, timeZone: string, withTime: boolean) {
  const key = `${language}|${timeZone}|${withTime}`;
  let f = pointFormats.get(key);
  if (!f) {
    const clock = withTime ? ({ hour: "2-digit", minute: "2-digit", hourCycle: "h23" } as const) : {};
    f = new Intl.DateTimeFormat(LOCALE_TAGS[language], { timeZone, weekday: "short", day: "numeric", month: "short", year: "numeric", ...clock });
    pointFormats.set(key, f);
  }
  return f;
}

export async function volume(input: WidgetInput): Promise<WidgetData> {
  const { t, timeZone } = input;
  const points = await intervalVolume(input.range, input.kinds, input.interval);
  const label = pointFormat(input.language, timeZone, input.interval !== "day");
  const offset = (at: number) => {
    // the chart's UTC axis shows workspace time: shift each point by the zone's offset
    const p = Object.fromEntries(
      formatter(timeZone, "clock")
        .formatToParts(at)
        .map((x) => [x.type, x.value]),
    );
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second) - (at - (at % 1000));
  };
  return {
    rows: points.map((p) => ({
      at: p.at + offset(p.at),
      start: p.at,
      label: label.format(p.at),
      count: p.count,
    })),
    columns: [
      { key: "label", label: t("reports.columns.time") },
      { key: "count", label: t("reports.columns.count") },
    ],
  };
}

export async function channels(input: WidgetInput): Promise<WidgetData> {
  const { t } = input;
  const counts = sum(await input.breakdown(), "cs", (k) => channelGroup(k.split("|")[0]), GROUP_ORDER);
  return {
    rows: GROUP_ORDER.map((g) => ({ group: t(`reports.groups.${g}`), count: counts.get(g) ?? 0 })),
    columns: [
      { key: "group", label: t("reports.columns.group") },
      { key: "count", label: t("reports.columns.count") },
    ],
  };
}

export async function status(input: WidgetInput): Promise<WidgetData> {
  const { t } = input;
  const counts = sum(await input.breakdown(), "cs", (k) => Number(k.split("|")[1]), [0, 1, 2, 3]);
  return {
    rows: [0, 1, 2, 3].map((s) => ({ status: t(`reports.statuses.${s}`), count: counts.get(s) ?? 0 })),
    columns: [
      { key: "status", label: t("reports.columns.status") },
      { key: "count", label: t("reports.columns.count") },
    ],
  };
}

export async function sla(input: WidgetInput): Promise<WidgetData> {
  const { t } = input;
  const outcomes = ["met", "breached", "pending", "none"];
  const counts = sum(await input.breakdown(), "sla", String, outcomes);
  return {
    rows: outcomes.map((o) => ({ outcome: t(`reports.sla.${o}`), count: counts.get(o) ?? 0 })),
    columns: [
      { key: "outcome", label: t("reports.columns.outcome") },
      { key: "count", label: t("reports.columns.count") },
    ],
  };
}

export async function response(input: WidgetInput): Promise<WidgetData> {
  return durationWidget(input, await input.breakdown(), "fr");
}

export async function resolution(input: WidgetInput): Promise<WidgetData> {
  return durationWidget(input, await input.breakdown(), "res");
}

export async function csat(input: WidgetInput): Promise<WidgetData> {
  const { t } = input;
  const counts = sum(await input.breakdown(), "rating", Number, [1, 2, 3, 4, 5]);
  const rated = [1, 2, 3, 4, 5].reduce((a, s) => a + (counts.get(s) ?? 0), 0);
  const average = rated ? [1, 2, 3, 4, 5].reduce((a, s) => a + s * (counts.get(s) ?? 0), 0) / rated : null;
  return {
    rows: [1, 2, 3, 4, 5].map((s) => ({ rating: t("reports.stars", { count: s }), count: counts.get(s) ?? 0 })),
    columns: [
      { key: "rating", label: t("reports.columns.rating") },
      { key: "count", label: t("reports.columns.count") },
    ],
    note: average == null ? t("reports.noAverage") : t("reports.averageOf", { value: average.toFixed(2) }),
  };
}

export async function aux(input: WidgetInput): Promise<WidgetData> {
  const { t } = input;
  const agents = await auxTimes(input.now);
  return {
    rows: agents.map((a) => ({ agent: a.agent, status: statusLabel(t, a.status), minutes: a.minutes })),
    columns: [
      { key: "agent", label: t("reports.columns.agent") },
      { key: "status", label: t("reports.columns.status") },
      { key: "minutes", label: t("reports.columns.minutes") },
    ],
  };
}

export interface WidgetDef {
  pluginId: string;
  id: string;
  /** Translation key (plugins/<id>/locales). */
  title: string;
  loader: string;
  spec: string;
  dashboards: string[];
}

/** Widgets of the enabled plugins that this dashboard shows, in manifest order. */
export function widgetsFor(dashboard: DashboardId, enabledPlugins: readonly string[]): WidgetDef[] {
  return plugins()
    .filter((p) => enabledPlugins.includes(p.id))
    .flatMap((p) => p.widgets.map((w) => ({ ...w, pluginId: p.id })))
    .filter((w) => w.dashboards.includes(dashboard));
}

const specCache = new Map<string, unknown>();
function specOf(w: WidgetDef): unknown {
  const file = path.resolve("plugins", w.pluginId, w.spec);
  let spec = specCache.get(file);
  if (!spec) {
    spec = JSON.parse(fs.readFileSync(file, "utf8"));
    if (process.env.NODE_ENV === "production") specCache.set(file, spec);
  }
  return spec;
}

/** Replaces "t:key" strings with their translation. */
function translate(value: unknown, t: TFunction): unknown {
  if (typeof value === "string") return value.startsWith("t:") ? t(value.slice(2)) : value;
  if (Array.isArray(value)) return value.map((v) => translate(v, t));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, translate(v, t)]));
  return value;
}

// vega is loaded on the first report, not at server start: other pages do not pay its memory
const vegaLibs = () => Promise.all([import("vega"), import("vega-lite")]);

const DATA = "table";
// compiled and parsed specs (the costly two thirds of drawing), per widget and language
const runtimes = new Map<string, Promise<unknown>>();

/**
 * The chart as SVG, drawn on the server at a fixed width (the SVG scales with its viewBox). The
 * spec is compiled with a named data source, so its parsed form is kept (by `cacheKey`) and
 * only the rows change from one request to the next.
 */
export async function renderSvg(spec: TopLevelSpec, rows?: Record<string, unknown>[], cacheKey?: string, width = 560): Promise<string> {
  const [vega, vl] = await vegaLibs();
  const build = async () => {
    const own = spec as { width?: unknown };
    const named = { ...spec, width: own.width === "container" ? width : own.width, ...(rows ? { data: { name: DATA } } : {}) } as TopLevelSpec;
    return vega.parse(vl.compile(named, { logger: vega.logger(vega.Error) }).spec);
  };
  let runtime: Promise<unknown>;
  if (cacheKey && process.env.NODE_ENV === "production") {
    runtime = runtimes.get(cacheKey) ?? build();
    runtimes.set(cacheKey, runtime);
  } else runtime = build();
  const view = new vega.View((await runtime) as ReturnType<typeof vega.parse>, { renderer: "none", logLevel: vega.Error });
  try {
    if (rows) view.data(DATA, rows);
    // the roles vega gives mark containers even with aria off come with English descriptions
    // ("rect mark container"); the page's element around the SVG names the chart instead
    return (await view.toSVG()).replace(/ (?:role|aria-roledescription)="[^"]*"/g, "");
  } finally {
    view.finalize();
  }
}

export interface RenderedWidget {
  id: string;
  title: string;
  /** The chart in words, in the reader's language (the figure's caption). */
  description: string;
  svg: string;
  /** The Vega-Lite spec with its data inline, for the interactive chart when JavaScript is on. */
  spec: unknown;
  data: WidgetData;
}

export interface DashboardOptions {
  dashboard: DashboardId;
  enabledPlugins: readonly string[];
  range: Pick<DateRange, "from" | "to">;
  interval: Interval;
  now: number;
  timeZone: string;
  language: Language;
  /** Only these widget ids (CSV download of one chart). */
  only?: string;
}

function inputFor(o: DashboardOptions): WidgetInput {
  let shared: Promise<DimRow[]> | undefined;
  const kinds = DASHBOARDS[o.dashboard].kinds;
  return {
    range: o.range,
    kinds,
    interval: o.interval,
    now: o.now,
    timeZone: o.timeZone,
    language: o.language,
    t: translatorFor(o.language),
    breakdown: () => (shared ??= breakdown(o.range, kinds, o.now)),
  };
}

/** Data of every widget of a dashboard (no drawing): JSON twins and CSV downloads. */
export async function dashboardData(o: DashboardOptions) {
  await refreshFacts();
  const input = inputFor(o);
  const widgets = widgetsFor(o.dashboard, o.enabledPlugins).filter((w) => !o.only || w.id === o.only);
  return Promise.all(widgets.map(async (w) => ({ def: w, data: await (await pluginExport<WidgetLoader>(w.pluginId, w.loader))(input) })));
}

// beyond this many rows a description gives the span, the highest and the total instead of every value
const LISTED_ROWS = 12;
const MARKS = ["bar", "line", "area", "point", "arc"];

/**
 * The chart in words, for those who cannot see it: its kind, what it counts by what, then every
 * value, or for many values their span, the highest and the total. The last column is the measure.
 */
export function describeChart(spec: unknown, data: WidgetData, t: TFunction, language: Language): string {
  const { rows, columns } = data;
  if (!rows.length) return t("reports.widget.empty");
  const measure = columns[columns.length - 1];
  const labels = columns.slice(0, -1);
  const tag = LOCALE_TAGS[language];
  const number = new Intl.NumberFormat(tag);
  const nameOf = (r: Row) => labels.map((c) => r[c.key]).join(", ");
  const valueOf = (r: Row) => Number(r[measure.key] ?? 0);
  const mark = (spec as { mark?: string | { type?: string } }).mark;
  const type = typeof mark === "string" ? mark : mark?.type;
  const head = {
    kind: t(`reports.a11y.marks.${MARKS.includes(type ?? "") ? type : "other"}`),
    measure: measure.label,
    dimension: labels.map((c) => c.label).join(", "),
  };
  if (rows.length <= LISTED_ROWS) {
    const values = new Intl.ListFormat(tag, { type: "conjunction" }).format(rows.map((r) => `${nameOf(r)}: ${number.format(valueOf(r))}`));
    return t("reports.a11y.few", { ...head, values });
  }
  const highest = rows.reduce((a, r) => (valueOf(r) > valueOf(a) ? r : a));
  return t("reports.a11y.many", {
    ...head,
    n: number.format(rows.length),
    first: nameOf(rows[0]),
    last: nameOf(rows[rows.length - 1]),
    max: number.format(valueOf(highest)),
    maxAt: nameOf(highest),
    total: number.format(rows.reduce((a, r) => a + valueOf(r), 0)),
  });
}

/** Every widget of a dashboard with its data, its spec and its server-drawn SVG. */
export async function renderDashboard(o: DashboardOptions): Promise<RenderedWidget[]> {
  const loaded = await dashboardData(o);
  const t = translatorFor(o.language);
  return Promise.all(
    loaded.map(async ({ def, data }) => {
      const own = translate(specOf(def), t) as TopLevelSpec & { config?: object };
      const base = { ...own, config: { ...own.config, ...chartConfig(o.language) } } as TopLevelSpec;
      // the spec differs by language only (texts and locale), so the parsed chart is kept per widget and language
      const svg = await renderSvg(base, data.rows, `${def.pluginId}/${def.id}/${o.language}`);
      const description = describeChart(base, data, t, o.language);
      return { id: def.id, title: t(def.title), description, svg, spec: { ...base, data: { values: data.rows } }, data };
    }),
  );
}

// OWASP's CSV injection rule: spreadsheets skip leading spaces and quotes before deciding that a
// cell is a formula, so the first character after them counts (tab and CR themselves included)
const FORMULA = /^[\s"']*[=+\-@\t\r]/;

/** CSV text of rows (text cells that a spreadsheet would run as formulas get a leading '; numbers stay values). */
export function csvLine(cells: (string | number | null | undefined)[]) {
  return (
    cells
      .map((c) => {
        let s = c == null ? "" : String(c);
        if (typeof c === "string" && FORMULA.test(s)) s = `'${s}`;
        return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      })
      .join(",") + "\r\n"
  );
}

/**
 * One chart as a page outside the dashboards draws it (voice analysis, analyst pages): its SVG, data
 * table, a sentence describing it, and the spec with its rows that the browser's live chart draws
 * (without it the page's chart would wait for a live one that never comes).
 */
export async function chartWidget(id: string, title: string, spec: TopLevelSpec, data: WidgetData, t: TFunction, language: Language) {
  const withLocale = { ...spec, config: { ...(spec as { config?: object }).config, ...chartConfig(language) } } as TopLevelSpec;
  const svg = await renderSvg(withLocale, data.rows);
  return { id, title, description: describeChart(withLocale, data, t, language), svg, spec: { ...withLocale, data: { values: data.rows } }, data };
}

/**
 * A bar chart of `y` by `x` (grouped by `group` side by side when given), with its axis titles;
 * `percent` fixes the scale at 0..100.
 */
export function barSpec(o: { x: string; y: string; xTitle: string; yTitle: string; group?: string; groupTitle?: string; percent?: boolean }): TopLevelSpec {
  return {
    width: "container",
    height: 220,
    mark: { type: "bar", tooltip: true },
    encoding: {
      x: { field: o.x, type: "nominal", sort: null, title: o.xTitle, axis: { labelAngle: 0 } },
      ...(o.group ? { xOffset: { field: o.group, sort: null }, color: { field: o.group, type: "nominal", sort: null, title: o.groupTitle } } : {}),
      y: { field: o.y, type: "quantitative", title: o.yTitle, ...(o.percent ? { scale: { domain: [0, 100] } } : {}) },
    },
  } as unknown as TopLevelSpec;
}
