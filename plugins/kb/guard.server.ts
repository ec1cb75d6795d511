// Who may use the knowledge base's own pages: whoever its menu item lets in (spec section 6:
// admins, and agents without hide_case); writing is for admins only (checked again by the model).
import { json, redirect } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute, isTrial, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";

export type KbContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

export async function requireKbUser(request: Request, loadContext?: object): Promise<KbContext> {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("kb", "kb", viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}

export async function requireKbAdmin(request: Request, loadContext?: object): Promise<KbContext> {
  const ctx = await requireKbUser(request, loadContext);
  if (ctx.user.type !== "admin") throw new Response("Access denied", { status: 403 });
  return ctx;
}

/** The JSON twins: the session behind `_token` (or the cookie), then the same rule. */
export async function requireKbApiUser(request: Request, loadContext?: object) {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const user = await requireApiUser(request);
  const viewer = viewerOf({ ...ctx, user });
  if (!viewer || isTrial(ctx) || !menuItemAllows("kb", "kb", viewer)) throw json({ result: "failed", description: "Access denied" }, { status: 403 });
  return { ctx, user };
}

/** An article's id from the path ("/kb/{id}/..."), else 404. */
export function articleIdOf(raw: string | undefined) {
  const id = Number(raw);
  if (!/^\d{1,15}$/.test(raw ?? "") || !Number.isSafeInteger(id) || id <= 0) throw new Response("Not Found", { status: 404 });
  return id;
}
