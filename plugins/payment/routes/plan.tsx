// /plan: the upgrade view inside the app (admins). Plan cards with purchase buttons, disabled when a
// plan is active, a payment is in progress, or on Enterprise (spec section 6). Without JavaScript
// each button is a link to the full-page flow at /payment; with it, the payment modal opens.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData, useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { PlanCards } from "../components/PlanCards";
import { PaymentModal } from "../components/PaymentModal";
import { SubscriptionSummary } from "../components/SubscriptionSummary";
import { visitorCountry } from "../http.server";
import { PLAN_KEYS, isPurchasable, pricingFor, type PurchasablePlan } from "../money";
import { buttons, refusal } from "../rules";
import { getSubscription, paymentInProgress } from "../payments.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [sub, pending] = await Promise.all([getSubscription(), paymentInProgress()]);
  const now = Date.now();
  return json(
    {
      sub,
      entry: pricingFor(visitorCountry(context)),
      enabled: buttons(sub, pending !== null, now),
      // "Pay Now": renew the current paid plan once it has run out
      renew: refusal(sub, null, pending !== null, now) === null ? (sub.plan as PurchasablePlan) : null,
      blocked: refusal(sub, 1, pending !== null, now),
      pendingCheckout: pending?.checkoutUrl ?? null,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export default function PlanPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // which purchase the modal is for: a plan, or "renew" (plan omitted)
  const [buying, setBuying] = useState<{ plan: PurchasablePlan | null; buys: PurchasablePlan } | null>(null);
  const open = (plan: PurchasablePlan | null, buys: PurchasablePlan) => (event: React.MouseEvent) => {
    if (!hydrated) return;
    event.preventDefault();
    setBuying({ plan, buys });
  };

  return (
    <section className="plan-page stack">
      <h1>{t("payment.planTitle")}</h1>
      <SubscriptionSummary sub={data.sub} />
      {data.blocked === "in_progress" ? (
        <p role="status">
          {t("payment.errors.in_progress")} {data.pendingCheckout ? <a href={data.pendingCheckout}>{t("payment.continuePayment")}</a> : null}
        </p>
      ) : data.blocked === "active" ? (
        <p role="status">{t("payment.errors.active")}</p>
      ) : data.blocked === "enterprise" ? (
        <p role="status">{t("payment.errors.enterprise")}</p>
      ) : null}
      {data.renew ? (
        <p>
          <Link className="button primary" to="/payment" onClick={open(null, data.renew)}>
            {t("expiry.payNow")}
          </Link>
        </p>
      ) : null}
      <PlanCards
        entry={data.entry}
        current={data.sub.trial ? undefined : data.sub.plan}
        action={(plan) =>
          data.enabled[plan] ? (
            <Link className="button primary" to={`/payment?plan=${plan}`} onClick={open(plan, plan)}>
              {t("payment.buy", { plan: t(`payment.plans.${PLAN_KEYS[plan]}`) })}
            </Link>
          ) : (
            <button type="button" className="button" disabled>
              {t("payment.buy", { plan: t(`payment.plans.${PLAN_KEYS[plan]}`) })}
            </button>
          )
        }
        enterpriseAction={<p className="plan-contact">{t("payment.contactSales")}</p>}
      />
      <p>
        <Link to="/settings/billing">{t("payment.billingTitle")}</Link>
      </p>
      {buying && isPurchasable(buying.buys) ? (
        <PaymentModal
          plan={buying.plan}
          planName={t(`payment.plans.${PLAN_KEYS[buying.buys]}`)}
          entry={{ ...data.entry, plan: buying.buys }}
          onClose={() => {
            setBuying(null);
            revalidator.revalidate();
          }}
          onSuccess={() => revalidator.revalidate()}
        />
      ) : null}
    </section>
  );
}

export const ErrorBoundary = AdminOnlyBoundary;
