import { Form, useNavigation } from "@remix-run/react";
import { useHydrated } from "~/hooks";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { PRESENCE_STATUSES, needsReason as asksReason, type CustomStatus } from "~/presence";

/**
 * Presence change: a reason is required for AWAY, BUSY and the custom statuses marked so; the
 * current status cannot be re-chosen. The admins' custom statuses come with the page; with
 * JavaScript the list is fetched again when the menu opens (spec section 8: a failed fetch alerts,
 * then reloads the page).
 */
export function StatusForm({
  current,
  redirectTo,
  error,
  custom = [],
}: {
  current: string;
  redirectTo: string;
  error?: string | null;
  custom?: CustomStatus[];
}) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const [chosen, setChosen] = useState(current === "ONLINE" ? "AWAY" : "ONLINE");
  const [reason, setReason] = useState("");
  const [list, setList] = useState(custom);
  useEffect(() => setList(custom), [custom]);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const menu = form.current?.closest("details");
    if (!menu) return;
    const refresh = () => {
      if (!menu.open) return;
      fetch("/api/customstatus/get", { headers: { Accept: "application/json" } })
        .then(async (res) => {
          const body = res.ok ? await res.json() : null;
          if (body?.result !== "success" || !Array.isArray(body.data)) throw new Error(`custom statuses: ${res.status}`);
          setList(body.data.map((s: { name: string; needs_reason: boolean }) => ({ name: s.name, needsReason: !!s.needs_reason })));
        })
        .catch(() => {
          window.alert(t("account.customStatusFetchFailed"));
          window.location.reload();
        });
    };
    menu.addEventListener("toggle", refresh);
    return () => menu.removeEventListener("toggle", refresh);
  }, [t]);
  const busy = useNavigation().state === "submitting";
  const needsReason = asksReason(chosen, list);
  return (
    <Form method="post" action="/status" className="status-form" ref={form}>
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <label>
        {t("status.change")}
        <select name="status" value={chosen} onChange={(e) => setChosen(e.target.value)}>
          {PRESENCE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`status.${s}`)}
            </option>
          ))}
          {list.map((s) => (
            <option key={`custom-${s.name}`} value={s.name}>
              {s.name}
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
