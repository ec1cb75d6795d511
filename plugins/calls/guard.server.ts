// Who may change the call settings (spec section 6: call_config is for admins or call_settings).
import { requireUser } from "~/context.server";
import { permissionsOf } from "~/accounts/users.server";

export async function requireCallSettings(request: Request) {
  const auth = await requireUser(request);
  if (auth.user.type !== "admin" && !permissionsOf(auth.user).includes("call_settings")) throw new Response("Access denied", { status: 403 });
  return auth;
}
