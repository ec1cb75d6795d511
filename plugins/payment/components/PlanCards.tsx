// Plan cards (spec sections 2 and 9): Starter, Basic, Pro with their price per user per month in
// the visitor's currency, the Sales and Service Tax as a percentage, and Enterprise (contact sales).
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { PLAN_KEYS, PLAN_LIMITS, PURCHASABLE, formatMoney, formatPercent, type PriceEntry, type PurchasablePlan } from "../money";

export function PlanCards({
  entry,
  action,
  enterpriseAction,
  current,
}: {
  entry: PriceEntry;
  action: (plan: PurchasablePlan) => ReactNode;
  enterpriseAction: ReactNode;
  current?: number;
}) {
  const { t } = useTranslation();
  return (
    <ul className="plan-cards">
      {[...PURCHASABLE, 4 as const].map((plan) => {
        const limits = PLAN_LIMITS[plan];
        const name = t(`payment.plans.${PLAN_KEYS[plan]}`);
        return (
          <li key={plan} className={plan === current ? "card plan-card current" : "card plan-card"} aria-label={name}>
            <h2>{name}</h2>
            {plan === 4 ? (
              <p className="plan-price">{t("payment.payAsYouGo")}</p>
            ) : (
              <>
                <p className="plan-price" data-testid={`price-${PLAN_KEYS[plan]}`}>
                  <strong>{formatMoney(entry.prices[plan], entry.currency, entry.exponent)}</strong> {t("payment.perUserMonth")}
                </p>
                <p className="plan-tax">
                  {t("payment.sst")}: {formatPercent(entry.taxBp)}
                </p>
              </>
            )}
            <ul className="plan-limits">
              {plan === 4 ? (
                <li>{t("payment.unlimited")}</li>
              ) : (
                <>
                  <li>{t("payment.limits.accounts", { n: limits.accounts! })}</li>
                  <li>{t("payment.limits.chats", { n: limits.chats! })}</li>
                  <li>{t("payment.limits.alerts", { n: limits.alerts! })}</li>
                  <li>{t("payment.limits.storage", { n: limits.storageGb! })}</li>
                  {limits.adds.length ? <li>{t("payment.limits.adds", { channels: limits.adds.join(", ") })}</li> : null}
                </>
              )}
            </ul>
            {plan === 4 ? enterpriseAction : action(plan)}
          </li>
        );
      })}
    </ul>
  );
}
