// GET /api/sip/refresh ?_token -> {result, sipIp, sipPort, turn} (spec section 7): where the
// softphone finds the call server now (after the server moved or TURN credentials changed).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { sipAuthSettings } from "../sip.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const user = await requireApiUser(request);
  const { sipIp, sipPort, turn } = await sipAuthSettings(user);
  return json({ result: "success", sipIp, sipPort, turn }, { headers: { "Cache-Control": "private, no-store" } });
}
