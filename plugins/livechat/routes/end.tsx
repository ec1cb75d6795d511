// /end/livechat: the chat is over; Close shuts the window (or the embedding page's frame).
import { useTranslation } from "react-i18next";
import { useHydrated } from "~/hooks";
import { VisitorFrame } from "../components/VisitorChat";

export default function EndLiveChat() {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const close = () => {
    window.parent?.postMessage({ type: "omnidesk:livechat:close" }, "*");
    window.close();
  };
  return (
    <VisitorFrame>
      <h1>{t("livechat.endedTitle")}</h1>
      <p>{t("livechat.closeHint")}</p>
      {hydrated ? (
        <button type="button" className="button" onClick={close}>
          {t("livechat.close")}
        </button>
      ) : null}
    </VisitorFrame>
  );
}
