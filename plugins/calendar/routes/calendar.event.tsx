// /calendar/event/{id}: one appointment. Its details and next occurrences (a recurring one), the
// edit form (changes the whole series) and Delete, for admins, its owner and its maker. Right
// after saving, a notice warns when it starts in the past or falls on a public holiday.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { appointmentDetail, deleteAppointment, FIELDS, updateAppointment, valuesOf, warningsOf } from "../calendar.server";
import { AppointmentFields } from "../components/AppointmentFields";
import { requireCalendarUser } from "../guard.server";
import { holidayCountry } from "../holidays.server";
import { formWriteOnce } from "~/request-keys.server";

const idOf = (params: Record<string, string | undefined>) => {
  const id = Number(params.eventId);
  if (!/^\d{1,12}$/.test(params.eventId ?? "") || !Number.isSafeInteger(id)) throw new Response("Not Found", { status: 404 });
  return id;
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { user, workspace, language } = await requireCalendarUser(request, context);
  const detail = await appointmentDetail(user, idOf(params), workspace.timeZone);
  if (!detail) throw new Response("Not Found", { status: 404 });
  const saved = new URL(request.url).searchParams.has("saved");
  const warnings = saved ? warningsOf(detail, workspace.timeZone, await holidayCountry(), language) : null;
  return json(
    { detail, values: valuesOf(detail, workspace.timeZone), saved, warnings, timeZone: workspace.timeZone },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user, workspace } = await requireCalendarUser(request, context);
  const id = idOf(params);
  const form = await request.formData();
  if (form.get("intent") === "delete") {
    const outcome = await formWriteOnce(request, user.id, "calendar", "delete", formValues(form), () => deleteAppointment(user, id, workspace.timeZone));
    if (!outcome.ok) return refuse({ ...outcome.result, intent: "delete" }, outcome.status);
    return redirect("/calendar?deleted=1");
  }
  const values = formValues(form, FIELDS);
  const outcome = await formWriteOnce(request, user.id, "calendar", "save", formValues(form), () => updateAppointment(user, id, values, workspace.timeZone));
  if (!outcome.ok) return refuse({ ...outcome.result, intent: "save" }, outcome.status);
  return redirect(`/calendar/event/${id}?saved=1`);
}

export const meta = pageMeta("plugin_calendar.event.title");

export default function AppointmentPage() {
  const { detail, values, saved, warnings, timeZone } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failedSave = useFormResult("save");
  const failedDelete = useFormResult("delete");
  const location = useLocation();
  const navigation = useNavigation();
  const when = (at: number) => (detail.allDay ? formatDate(at, timeZone) : `${formatDate(at, timeZone)} ${formatTime(at, timeZone)}`);
  // an all-day appointment ends at the next midnight: show its last day
  const lastDay = detail.allDay ? detail.endsAt - 1 : detail.endsAt;
  return (
    <section className="stack calendar-page">
      <p>
        <Link to="/calendar">{t("plugin_calendar.back")}</Link>
      </p>
      <h1>{detail.title}</h1>
      {saved ? (
        <div role="status" className="stack">
          <p className="notice">{t("plugin_calendar.event.saved")}</p>
          {warnings?.past ? <p className="notice warning">{t("plugin_calendar.warn.past")}</p> : null}
          {warnings?.holidays.map((h) => (
            <p key={h.day} className="notice warning">
              {t("plugin_calendar.warn.holiday", { date: formatDate(Date.parse(`${h.day}T12:00:00Z`), "UTC"), names: h.names.join(", ") })}
            </p>
          ))}
        </div>
      ) : null}
      <dl className="details">
        <dt>{t("plugin_calendar.event.when")}</dt>
        <dd>
          {when(detail.startsAt)} – {when(lastDay)}
          {detail.allDay ? ` (${t("plugin_calendar.allDay")})` : ""}
        </dd>
        <dt>{t("plugin_calendar.field.repeat")}</dt>
        <dd>
          {t(`plugin_calendar.repeat.${detail.repeat}`)}
          {detail.count ? ` · ${t("plugin_calendar.event.times", { count: detail.count })}` : ""}
          {detail.until ? ` · ${t("plugin_calendar.event.until", { date: formatDate(detail.until, timeZone) })}` : ""}
        </dd>
        <dt>{t("plugin_calendar.field.contact")}</dt>
        <dd>{detail.contact ? <Link to={`/calendar/${detail.contact.uid}`}>{detail.contact.name || detail.contact.uid}</Link> : "—"}</dd>
        <dt>{t("plugin_calendar.field.ticket")}</dt>
        <dd>{detail.ticketNumber ? <Link to={`/ticket/${detail.ticketNumber}`}>#{detail.ticketNumber}</Link> : "—"}</dd>
        <dt>{t("plugin_calendar.field.location")}</dt>
        <dd>{detail.location || "—"}</dd>
        <dt>{t("plugin_calendar.event.owner")}</dt>
        <dd>{detail.owner}</dd>
        <dt>{t("plugin_calendar.field.reminder")}</dt>
        <dd>{t(`plugin_calendar.reminder.option${detail.reminderMinutes ?? "None"}`)}</dd>
      </dl>
      {detail.notes ? <p className="pre-wrap">{detail.notes}</p> : null}
      {detail.rrule ? (
        <section className="stack" aria-labelledby="event-next">
          <h2 id="event-next">{t("plugin_calendar.event.next")}</h2>
          {detail.next.length ? (
            <ul>
              {detail.next.map((o) => (
                <li key={o.startsAt}>
                  <time dateTime={new Date(o.startsAt).toISOString()}>{when(o.startsAt)}</time>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t("plugin_calendar.event.noneLeft")}</p>
          )}
        </section>
      ) : null}
      {detail.canChange ? (
        <>
          <section className="card stack" aria-labelledby="event-edit">
            <h2 id="event-edit">{t("plugin_calendar.event.edit")}</h2>
            {detail.rrule ? <p className="muted">{t("plugin_calendar.event.series")}</p> : null}
            <Form method="post" noValidate className="stack narrow" key={refusalKey(failedSave, location.key)}>
              <RequestKeyInput />
              <input type="hidden" name="intent" value="save" />
              <FormMessage result={failedSave} />
              <AppointmentFields initial={values} failed={failedSave} />
              <div>
                <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
                  {t("plugin_calendar.event.save")}
                </button>
              </div>
            </Form>
          </section>
          <Form method="post" className="stack">
            <RequestKeyInput />
            <input type="hidden" name="intent" value="delete" />
            <FormMessage result={failedDelete} />
            <div>
              <button type="submit" className="button danger">
                {t("plugin_calendar.event.delete")}
              </button>
            </div>
          </Form>
        </>
      ) : null}
    </section>
  );
}
