// Who may see campaigns: whoever the plugin's menu item lets in (spec section 6: everyone); only
// admins make, start, pause and resume them and add opt-outs. The JSON twin answers 403 in its shape.
import { json, redirect } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";

export type CampaignContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

/** The campaign pages: the plugin gate, then the menu rule; anyone else goes home. */
export async function requireCampaignUser(request: Request, loadContext?: object): Promise<CampaignContext> {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("campaign", "campaign", viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}

/** A write: admins only (an agent's post is refused with 403, whatever the page offered). */
export async function requireCampaignAdmin(request: Request, loadContext?: object): Promise<CampaignContext> {
  const ctx = await requireCampaignUser(request, loadContext);
  if (ctx.user.type !== "admin") throw new Response("Forbidden", { status: 403 });
  return ctx;
}

/** The JSON twin: the plugin gate, the session behind `_token`, then the same rule. */
export async function requireCampaignApiUser(request: Request, loadContext?: object) {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const user = await requireApiUser(request);
  const viewer = viewerOf({ ...ctx, user });
  if (!viewer || !menuItemAllows("campaign", "campaign", viewer))
    throw json({ result: "failed", description: "Access denied" }, { status: 403, headers: { "Cache-Control": "private, no-store" } });
  return { ctx, user };
}
