// GET /api/ticket/data3/{id}/{count} ?_token&messageId -> {result, more, data, call}: a CALL
// ticket's messages as /ticket/data answers them, with its call (403 'Access denied' as the pages).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { callDataApi } from "../call-api.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const user = await requireApiUser(request);
  const before = Number(new URL(request.url).searchParams.get("messageId")) || undefined;
  return callDataApi(user, params.id, before);
}
