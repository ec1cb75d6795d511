// GET /calendar/feed/{token}.ics: a user's private iCalendar feed (feed.server.ts). The token is the
// only key: a wrong one is 404 like any unknown address. Private: no shared cache keeps it.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { guardPluginRoute, publicOrigin } from "~/context.server";
import { translatorFor } from "~/i18n.server";
import { feedFor } from "../feed.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const m = /^(.+)\.ics$/.exec(params.file ?? "");
  // links in the feed are absolute (BASE_URL, else the request's own origin)
  const origin = new URL(`${publicOrigin(request)}/`, request.url).origin;
  const body = m ? await feedFor(m[1], ctx.workspace.timeZone, translatorFor(ctx.language)("plugin_calendar.title"), origin) : undefined;
  if (body === undefined) throw new Response("Not Found", { status: 404, headers: { "Cache-Control": "private, no-store" } });
  return new Response(body, {
    headers: {
      "Content-Type": "text/calendar; charset=utf-8",
      "Content-Disposition": 'inline; filename="calendar.ics"',
      "Cache-Control": "private, no-cache",
    },
  });
}
