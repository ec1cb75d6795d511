// POST /hooks/sip/auth (user, realm; header X-Sip-Hook-Secret): Kamailio asks for the HA1 of the
// SIP account a REGISTER or INVITE authenticates as (plugins/calls/sip/kamailio.cfg, route AUTH).
import type { ActionFunctionArgs } from "@remix-run/node";
import { sipAuthHook } from "../sip.server";

export const loader = () => new Response("Method not allowed", { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  // a user name and a realm: anything longer is not Kamailio
  const text = (await request.text()).slice(0, 1024);
  const body = new URLSearchParams(text);
  const answer = await sipAuthHook(request.headers.get("X-Sip-Hook-Secret") ?? "", body.get("user") ?? "", body.get("realm") ?? "");
  return new Response(answer.body, { status: answer.status, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
}
