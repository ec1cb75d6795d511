// /calendar/new: a new appointment (?contact={uid} fills in the contact, ?date=YYYY-MM-DD the day).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { createFromForm } from "../actions.server";
import { NewAppointmentForm } from "../components/NewAppointmentForm";
import { requireCalendarUser } from "../guard.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireCalendarUser(request, context);
  const url = new URL(request.url);
  const contact = (url.searchParams.get("contact") ?? "").slice(0, 254);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(url.searchParams.get("date") ?? "") ? url.searchParams.get("date")! : "";
  return json({ initial: { contact, start_date: date, end_date: date, repeat: "none" } }, { headers: { "Cache-Control": "private, no-store" } });
}

export const action = ({ request, context }: ActionFunctionArgs) => createFromForm(request, context);

export const meta = pageMeta("plugin_calendar.new.title");

export default function NewAppointment() {
  const { initial } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="stack calendar-page">
      <p>
        <Link to="/calendar">{t("plugin_calendar.back")}</Link>
      </p>
      <h1>{t("plugin_calendar.new.title")}</h1>
      <NewAppointmentForm initial={initial} />
    </section>
  );
}
