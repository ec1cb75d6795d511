// POST /hooks/sip/did (did; header X-Sip-Hook-Secret): Kamailio asks, for a call from the trunk,
// whom the DID rings, for how long, and whether voicemail answers after (plugins/calls/sip/kamailio.cfg,
// route INBOUND). Answers "<timeout s>;<voicemail 0|1>;<ext>,<ext>;<all|serial>" (serial: one at a time, in
// that order: the DID's ring strategy) or 404 for a number that is no DID.
import type { ActionFunctionArgs } from "@remix-run/node";
import { didHook } from "../dids.server";

export const loader = () => new Response("Method not allowed", { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  // one short field: anything longer is not Kamailio
  const text = (await request.text()).slice(0, 1024);
  const body = new URLSearchParams(text);
  const answer = await didHook(request.headers.get("X-Sip-Hook-Secret") ?? "", body.get("did") ?? "");
  return new Response(answer.body, { status: answer.status, headers: { "Content-Type": "text/plain", "Cache-Control": "no-store" } });
}
