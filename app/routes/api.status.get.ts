// GET /status/get ?_token -> online users {username, status, second_status, ts}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { onlineAgents } from "~/accounts/users.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiUser(request);
  return json({ result: "success", data: await onlineAgents() });
}
