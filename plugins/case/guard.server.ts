// Who may use cases: whoever the plugin's own menu item lets in (spec section 6: admins, and agents
// without hide_case), on the pages and on their JSON twins alike.
import { json, redirect } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute, isTrial, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";

export type CaseContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

/** The case pages: the plugin gate, then the menu rule; anyone else goes home. */
export async function requireCaseUser(request: Request, loadContext?: object): Promise<CaseContext> {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("case", "case", viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}

/** The JSON twins: the plugin gate, the session behind `_token`, then the same rule (403 in the twins' shape). */
export async function requireCaseApiUser(request: Request, loadContext?: object) {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const user = await requireApiUser(request);
  const viewer = viewerOf({ ...ctx, user });
  // a trial workspace has no cases (the pages send it home; the twins are public routes)
  if (!viewer || isTrial(ctx) || !menuItemAllows("case", "case", viewer)) throw json({ result: "failed", description: "Access denied" }, { status: 403 });
  return { ctx, user };
}
