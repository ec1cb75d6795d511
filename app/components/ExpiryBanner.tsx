import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";

export function ExpiryBanner({ trial }: { trial: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="banner banner-red" role="alert">
      {trial ? (
        <>
          <span>{t("expiry.trial")}</span>
          <Link className="button" to="/plan">
            {t("expiry.upgrade")}
          </Link>
        </>
      ) : (
        <>
          <span>{t("expiry.subscription")}</span>
          <Link className="button" to="/plan">
            {t("expiry.switchPlan")}
          </Link>
          <Link className="button" to="/payment">
            {t("expiry.payNow")}
          </Link>
        </>
      )}
    </div>
  );
}
