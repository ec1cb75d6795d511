// /ticket: the ticket list (the frame's list panel) beside an empty detail column, until a ticket
// is chosen (spec: the empty page says 'its empty').
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import type { ShellHandle } from "~/shell/view";

/** Its detail is empty: a phone shows the list here instead. */
export const handle: ShellHandle = { shell: "list" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  return json({});
}

export default function NoTicketChosen() {
  const { t } = useTranslation();
  return (
    <section className="empty-detail" aria-labelledby="empty-detail-title">
      <h1 id="empty-detail-title" className="sr-only">
        {t("plugin_tickets.menu.ticket")}
      </h1>
      <p className="muted">{t("plugin_tickets.empty")}</p>
    </section>
  );
}
