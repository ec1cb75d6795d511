// DELETE /api/user/signout ?_token -> {result}; ends that session and disconnects its sockets.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody, str } from "~/api.server";
import { deleteSession, findSession } from "~/accounts/sessions.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "DELETE" && request.method !== "POST") return json({ result: "failed", description: "Method not allowed" }, { status: 405 });
  const body = await readBody(request);
  const token = new URL(request.url).searchParams.get("_token") || str(body._token);
  if (!token || !(await findSession(token))) return json({ result: "failed", description: "Not signed in." }, { status: 403 });
  await deleteSession(token);
  return json({ result: "success" });
}
