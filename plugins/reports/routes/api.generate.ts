// GET /report/generate ?token&type&status&offset&startDate&endDate (YYYY-MM-DD)
//   -> { result, data: { "DD/MM/YYYY": [rows] }, count }   (spec section 7; 30 rows per call)
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiFailure, reportApiAuth, groupByDay, parseRange, REPORT_PAGE, summary, parsePath } from "../index.server";
import { translatorFor } from "~/i18n.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await reportApiAuth(request, context);
  const params = new URL(request.url).searchParams;
  const path = parsePath({ type: params.get("type") ?? "", status: params.get("status") ?? "" });
  if (!path) return apiFailure(400, "type must be ticket, chat, call, livechat or all; status 0 to 4");
  const offset = Number(params.get("offset") ?? 0);
  if (!Number.isInteger(offset) || offset < 0 || offset > 10_000_000) return apiFailure(400, "offset must be a whole number");
  const now = Date.now();
  const parsed = parseRange(params.get("startDate"), params.get("endDate"), now, ctx.workspace.timeZone);
  if (!parsed.ok) return apiFailure(400, translatorFor(ctx.language)(`reports.range.errors.${parsed.error}`));
  const { items, count } = await summary(ctx.user, path.type, path.status, parsed.range, offset, REPORT_PAGE, now);
  const data = Object.fromEntries(
    groupByDay(items, ctx.workspace.timeZone).map((g) => [
      g.key,
      g.rows.map((r) => ({
        ticket_number: r.ticketNumber,
        title: r.title,
        channel: r.channel,
        label: r.labels.map((l) => l.id),
        closed: r.status,
        assignee: r.assignees.map((a) => a.username).join(","),
        department: r.department,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
        sla: r.slaMinutes,
        sla_status: r.sla,
        rating: r.rating,
        reason: r.reason,
      })),
    ]),
  );
  return json({ result: "success", data, count }, { headers: { "Cache-Control": "private, no-store" } });
}
