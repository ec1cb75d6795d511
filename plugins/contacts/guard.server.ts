// Who may use contacts: whoever the plugin's own menu item lets in (spec section 6: everyone but
// agents with hide_contacts). Pages send anyone else home; the JSON twins answer 403.
import { json, redirect } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute, isTrial, viewerOf } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";

/** A page's signed-in user, once the plugin gate and the menu rule let them in. */
export async function requireContactsUser(request: Request, loadContext?: object) {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("contacts", "contacts", viewer)) throw redirect("/");
  return { ctx, user: ctx.user };
}

/** A JSON twin's user (its _token), under the same rules as the pages. */
export async function requireContactsApiUser(request: Request, loadContext?: object) {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const user = await requireApiUser(request);
  const viewer = viewerOf({ ...ctx, user });
  if (!viewer || isTrial(ctx) || !menuItemAllows("contacts", "contacts", viewer))
    throw json({ result: "failed", description: "Access denied" }, { status: 403, headers: { "Cache-Control": "private, no-store" } });
  return { ctx, user };
}

/** An admin's page: others go back to the contacts list. */
export async function requireContactsAdmin(request: Request, loadContext?: object) {
  const found = await requireContactsUser(request, loadContext);
  if (found.user.type !== "admin") throw redirect("/contacts");
  return found;
}
