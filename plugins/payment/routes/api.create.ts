// POST /api/payment/create {_token, plan (omitted when renewing), quantity, idempotency_key}
// -> {result: "success", payment_ref, checkout_url} or {result: "failed", description, billing?}.
// The amount is always recomputed here: price, tax or total in the request are ignored.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody } from "~/api.server";
import { apiUser, failed, originOf, visitorCountry } from "../http.server";
import { createPayment } from "../payments.server";

export const loader = () => failed("Method not allowed", 405);

export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return failed("Method not allowed", 405);
  const body = await readBody(request);
  const { user } = await apiUser(request, body);
  if (user.type !== "admin") return failed("Access denied", 403);
  const result = await createPayment({
    userId: user.id,
    plan: body.plan,
    quantity: body.quantity,
    idempotencyKey: body.idempotency_key,
    country: visitorCountry(context),
    origin: originOf(request),
  });
  if (!result.ok) return failed(result.description, 400, { billing: result.error === "billing" });
  return json({ result: "success", payment_ref: result.ref, checkout_url: result.checkoutUrl }, { headers: { "Cache-Control": "no-store" } });
}
