// DELETE /api/user/signout ?_token&current -> {result}. current=1 (the default) ends this session;
// current=0 ends every session of the user ("sign out everywhere"). Sockets disconnect at once.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody, str } from "~/api.server";
import { deleteSession, findSession, revokeOtherSessions } from "~/accounts/sessions.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "DELETE" && request.method !== "POST") return json({ result: "failed", description: "Method not allowed" }, { status: 405 });
  const body = await readBody(request);
  const params = new URL(request.url).searchParams;
  const token = params.get("_token") || str(body._token);
  const auth = await findSession(token);
  if (!token || !auth) return json({ result: "failed", description: "Not signed in." }, { status: 403 });
  const current = params.get("current") ?? str(body.current);
  if (current === "0") await revokeOtherSessions(auth.user, auth.session.idHash, context.clientIp);
  await deleteSession(token);
  return json({ result: "success" });
}
