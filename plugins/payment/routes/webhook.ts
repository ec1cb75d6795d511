// POST /api/payment/webhook/:provider: the provider's server tells us a payment's outcome.
// Cross-origin by nature (server.ts exempts this path from the same-origin check): the signature
// is the only credential. A bad one is refused, logged, and changes nothing.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody } from "~/api.server";
import { failed, requirePaymentPlugin } from "../http.server";
import { providerById } from "../providers.server";
import { settlePayment } from "../payments.server";
import { log } from "~/ops/log.server";
import { metrics } from "~/ops/metrics.server";

export const loader = () => failed("Method not allowed", 405);

export async function action({ request, params }: ActionFunctionArgs) {
  if (request.method !== "POST") return failed("Method not allowed", 405);
  await requirePaymentPlugin(request);
  const provider = providerById(params.provider ?? "");
  if (!provider) return failed("Not Found", 404);
  const body = await readBody(request);
  const fields = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === "string" ? v : String(v)]));
  const event = provider.verifyWebhook(fields);
  if (!event) {
    metrics.webhookRequests.inc({ plugin: "payment", provider: provider.id, outcome: "refused" });
    log.warn({ provider: provider.id, paymentId: String(fields.id ?? "").slice(0, 80) }, "payment webhook: signature refused");
    return failed("Invalid signature", 400);
  }
  metrics.webhookRequests.inc({ plugin: "payment", provider: provider.id, outcome: "accepted" });
  const outcome = await settlePayment(provider.id, event);
  if (outcome.reason === "unknown") return failed("Unknown payment", 404);
  return json({ result: "success" });
}
