// Charts in the reader's language and readable without sight: the server's SVG names months and
// weekdays in each language, vega's English accessibility texts are gone, every chart is
// described in words and its data table holds the numbers it draws. (The drawing does not depend
// on the database's dialect: SQLite only.)
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { eq } from "drizzle-orm";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import type { Language } from "~/i18n";
import { i18nFor } from "~/i18n";
import { translatorFor } from "~/i18n.server";
import { parseRange, type DateRange } from "@plugins/reports/reports.server";
import { renderDashboard, type RenderedWidget } from "@plugins/reports/widgets.server";
import { ChartCard } from "@plugins/reports/components/ReportUI";

const NOW = Date.UTC(2026, 10, 21, 12);
const TZ = "Asia/Kuala_Lumpur";
const ENGLISH_MONTHS =
  /\b(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/;
const ENGLISH_DAYS = /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/;
const MALAY_DAYS = /\b(Ahd|Isn|Sel|Rab|Kha|Jum|Sab)\b/;

/** The texts drawn in an SVG (tick labels, axis titles, legends). */
const drawnText = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).join(" | ");

const range = (start: string, end: string): DateRange => {
  const parsed = parseRange(start, end, NOW, TZ);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.range;
};

describe("report charts in the reader's language", () => {
  let t: TestDb;
  // August to November: the time axis ticks months; one week: it ticks days with their weekday
  let months: DateRange;
  let week: DateRange;
  const render = (language: Language, r = months) =>
    renderDashboard({ dashboard: "omnichannel", enabledPlugins: ["tickets", "reports"], range: r, interval: "day", now: NOW, timeZone: TZ, language });
  const byId = (widgets: RenderedWidget[], id: string) => widgets.find((w) => w.id === id)!;

  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 300, now: NOW });
    months = range("2026-08-01", "2026-11-21");
    week = range("2026-11-09", "2026-11-15");
    const { db, schema } = t.handle;
    await db
      .update(schema.users)
      .set({ status: "AWAY", secondStatus: "AWAY", statusTime: NOW - 30 * 60000 })
      .where(eq(schema.users.username, "agent"));
  });
  afterAll(async () => t?.cleanup());

  it("names months and weekdays on the server's SVG axes in Chinese and Malay, never in English", async () => {
    const zh = drawnText(byId(await render("zh"), "volume").svg);
    // a month's first tick gets the month's name, other weeks their day
    expect(zh).toContain("十一月");
    expect(zh).toContain("10月4日");
    expect(zh).not.toMatch(ENGLISH_MONTHS);
    const zhWeek = drawnText(byId(await render("zh", week), "volume").svg);
    expect(zhWeek).toMatch(/11月\d+日 周[一二三四五六日]/);
    expect(zhWeek).not.toMatch(ENGLISH_DAYS);

    const ms = drawnText(byId(await render("ms"), "volume").svg);
    expect(ms).toContain("2 Ogo");
    expect(ms).toContain("4 Okt");
    expect(ms).not.toMatch(/\b(Aug|Oct)\b/);
    expect(drawnText(byId(await render("ms", week), "volume").svg)).toMatch(MALAY_DAYS);

    for (const language of ["ja", "ko"] as const) expect(drawnText(byId(await render(language), "volume").svg), language).not.toMatch(ENGLISH_MONTHS);
    expect(drawnText(byId(await render("en"), "volume").svg)).toContain("4 Oct");
  });

  it("says each point's date in the reader's language in the tooltip and the data table", async () => {
    const label = async (language: Language) => String(byId(await render(language, week), "volume").data.rows[0].label);
    // 9 November 2026 is a Monday
    expect(await label("en")).toBe("Mon, 9 Nov 2026");
    expect(await label("ms")).toBe("Isn, 9 Nov 2026");
    expect(await label("zh")).toBe("2026年11月9日周一");
    expect(await label("ja")).toBe("2026年11月9日(月)");
    expect(await label("ko")).toBe("2026년 11월 9일 (월)");
  });

  it("keeps the parsed chart per widget and language: a later language does not draw in an earlier one's", async () => {
    vi.stubEnv("NODE_ENV", "production");
    try {
      const first = drawnText(byId(await render("en"), "volume").svg);
      const zh = drawnText(byId(await render("zh"), "volume").svg);
      const again = drawnText(byId(await render("en"), "volume").svg);
      expect(first).toContain("4 Oct");
      expect(zh).not.toMatch(ENGLISH_MONTHS);
      expect(again).toBe(first);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("leaves out vega's English accessibility texts and describes every chart in the reader's language", async () => {
    for (const language of ["en", "zh", "ms"] as const) {
      for (const w of await render(language)) {
        expect(w.svg, `${language} ${w.id}`).not.toMatch(/aria-label|aria-roledescription|role=|titled|mark container/);
        expect(w.description, `${language} ${w.id}`).toBeTruthy();
      }
    }
    const zh = await render("zh");
    expect(byId(zh, "volume").description).toMatch(
      /^折线图：按时间统计的会话数，从2026年8月1日周六到2026年11月21日周六共 113 个值。最高：\d+（2026年\d+月\d+日周.）。合计：\d+。$/,
    );
    const status = byId(zh, "status");
    // a few values: every one of them, in the chart's order
    expect(status.description).toBe(
      `柱状图：按状态统计的会话数。${status.data.rows
        .map((r) => `${r.status}: ${r.count}`)
        .join("、")
        .replace(/、([^、]*)$/, "和$1")}。`,
    );
    const volume = byId(await render("en"), "volume");
    const counts = volume.data.rows.map((r) => Number(r.count));
    expect(volume.description).toContain(`${counts.length} values from ${volume.data.rows[0].label} to ${volume.data.rows.at(-1)!.label}`);
    expect(volume.description).toContain(`Total: ${counts.reduce((a, n) => a + n, 0).toLocaleString("en-GB")}.`);
  });

  it("draws what the data table lists: the same rows, with translated headers, statuses and numbers", async () => {
    const zh = await render("zh");
    const t = translatorFor("zh");
    for (const w of zh) {
      expect((w.spec as { data: { values: unknown } }).data.values, w.id).toEqual(w.data.rows);
      const html = renderToStaticMarkup(createElement(I18nextProvider, { i18n: i18nFor("zh") }, createElement(ChartCard, { widget: w })));
      const headers = [...html.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((m) => m[1]);
      expect(headers, w.id).toEqual(w.data.columns.map((c) => c.label));
      const cells = [...html.matchAll(/<tr><td>(.*?)<\/tr>/g)].map((m) => [...`<td>${m[1]}`.matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1]));
      expect(cells, w.id).toEqual(
        w.data.rows.map((r) => w.data.columns.map((c) => (typeof r[c.key] === "number" ? Number(r[c.key]).toLocaleString("zh-CN") : String(r[c.key])))),
      );
      // one image named by the title, described by the figure's caption
      expect(html).toContain(`role="img" aria-label="${t("reports.widget.chartOf", { title: w.title })}" aria-describedby="widget-${w.id}-description"`);
      expect(html).toContain(`<figcaption id="widget-${w.id}-description" class="chart-description">${w.description}</figcaption>`);
    }
    const status = byId(zh, "status");
    expect(status.data.rows.map((r) => r.status)).toEqual([0, 1, 2, 3].map((s) => t(`reports.statuses.${s}`)));
    expect(status.data.rows[0].status).not.toBe("Open");
    // an agent's status by its name, not its code
    const aux = byId(zh, "aux");
    expect(aux.data.rows).toContainEqual(expect.objectContaining({ status: t("status.AWAY"), minutes: 30 }));
    expect(aux.data.rows.map((r) => r.status)).not.toContain("AWAY");
  });
});
