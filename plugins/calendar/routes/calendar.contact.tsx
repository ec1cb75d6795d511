// /calendar/{contact uid}: that contact's appointments (upcoming, those the viewer may see) and a
// "New appointment" form with the contact filled in.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { contactByUid } from "@plugins/contacts/contacts.server";
import { upcoming } from "../calendar.server";
import { createFromForm } from "../actions.server";
import { NewAppointmentForm } from "../components/NewAppointmentForm";
import { OccurrenceList } from "../components/OccurrenceList";
import { requireCalendarUser } from "../guard.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { user, workspace } = await requireCalendarUser(request, context);
  const contact = await contactByUid(params.contact ?? "");
  if (!contact) throw new Response("Not Found", { status: 404 });
  const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
  const list = await upcoming(user, workspace.timeZone, page, Date.now(), contact.id);
  return json(
    { contact: { uid: contact.uid, name: contact.name, email: contact.emails[0] ?? "" }, list, timeZone: workspace.timeZone },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const action = ({ request, context }: ActionFunctionArgs) => createFromForm(request, context);

export const meta = pageMeta("plugin_calendar.contact.title");

export default function ContactCalendar() {
  const { contact, list, timeZone } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const name = contact.name || contact.email || t("plugin_calendar.noName");
  const pageLink = (page: number) => `/calendar/${contact.uid}?page=${page}`;
  return (
    <section className="stack calendar-page">
      <p>
        <Link to="/calendar">{t("plugin_calendar.back")}</Link> · <Link to={`/contacts/${contact.uid}`}>{t("plugin_calendar.contact.profile")}</Link>
      </p>
      <h1>{t("plugin_calendar.contact.heading", { name })}</h1>
      <section className="stack" aria-labelledby="contact-appointments">
        <h2 id="contact-appointments">{t("plugin_calendar.contact.upcoming")}</h2>
        <OccurrenceList items={list.items} timeZone={timeZone} />
        {list.page > 1 || list.more ? (
          <nav className="pager" aria-label={t("plugin_calendar.list.pages")}>
            {list.page > 1 ? <Link to={pageLink(list.page - 1)}>{t("plugin_calendar.list.previous")}</Link> : <span />}
            <span>{t("plugin_calendar.list.page", { page: list.page })}</span>
            {list.more ? <Link to={pageLink(list.page + 1)}>{t("plugin_calendar.list.next")}</Link> : <span />}
          </nav>
        ) : null}
      </section>
      <section className="card stack" aria-labelledby="contact-new">
        <h2 id="contact-new">{t("plugin_calendar.new.title")}</h2>
        <NewAppointmentForm initial={{ contact: contact.uid, repeat: "none" }} />
      </section>
    </section>
  );
}
