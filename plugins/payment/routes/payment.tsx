// /payment: the full-page payment flow (works without JavaScript) and the page the provider's
// checkout returns to. GET ?plan=N (or nothing: renew, "Pay Now") shows Number of Users; POST
// creates the payment and redirects to the provider's checkout; GET ?ref=... shows the outcome.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { Amounts } from "../components/PaymentModal";
import { originOf, visitorCountry } from "../http.server";
import { PLAN_KEYS, exponentOf, formatMoney, formatPercent, isPurchasable, parseQuantity, pricingFor } from "../money";
import { planToBuy, refusal } from "../rules";
import { createPayment, getSubscription, paymentForUser, paymentInProgress } from "../payments.server";
import { pageTitle } from "~/meta";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user } = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const headers = { "Cache-Control": "private, no-store" };
  const ref = params.get("ref");
  if (ref !== null) {
    const payment = await paymentForUser(ref.slice(0, 100), user.id);
    if (!payment) throw new Response("Not Found", { status: 404 });
    const { ref: paymentRef, status, description, plan, quantity, currency, amountMinor, taxBp, taxMinor, totalMinor, unitMinor } = payment;
    return json(
      {
        view: "status" as const,
        payment: {
          ref: paymentRef,
          status,
          description,
          plan,
          quantity,
          q: { currency, exponent: exponentOf(currency), unitMinor, quantity, amountMinor, taxBp, taxMinor, totalMinor },
        },
      },
      { headers },
    );
  }
  const asked = params.get("plan");
  const plan = asked === null ? null : Number(asked);
  const sub = await getSubscription();
  const blocked = refusal(sub, plan, (await paymentInProgress()) !== null, Date.now());
  const buys = planToBuy(sub, plan);
  return json(
    { view: "form" as const, plan, buys: blocked ? null : buys, blocked, entry: pricingFor(visitorCountry(context)), key: crypto.randomUUID() },
    { headers },
  );
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  pageTitle(matches, "plugin_payment.title"),
  // without JavaScript, a payment the provider has not answered yet is looked at again shortly
  ...(data?.view === "status" && data.payment.status === "PENDING" ? [{ httpEquiv: "refresh", content: "2" }] : []),
];

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const values = formValues(form, ["quantity"]);
  // the model checks plan, quantity and key (its JSON twin shares it)
  const result = await createPayment({
    userId: user.id,
    plan: form.get("plan") ?? undefined,
    quantity: values.quantity,
    idempotencyKey: form.get("idempotency_key"),
    country: visitorCountry(context),
    origin: originOf(request),
  });
  if (result.ok) return redirect(result.checkoutUrl);
  if (result.error === "quantity") return refuse(formResult({ errors: { quantity: "payment.errors.empty" }, values }));
  // a provider's refusal is in its own words
  return refuse(formResult({ message: `payment.errors.${result.error}`, messageValues: { description: result.description }, values }));
}

export default function PaymentPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  if (data.view === "status") {
    const { payment } = data;
    const planName = t(`payment.plans.${PLAN_KEYS[payment.plan]}`);
    return (
      <section className="payment-page stack narrow-wide">
        <h1>{t("payment.resultTitle", { plan: planName })}</h1>
        {payment.status === "SUCCESS" ? (
          <p className="notice" role="status">
            {t("payment.success")}
          </p>
        ) : payment.status === "FAILED" ? (
          <div role="alert" className="stack">
            <p className="form-error">{t("payment.failed")}</p>
            {payment.description ? <p data-testid="payment-desc">{payment.description}</p> : null}
          </div>
        ) : (
          <p role="status">
            {t("payment.waiting")} <Link to={`/payment?ref=${encodeURIComponent(payment.ref)}`}>{t("payment.checkAgain")}</Link>
          </p>
        )}
        <p>
          {t("payment.usersFor", { n: payment.quantity, plan: planName })} · {t("payment.ref")}: <code>{payment.ref}</code>
        </p>
        <Amounts q={payment.q} />
        <p>
          <Link className="button" to="/plan">
            {t("payment.backToPlan")}
          </Link>
        </p>
      </section>
    );
  }
  return <PaymentForm />;
}

function PaymentForm() {
  const data = useLoaderData<typeof loader>();
  const refused = useFormResult();
  const navigation = useNavigation();
  const { t } = useTranslation();
  const [quantity, setQuantity] = useState(refused?.values.quantity ?? "");
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  if (data.view !== "form") return null;
  if (data.blocked || !data.buys || !isPurchasable(data.buys)) {
    return (
      <section className="payment-page stack">
        <h1>{t("payment.planTitle")}</h1>
        <p role="alert">{t(`payment.errors.${data.blocked ?? "plan"}`)}</p>
        <Link className="button" to="/plan">
          {t("payment.backToPlan")}
        </Link>
      </section>
    );
  }
  const planName = t(`payment.plans.${PLAN_KEYS[data.buys]}`);
  const invalid = parseQuantity(quantity) === null;
  const showEmpty = !!refused?.errors.quantity || (hydrated && invalid);
  return (
    <section className="payment-page stack narrow-wide">
      <h1>{t("payment.buyTitle", { plan: planName })}</h1>
      <p>
        {formatMoney(data.entry.prices[data.buys], data.entry.currency, data.entry.exponent)} {t("payment.perUserMonth")} · {t("payment.sst")}:{" "}
        {formatPercent(data.entry.taxBp)}
      </p>
      <Form method="post" className="stack narrow" noValidate>
        {data.plan !== null ? <input type="hidden" name="plan" value={data.plan} /> : null}
        <input type="hidden" name="idempotency_key" value={data.key} />
        <label>
          {t("payment.numberOfUsers")}
          <input
            name="quantity"
            inputMode="numeric"
            pattern="\d*"
            autoComplete="off"
            value={quantity}
            onChange={(e) => /^\d*$/.test(e.target.value) && setQuantity(e.target.value)}
            aria-invalid={showEmpty}
            aria-describedby="quantity-error"
          />
        </label>
        <p id="quantity-error" className="field-error" hidden={!showEmpty}>
          {t("payment.errors.empty")}
        </p>
        {refused?.message ? (
          <div role="alert" className="stack">
            <p className="form-error">{t("payment.failed")}</p>
            <p data-testid="payment-desc">{t(refused.message, refused.messageValues)}</p>
            {refused.message === "payment.errors.billing" ? (
              <Link className="button primary" to="/settings/billing">
                {t("payment.addNow")}
              </Link>
            ) : null}
          </div>
        ) : null}
        <button type="submit" className="button primary" disabled={(hydrated && invalid) || navigation.state === "submitting"}>
          {t("payment.continue")}
        </button>
      </Form>
    </section>
  );
}

export const ErrorBoundary = AdminOnlyBoundary;
