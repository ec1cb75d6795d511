import { Form, useNavigation } from "@remix-run/react";
import { useHydrated } from "~/hooks";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { PRESENCE_STATUSES, STATUSES_NEEDING_REASON } from "~/presence";

/** Presence change: a reason is required for AWAY and BUSY; the current status cannot be re-chosen. */
export function StatusForm({ current, redirectTo, error }: { current: string; redirectTo: string; error?: string | null }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const [chosen, setChosen] = useState(current === "ONLINE" ? "AWAY" : "ONLINE");
  const [reason, setReason] = useState("");
  const busy = useNavigation().state === "submitting";
  const needsReason = (STATUSES_NEEDING_REASON as readonly string[]).includes(chosen);
  return (
    <Form method="post" action="/status" className="status-form">
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <label>
        {t("status.change")}
        <select name="status" value={chosen} onChange={(e) => setChosen(e.target.value)}>
          {PRESENCE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`status.${s}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t("status.reason")}
        <input name="reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} />
      </label>
      {error ? <p className="field-error">{t(error)}</p> : null}
      <button type="submit" className="button" disabled={hydrated && (busy || chosen === current || (needsReason && !reason.trim()))}>
        {t("status.apply")}
      </button>
    </Form>
  );
}
