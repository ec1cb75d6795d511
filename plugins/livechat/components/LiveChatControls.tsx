// The agent's live chat controls above the conversation: accept, end, convert, merge, remove,
// and the visitor's rating. Plain forms.
import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { VisitState } from "../livechat.server";

interface Props {
  data: {
    state: VisitState | null;
    rating: number | null;
    ratingReason: string;
    sessionId: number | null;
    sessions: { id: number; name: string }[];
    canRemove: boolean;
  };
}

function Button({ intent, label, danger }: { intent: string; label: string; danger?: boolean }) {
  return (
    <Form method="post" className="inline">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className={danger ? "button danger" : "button"}>
        {label}
      </button>
    </Form>
  );
}

export function LiveChatControls({ data }: Props) {
  const { t } = useTranslation();
  const { state } = data;
  return (
    <section className="livechat-controls" aria-label={t("livechat.desk.controls")}>
      <p>
        <span className={`badge state-${state ?? "none"}`} data-state={state ?? ""}>
          {t(`livechat.state.${state ?? "unknown"}`)}
        </span>{" "}
        {data.rating !== null ? (
          <span className="rating" data-rating={data.rating}>
            {t("livechat.desk.rating", { rating: data.rating })}
            {data.ratingReason ? ` · ${t("livechat.desk.reason", { reason: data.ratingReason })}` : ""}
          </span>
        ) : state === "ended" ? (
          <span className="muted">{t("livechat.desk.notRated")}</span>
        ) : null}
      </p>
      <div className="row">
        {state === "queued" ? <Button intent="accept" label={t("livechat.desk.accept")} /> : null}
        {state === "queued" || state === "active" ? <Button intent="end" label={t("livechat.desk.end")} /> : null}
        {state === "queued" || state === "active" || state === "ended" ? <Button intent="convert" label={t("livechat.desk.convert")} /> : null}
        {data.canRemove ? <Button intent="remove" label={t("livechat.desk.remove")} danger /> : null}
      </div>
      {data.sessionId !== null && data.sessions.length ? (
        <Form method="post" className="row">
          <input type="hidden" name="intent" value="merge" />
          <label>
            {t("livechat.desk.mergeInto")}{" "}
            <select name="into" required defaultValue="">
              <option value="" disabled>
                {t("livechat.desk.chooseSession")}
              </option>
              {data.sessions.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button">
            {t("livechat.desk.merge")}
          </button>
        </Form>
      ) : null}
    </section>
  );
}
