// GET /report/export ?token&startDate&endDate (YYYY-MM-DD)&step[&dashboard][&widget]: CSV.
// Without widget: every conversation of the range, streamed in keyset batches (flat memory at a
// million rows). With widget: the rows behind that chart.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { reportApiAuth, DASHBOARDS, EXPORT_HEADER, exportRows, isInterval, parseRange, type DashboardId, csvLine, dashboardData } from "../index.server";
import { translatorFor } from "~/i18n.server";
import { audit } from "~/accounts/audit.server";

const isDashboard = (v: unknown): v is DashboardId => typeof v === "string" && v in DASHBOARDS;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await reportApiAuth(request, context);
  const params = new URL(request.url).searchParams;
  const now = Date.now();
  const timeZone = ctx.workspace.timeZone;
  const parsed = parseRange(params.get("startDate"), params.get("endDate"), now, timeZone);
  if (!parsed.ok)
    return new Response(translatorFor(ctx.language)(`reports.range.errors.${parsed.error}`), {
      status: 400,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  const step = isInterval(params.get("step")) ? params.get("step")! : "day";
  if (!isInterval(step)) throw new Response("Bad Request", { status: 400 });
  const dashboard = isDashboard(params.get("dashboard")) ? (params.get("dashboard") as DashboardId) : "omnichannel";
  const { range } = parsed;
  const name = `${dashboard}-${range.start}-${range.end}`;
  const headers = (file: string) => ({
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${file}.csv"`,
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });

  const widget = params.get("widget");
  // who took which data out: recorded before the first row leaves
  await audit({
    action: "export.csv",
    actor: ctx.user,
    ip: context.clientIp,
    target: { type: "report", id: dashboard },
    detail: { dashboard, startDate: range.start, endDate: range.end, step, ...(widget ? { widget } : {}) },
  });
  if (widget) {
    const [found] = await dashboardData({
      dashboard,
      enabledPlugins: ctx.edition.enabled,
      range,
      interval: step,
      now,
      timeZone,
      language: ctx.language,
      only: widget,
    });
    if (!found) throw new Response("Not Found", { status: 404 });
    const { columns, rows } = found.data;
    const body = csvLine(columns.map((c) => c.label)) + rows.map((r) => csvLine(columns.map((c) => r[c.key]))).join("");
    return new Response(body, { headers: headers(`${name}-${widget}`) });
  }

  const rows = exportRows(ctx.user, range, DASHBOARDS[dashboard].kinds, step, now);
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLine(EXPORT_HEADER)));
    },
    // pulled as the client reads: one batch of lines at a time, never the whole export; the
    // server's roomToWrite (server.ts) holds the next batch while the response is backed up
    async pull(controller) {
      await (context as { roomToWrite?: () => Promise<void> }).roomToWrite?.();
      // a client that went away stops the reading (Remix's adapter never cancels the stream)
      if (request.signal.aborted) {
        await rows.return(undefined);
        controller.close();
        return;
      }
      let chunk = "";
      for (let i = 0; i < 500; i++) {
        const next = await rows.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += csvLine(next.value);
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  // no-transform: the compression middleware would queue the body in zlib, out of roomToWrite's sight
  return new Response(stream, { headers: { ...headers(name), "Cache-Control": "private, no-store, no-transform" } });
}
