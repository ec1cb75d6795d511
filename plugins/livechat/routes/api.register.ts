// POST /api/livechat/register {_token, title, email, phone, name, des, token, ic}: the visitor's
// form as JSON (spec section 7). `des` is the message; title and ic are accepted and not needed.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import * as livechat from "../livechat.server";
import { apiErrors, clientIpOf, registerVisitor, visitorApiRequest } from "../visitor.server";
import { keyHeaders, visitorKey } from "../visitor-key.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { body, visit, csrfOk } = await visitorApiRequest(request);
  if (!visit) return json({ result: "invalid" }, { status: 404 });
  if (!csrfOk) return json({ result: "error", errors: { form: "livechat.expired" } }, { status: 403 });
  const key = await visitorKey(request);
  const outcome = await registerVisitor(
    visit,
    { name: body.name ?? "", phone: body.phone ?? "", email: body.email ?? "", message: body.des ?? "" },
    clientIpOf(context),
    key.hash,
  );
  if (!outcome.ok) return json({ result: "error", errors: apiErrors(outcome.result) }, { status: outcome.status });
  const after = await livechat.findVisit(visit.token);
  return json({ result: "success", ticket_id: after?.ticket?.id ?? null, state: after?.state }, { headers: keyHeaders(key) });
}

export const loader = () => new Response("Method Not Allowed", { status: 405 });
