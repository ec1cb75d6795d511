// /mobile and /mobile/ticket: the ticket list alone, without the detail panel at any width (spec
// section 2). The frame draws the list in the detail column's place (handle "list-only").
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import type { ShellHandle } from "~/shell/view";
import { pageMeta } from "~/meta";

export const handle: ShellHandle = { shell: "list-only" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  return json({});
}

export const meta = pageMeta("plugin_tickets.menu.ticket");

export default function MobileList() {
  const { t } = useTranslation();
  return <h1 className="sr-only">{t("plugin_tickets.menu.ticket")}</h1>;
}
