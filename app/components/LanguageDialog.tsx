import { Form, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LANGUAGES, LANGUAGE_NAMES, type Language } from "~/i18n";

/** The language modal (BETA): a plain form, so choosing works without JavaScript. */
export function LanguageDialog({ current, inline = false }: { current: Language; inline?: boolean }) {
  const { t } = useTranslation();
  const location = useLocation();
  const body = (
    <Form method="post" action="/preferences" className="language-form">
      <input type="hidden" name="intent" value="language" />
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <div className="language-options">
        {LANGUAGES.map((lng) => (
          <button key={lng} type="submit" name="language" value={lng} lang={lng} className={lng === current ? "button primary" : "button"}>
            {LANGUAGE_NAMES[lng]}
          </button>
        ))}
      </div>
    </Form>
  );
  if (inline) return body;
  return (
    <div className="modal-backdrop">
      <section className="modal" role="dialog" aria-modal="true" aria-labelledby="language-dialog-title">
        <h2 id="language-dialog-title">
          {t("language.title")} <span className="badge">BETA</span>
        </h2>
        <p>{t("language.prompt")}</p>
        {body}
      </section>
    </div>
  );
}
