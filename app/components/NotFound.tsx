import { useTranslation } from "react-i18next";

export function NotFound() {
  const { t } = useTranslation();
  return (
    <main className="center-page not-found">
      <title>{t("notFound.title")}</title>
      <h1>{t("notFound.title")}</h1>
      <p>{t("notFound.body")}</p>
      <a className="button primary" href="/">
        {t("notFound.home")}
      </a>
    </main>
  );
}
