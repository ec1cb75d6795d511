// GET /api/ticket/load/{token}/{status}/call|call2/{offset} (also without /api) -> {result, status, count, data}:
// the calls list's JSON twin with the call filters (call-api.server.ts). These paths are more
// specific than the ticket list's /{type}/ route, so the calls plugin answers its own types.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { loadCallsApi } from "../call-api.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = await requireApiUser(request, {}, params.token);
  return loadCallsApi(user, new URL(request.url), params, ctx.workspace.timeZone);
}
