import { Form, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { AWAY_RED_MINUTES, statusLabel } from "~/presence";

/** While a second status is set: the status and minutes elapsed, orange until 58 then red. */
export function StatusBanner({ status, since, now }: { status: string; since: number; now: number }) {
  const { t } = useTranslation();
  const location = useLocation();
  // the server's "now" first (same markup on both sides), then the browser's clock every 60 s
  const [clock, setClock] = useState(now);
  useEffect(() => {
    setClock(Date.now());
    const timer = setInterval(() => setClock(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  const minutes = Math.max(0, Math.floor((clock - since) / 60_000));
  return (
    <div className={minutes >= AWAY_RED_MINUTES ? "banner banner-red" : "banner banner-orange"} role="status">
      <span>{t("status.banner", { status: statusLabel(t, status), count: minutes })}</span>
      <Form method="post" action="/status">
        <input type="hidden" name="status" value="ONLINE" />
        <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
        <button type="submit" className="button">
          {t("status.goOnline")}
        </button>
      </Form>
    </div>
  );
}
