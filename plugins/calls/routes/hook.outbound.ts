// POST /hooks/sip/outbound (number; header X-Sip-Hook-Secret): Kamailio asks, for an agent's INVITE
// to a number no agent is registered on, where the call goes (plugins/calls/sip/kamailio.cfg, route
// OUTBOUND). Answers the Request-URI towards the outbound trunk (the call prefix, then the number's
// digits), 404 for what is no outside number, or 409 when no trunk is set up on /call_config.
import type { ActionFunctionArgs } from "@remix-run/node";
import { outboundHook } from "../trunk.server";

export const loader = () => new Response("Method not allowed", { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  // one short field: anything longer is not Kamailio
  const text = (await request.text()).slice(0, 1024);
  const body = new URLSearchParams(text);
  const answer = await outboundHook(request.headers.get("X-Sip-Hook-Secret") ?? "", body.get("number") ?? "");
  return new Response(answer.body, { status: answer.status, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
}
