// Who may use the calendar: whoever the plugin's own menu item lets in (spec section 6: admins,
// and agents without hide_calendar). Anyone else goes home.
import { redirect } from "@remix-run/node";
import { guardPluginRoute, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";

export type CalendarContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

export async function requireCalendarUser(request: Request, loadContext?: object): Promise<CalendarContext> {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("calendar", "calendar", viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}
