// POST /api/livechat/rate {_token, token, rating, reason} (spec section 7).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import * as livechat from "~/models/livechat.server";
import { rateVisit } from "../visitor.server";
import { readBody } from "~/api.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const raw = await readBody(request);
  // strings, or numbers sent as JSON
  const body = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === "string" || typeof v === "number" ? String(v) : undefined]));
  const visit = await livechat.findVisit(body.token);
  if (!visit) return json({ result: "invalid" }, { status: 404 });
  if (!livechat.validVisitCsrf(visit.token, body._token)) return json({ result: "error", errors: { form: "livechat.expired" } }, { status: 403 });
  const outcome = await rateVisit(visit, { rating: body.rating ?? "", reason: body.reason ?? "" });
  if (!outcome.ok) return json({ result: "error", errors: outcome.errors }, { status: outcome.status });
  return json({ result: "success" });
}

export const loader = () => new Response("Method Not Allowed", { status: 405 });
