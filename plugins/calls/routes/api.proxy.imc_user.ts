// GET /api/proxy/imc_user ?_token -> [{DIDnumber, accountDescription}]: the DIDs calls come in on.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { imcUsersApi } from "../call-api.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireApiUser(request);
  return imcUsersApi();
}
