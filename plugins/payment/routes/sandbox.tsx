// /payment/sandbox/:ref: the built-in sandbox provider's hosted checkout. A tester chooses success
// or failure (with the description the payer will see). Only while PAYMENT_PROVIDER is the sandbox;
// the ref (random, known to the payer) is the key, as on a real provider's page, plus CSRF.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { csrfToken, validCsrf } from "~/csrf.server";
import { Amounts } from "../components/PaymentModal";
import { exponentOf, PLAN_KEYS } from "../money";
import { paymentByRef, settlePayment } from "../payments.server";
import { configuredProvider } from "../providers.server";

async function sandboxPayment(ref: string | undefined) {
  if (configuredProvider().id !== "sandbox") throw new Response("Not Found", { status: 404 });
  const payment = ref ? await paymentByRef(ref.slice(0, 100)) : null;
  if (!payment || payment.provider !== "sandbox") throw new Response("Not Found", { status: 404 });
  return payment;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const p = await sandboxPayment(params.ref);
  const { token, setCookie } = await csrfToken(request);
  return json(
    {
      csrf: token,
      payment: {
        ref: p.ref,
        status: p.status,
        plan: p.plan,
        quantity: p.quantity,
        q: {
          currency: p.currency,
          exponent: exponentOf(p.currency),
          unitMinor: p.unitMinor,
          quantity: p.quantity,
          amountMinor: p.amountMinor,
          taxBp: p.taxBp,
          taxMinor: p.taxMinor,
          totalMinor: p.totalMinor,
        },
      },
    },
    { headers: { "Cache-Control": "no-store", ...(setCookie ? { "Set-Cookie": setCookie } : {}) } },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  const p = await sandboxPayment(params.ref);
  const form = await request.formData();
  if (!(await validCsrf(request, form.get("_csrf")))) throw new Response("Forbidden", { status: 403 });
  const outcome = form.get("outcome");
  if (outcome === "success") await settlePayment("sandbox", { providerRef: p.ref, status: "SUCCESS", description: "" });
  else if (outcome === "failure") {
    const description =
      String(form.get("description") ?? "")
        .trim()
        .slice(0, 300) || "The payment was declined.";
    await settlePayment("sandbox", { providerRef: p.ref, status: "FAILED", description });
  } else return json({ error: true }, { status: 400 });
  // back to the shop, as a provider does after checkout
  return redirect(`/payment?ref=${encodeURIComponent(p.ref)}`);
}

export default function SandboxCheckout() {
  const { csrf, payment } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="sandbox-page stack">
      <title>{t("payment.sandbox.title")}</title>
      <h1>{t("payment.sandbox.title")}</h1>
      <p>{t("payment.sandbox.intro")}</p>
      <p>
        {t("payment.usersFor", { n: payment.quantity, plan: t(`payment.plans.${PLAN_KEYS[payment.plan]}`) })} · <code>{payment.ref}</code>
      </p>
      <Amounts q={payment.q} />
      {payment.status !== "PENDING" ? (
        <p role="status">{t("payment.sandbox.settled", { status: payment.status })}</p>
      ) : (
        <>
          <Form method="post" className="card stack">
            <input type="hidden" name="_csrf" value={csrf} />
            <button type="submit" name="outcome" value="success" className="button primary">
              {t("payment.sandbox.pay")}
            </button>
          </Form>
          <Form method="post" className="card stack">
            <input type="hidden" name="_csrf" value={csrf} />
            <label>
              {t("payment.sandbox.description")}
              <input name="description" defaultValue="Card declined by the issuing bank." maxLength={300} />
            </label>
            <button type="submit" name="outcome" value="failure" className="button">
              {t("payment.sandbox.fail")}
            </button>
          </Form>
        </>
      )}
    </main>
  );
}
