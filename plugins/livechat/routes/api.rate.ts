// POST /api/livechat/rate {_token, token, rating, reason} (spec section 7).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import { apiErrors, rateVisit, visitorApiRequest } from "../visitor.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { body, visit, csrfOk } = await visitorApiRequest(request);
  if (!visit) return json({ result: "invalid" }, { status: 404 });
  if (!csrfOk) return json({ result: "error", errors: { form: "livechat.expired" } }, { status: 403 });
  const outcome = await rateVisit(visit, { rating: body.rating ?? "", reason: body.reason ?? "" });
  if (!outcome.ok) return json({ result: "error", errors: apiErrors(outcome.result) }, { status: outcome.status });
  return json({ result: "success" });
}

export const loader = () => new Response("Method Not Allowed", { status: 405 });
