// "You've got removed!" (spec sections 2 and 4): shown over the open conversation when its
// participants no longer include this user; its one way out is the link home.
import { useEffect, useRef } from "react";
import { Link, useLocation, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { snapshot, useSnapshot } from "valtio";
import { removals } from "~/realtime-store";
import { useDialogFocus } from "./dialog-focus";

export function RemovedModal() {
  const { openRemoved } = typeof document === "undefined" ? snapshot(removals) : useSnapshot(removals);
  const { pathname } = useLocation();
  // only over that conversation: once the user is elsewhere (they removed themselves and went home) it is done
  const here = openRemoved !== null && pathname.endsWith(`/${openRemoved}`);
  useEffect(() => {
    if (openRemoved !== null && !here) removals.openRemoved = null;
  }, [openRemoved, here]);
  return here ? <RemovedDialog /> : null;
}

function RemovedDialog() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const ref = useRef<HTMLElement>(null);
  const home = () => {
    removals.openRemoved = null;
    navigate("/");
  };
  useDialogFocus(ref, home);
  return (
    <div className="modal-backdrop">
      <section ref={ref} className="modal" role="alertdialog" aria-modal="true" aria-labelledby="removed-title" aria-describedby="removed-body">
        <h2 id="removed-title">{t("shellParts.removedTitle")}</h2>
        <p id="removed-body">{t("shellParts.removedBody")}</p>
        <Link to="/" className="button primary" onClick={() => (removals.openRemoved = null)}>
          {t("shellParts.close")}
        </Link>
      </section>
    </div>
  );
}
