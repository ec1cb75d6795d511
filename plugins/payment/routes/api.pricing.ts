// GET /api/pricing?country -> [{plan, currency, price, tax}] per user per month; tax is a fraction.
// Without ?country the visitor's country comes from their IP (offline GeoIP).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requirePaymentPlugin, visitorCountry } from "../http.server";
import { PURCHASABLE, PLAN_KEYS, pricingFor, toDecimal } from "../money";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePaymentPlugin(request);
  const asked = new URL(request.url).searchParams.get("country") ?? "";
  const entry = pricingFor(/^[A-Za-z]{2}$/.test(asked) ? asked : visitorCountry(context));
  return json(
    PURCHASABLE.map((plan) => ({
      plan,
      name: PLAN_KEYS[plan],
      currency: entry.currency,
      price: Number(toDecimal(entry.prices[plan], entry.exponent)),
      tax: entry.taxBp / 10000,
    })),
  );
}
