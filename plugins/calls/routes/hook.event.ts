// POST /hooks/sip/event (event, call_id, from, to, code, by; header X-Sip-Hook-Secret): Kamailio
// reports a call's events (sip/kamailio.cfg, route EVENT). The event is stored before the 200.
import type { ActionFunctionArgs } from "@remix-run/node";
import { sipEventHook } from "../calls.server";

export const loader = () => new Response("Method not allowed", { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  // a few short fields: anything longer is not Kamailio
  const text = (await request.text()).slice(0, 2048);
  const answer = await sipEventHook(request.headers.get("X-Sip-Hook-Secret") ?? "", new URLSearchParams(text));
  return new Response(answer.body, { status: answer.status, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
}
