// GET /api/extension/get ?_token -> {result, data: [{extension_id, sip_number, username, name}]}:
// the agents' extensions (active SIP accounts), for dialling and transferring.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { extensionsApi } from "../call-api.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireApiUser(request);
  return extensionsApi();
}
