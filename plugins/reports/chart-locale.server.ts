// Charts in the reader's language: vega's number and time locale from d3's locale data (d3 has no
// Malay: chart-locales/ms-MY.json holds CLDR's names) and how time axes label their ticks. It goes
// into each spec's `config`, which vega applies per view, never globally: the server draws charts
// in several languages at once, and the browser's chart speaks as the server's SVG did.
import type { Language } from "~/i18n";
import enNumber from "d3-format/locale/en-GB";
import zhNumber from "d3-format/locale/zh-CN";
import koNumber from "d3-format/locale/ko-KR";
import jaNumber from "d3-format/locale/ja-JP";
import enTime from "d3-time-format/locale/en-GB";
import zhTime from "d3-time-format/locale/zh-CN";
import koTime from "d3-time-format/locale/ko-KR";
import jaTime from "d3-time-format/locale/ja-JP";
import ms from "./chart-locales/ms-MY.json";

/** Each language's tag for Intl and d3 (British English: dates are DD/MM/YYYY, spec section 9). */
export const LOCALE_TAGS: Record<Language, string> = { en: "en-GB", ms: "ms-MY", zh: "zh-CN", ko: "ko-KR", ja: "ja-JP" };

// vega's multi-level time format (the finest unit a tick falls on picks the pattern); its
// defaults are English in shape ("%b %d", 12-hour clock), these read naturally in each language
const clock = { minutes: "%H:%M", hours: "%H:%M" };
const TIME_AXIS: Record<Language, Record<string, string>> = {
  en: { ...clock, date: "%a %-d", week: "%-d %b", month: "%B", quarter: "%B", year: "%Y" },
  ms: { ...clock, date: "%a %-d", week: "%-d %b", month: "%B", quarter: "%B", year: "%Y" },
  zh: { ...clock, date: "%-m月%-d日 %a", week: "%-m月%-d日", month: "%B", quarter: "%B", year: "%Y年" },
  ko: { ...clock, date: "%-m월 %-d일 (%a)", week: "%-m월 %-d일", month: "%B", quarter: "%B", year: "%Y년" },
  ja: { ...clock, date: "%-m月%-d日(%a)", week: "%-m月%-d日", month: "%B", quarter: "%B", year: "%Y年" },
};

const LOCALES: Record<Language, { number: unknown; time: unknown }> = {
  en: { number: enNumber, time: enTime },
  ms,
  zh: { number: zhNumber, time: zhTime },
  ko: { number: koNumber, time: koTime },
  ja: { number: jaNumber, time: jaTime },
};

/**
 * The Vega-Lite config of a chart in `language`. `aria: false`: vega's own accessibility texts
 * are English ("X-axis titled ... for a discrete scale"); the page names and describes each chart
 * in the reader's language instead, and gives its numbers as a table (ReportUI.tsx).
 */
export function chartConfig(language: Language) {
  return { locale: LOCALES[language], axisTemporal: { format: TIME_AXIS[language] }, aria: false };
}
