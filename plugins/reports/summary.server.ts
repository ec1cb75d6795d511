// The summary report's input: type and status from the path, range and rows shown from the query.
import { conversationPath } from "~/conversation/channels";
import { formatDate, formatTime } from "~/time";
import {
  defaultRange,
  groupByDay,
  isReportType,
  parseRange,
  REPORT_PAGE,
  summary,
  toDmy,
  type RangeError,
  type ReportType,
  type SummaryRow,
} from "./reports.server";

import { MAX_SHOWN } from "./constants";
import type { ReportContext } from "./guard.server";

export function parsePath(params: { type?: string; status?: string }): { type: ReportType; status: number } | undefined {
  const status = Number(params.status);
  if (!isReportType(params.type) || !/^[0-4]$/.test(params.status ?? "")) return undefined;
  return { type: params.type, status };
}

export interface SummaryPage {
  type: ReportType;
  status: number;
  values: { start: string; end: string };
  error: RangeError | null;
  items: SummaryRow[];
  count: number;
  shown: number;
  range: { start: string; end: string } | null;
}

export async function loadSummaryPage(ctx: ReportContext, url: URL, type: ReportType, status: number, now = Date.now()): Promise<SummaryPage> {
  const params = url.searchParams;
  const timeZone = ctx.workspace.timeZone;
  const asked = params.has("start") || params.has("end");
  const parsed = asked ? parseRange(params.get("start"), params.get("end"), now, timeZone) : { ok: true as const, range: defaultRange(now, timeZone, 7) };
  const shownAsked = Number(params.get("shown"));
  const shown = Number.isInteger(shownAsked) && shownAsked >= REPORT_PAGE ? Math.min(MAX_SHOWN, shownAsked) : REPORT_PAGE;
  if (!parsed.ok)
    return {
      type,
      status,
      values: { start: params.get("start") ?? "", end: params.get("end") ?? "" },
      error: parsed.error,
      items: [],
      count: 0,
      shown,
      range: null,
    };
  const { range } = parsed;
  const { items, count } = await summary(ctx.user, type, status, range, 0, shown, now);
  return {
    type,
    status,
    values: { start: toDmy(range.start), end: toDmy(range.end) },
    error: null,
    items,
    count,
    shown,
    range: { start: range.start, end: range.end },
  };
}

/** The page's tables: rows by creation day, with their link and times in the workspace zone. */
export function summaryGroups(items: SummaryRow[], timeZone: string) {
  const at = (ms: number) => `${formatDate(ms, timeZone)} ${formatTime(ms, timeZone)}`;
  let index = 0;
  return groupByDay(items, timeZone).map((g) => ({
    key: g.key,
    rows: g.rows.map((r) => ({ ...r, index: index++, href: conversationPath(r.kind, r.ticketNumber), created: at(r.createdAt), updated: at(r.updatedAt) })),
  }));
}
