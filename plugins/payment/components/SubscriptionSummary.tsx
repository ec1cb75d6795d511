// The workspace's plan, seats and expiry, as the /plan and billing pages show them.
import { useTranslation } from "react-i18next";
import { formatDate } from "~/time";
import { PLAN_KEYS } from "../money";

export interface SummaryData {
  plan: number;
  seats: number;
  trial: boolean;
  active: boolean;
  expired: boolean;
  expiresAt: number | null;
  timeZone: string;
}

export function SubscriptionSummary({ sub }: { sub: SummaryData }) {
  const { t } = useTranslation();
  const name = sub.trial ? t("payment.plans.trial") : PLAN_KEYS[sub.plan] ? t(`payment.plans.${PLAN_KEYS[sub.plan]}`) : t("payment.noPlan");
  return (
    <dl className="subscription" data-testid="subscription">
      <dt>{t("payment.currentPlan")}</dt>
      <dd data-testid="current-plan">{name}</dd>
      {!sub.trial && sub.seats > 0 ? (
        <>
          <dt>{t("payment.seats")}</dt>
          <dd data-testid="seats">{sub.seats}</dd>
        </>
      ) : null}
      <dt>{t("payment.status")}</dt>
      <dd data-testid="plan-status">
        {sub.expired ? t("payment.expired") : sub.active ? t("payment.active") : sub.trial ? t("payment.plans.trial") : t("payment.noPlan")}
      </dd>
      {sub.expiresAt ? (
        <>
          <dt>{sub.expired ? t("payment.endedOn") : t("payment.validUntil")}</dt>
          <dd>{formatDate(sub.expiresAt, sub.timeZone)}</dd>
        </>
      ) : null}
    </dl>
  );
}
