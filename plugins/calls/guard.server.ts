// Who may change the call settings (spec section 6: call_config is for admins or call_settings),
// and who may open /call_verification ('scam call'; spec section 6: "admin and client_id 2 on call
// variants": an admin of client 2, on the call edition), exactly as its menu item's rule says.
import { guardPluginRoute, requireUser, viewerOf } from "~/context.server";
import { permissionsOf } from "~/accounts/users.server";
import { menuItemAllows } from "~/plugins/registry.server";

export async function requireCallSettings(request: Request) {
  const auth = await requireUser(request);
  if (auth.user.type !== "admin" && !permissionsOf(auth.user).includes("call_settings")) throw new Response("Access denied", { status: 403 });
  return auth;
}

/**
 * The gate of /call_verification (page, form and its JSON): logged-out visitors go to the login
 * form and trial accounts home (guardPluginRoute); anyone the menu item's rule leaves out gets
 * 403 'Access denied', as the other call pages answer.
 */
export async function guardCallVerification(request: Request, context?: object) {
  const { ctx } = await guardPluginRoute(request, context);
  const viewer = viewerOf(ctx);
  if (!viewer || !menuItemAllows("calls", "call_verification", viewer)) throw new Response("Access denied", { status: 403 });
  return { ctx, user: ctx.user! };
}
