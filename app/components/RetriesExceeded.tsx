// What a screen shows when its lazy load failed on every try (app/lazy-load.ts): the spec's alert,
// and a plain link that loads the same address again.
import { useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";

/** `sync`: the failed load was the open screen's refresh (spec section 8: 'Sync error. ...'). */
export function RetriesExceeded({ sync = false }: { sync?: boolean }) {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <section className="access-denied" role="alert" data-load="failed">
      <p>{t("shellParts.maxRetries")}</p>
      {sync ? <p>{t("shellParts.syncError")}</p> : null}
      <a className="button" href={location.pathname + location.search}>
        {t("shellParts.tryAgain")}
      </a>
    </section>
  );
}
