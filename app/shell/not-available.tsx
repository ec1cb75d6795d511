// The honest page of a plugin whose feature is declared but not built yet.
import { useMatches, type MetaFunction } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { shellTitle } from "~/meta";

type Match = { id: string; data?: unknown } | undefined;
/** The plugin's title, as its gate's loader translated it. */
const pluginTitle = (matches: Match[]) =>
  (matches.find((m) => m?.id.startsWith("plugin/") || m?.id.startsWith("public/"))?.data as { title?: string } | undefined)?.title ?? "";

export const meta: MetaFunction = ({ matches }) => [{ title: [pluginTitle(matches), shellTitle(matches)].filter(Boolean).join(" - ") }];

export default function NotAvailable() {
  const { t } = useTranslation();
  const title = pluginTitle(useMatches());
  return (
    <section className="not-available">
      <h1>{title}</h1>
      <p>{t("plugin.notAvailable")}</p>
    </section>
  );
}
