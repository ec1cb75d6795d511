// GET /api/payment/status?_token&ref -> {status, payment_desc}; a ref that is not the caller's: 404.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiUser, failed } from "../http.server";
import { paymentForUser } from "../payments.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await apiUser(request);
  const ref = new URL(request.url).searchParams.get("ref") ?? "";
  const payment = await paymentForUser(ref.slice(0, 100), user.id);
  if (!payment) return failed("Not Found", 404);
  return json({ status: payment.status, payment_desc: payment.description }, { headers: { "Cache-Control": "no-store" } });
}
