// Who may use the board (spec section 6: admins without hide_kanban): the plugin's own menu rule,
// checked on the server for the page, its moves and the columns page alike; anyone else goes home.
import { redirect } from "@remix-run/node";
import { guardPluginRoute, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";

export type KanbanContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

export async function requireKanbanUser(request: Request, loadContext?: object): Promise<KanbanContext> {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("kanban", "kanban", viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}
