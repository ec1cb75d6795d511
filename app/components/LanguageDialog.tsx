import { Form, useFetcher, useLocation } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { LANGUAGES, LANGUAGE_NAMES, type Language } from "~/i18n";
import { useDialogFocus } from "./dialog-focus";

/**
 * The language modal (BETA): a plain form, so choosing works without JavaScript (the server
 * renders an open <dialog> over the page). With JavaScript it becomes a modal <dialog>: focus
 * moves to the current language, Tab stays inside, and Escape closes it, keeping the language the
 * page is in (saved like a choice, so the dialog does not come back on the next page).
 */
export function LanguageDialog({ current, inline = false }: { current: Language; inline?: boolean }) {
  const { t } = useTranslation();
  const location = useLocation();
  const dialog = useRef<HTMLDialogElement>(null);
  const keep = useFetcher();
  const redirectTo = location.pathname + location.search;
  // rendered open (for pages without JavaScript), it becomes a modal
  useDialogFocus(dialog, () => {
    dialog.current?.close();
    keep.submit({ intent: "language", language: current, redirectTo }, { method: "post", action: "/preferences" });
  });
  const body = (
    <Form method="post" action="/preferences" className="language-form">
      <input type="hidden" name="intent" value="language" />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <div className="language-options">
        {LANGUAGES.map((lng) => (
          <button
            key={lng}
            type="submit"
            name="language"
            value={lng}
            lang={lng}
            className={lng === current ? "button primary" : "button"}
            aria-current={lng === current || undefined}
            data-autofocus={lng === current || undefined}
          >
            {LANGUAGE_NAMES[lng]}
          </button>
        ))}
      </div>
    </Form>
  );
  if (inline) return body;
  return (
    <dialog ref={dialog} open className="modal language-dialog" aria-labelledby="language-dialog-title">
      <h2 id="language-dialog-title">
        {t("language.title")} <span className="badge">BETA</span>
      </h2>
      <p>{t("language.prompt")}</p>
      {body}
    </dialog>
  );
}
