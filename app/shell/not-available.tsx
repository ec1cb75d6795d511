// The honest page of a plugin whose feature is declared but not built yet.
import { useMatches } from "@remix-run/react";
import { useTranslation } from "react-i18next";

export default function NotAvailable() {
  const { t } = useTranslation();
  const gate = useMatches().find((m) => m.id.startsWith("plugin/") || m.id.startsWith("public/"));
  const title = (gate?.data as { title?: string } | undefined)?.title ?? "";
  return (
    <section className="not-available">
      <h1>{title}</h1>
      <p>{t("plugin.notAvailable")}</p>
    </section>
  );
}
