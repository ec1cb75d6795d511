// /calendar: the month view (?month=YYYY-MM), the week view (?view=week&date=YYYY-MM-DD) and the
// list of what is coming (?view=list&page=N), in the workspace's time zone with its country's public
// holidays; plain links move between them. Below, the viewer's private iCalendar feed address (made
// or replaced with a form) and, for admins, the country whose holidays are shown.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { publicOrigin } from "~/context.server";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { occurrencesBetween, upcoming, type Occurrence } from "../calendar.server";
import { OccurrenceList } from "../components/OccurrenceList";
import { feedToken, regenerateFeed } from "../feed.server";
import { requireCalendarUser } from "../guard.server";
import { countries, holidayCountry, publicHolidays, setHolidayCountry } from "../holidays.server";
import { addDays, dayKey, dayStart } from "../recurrence";

type View = "month" | "week" | "list";
const weekday = (day: string) => (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0

interface DayCell {
  day: string;
  inMonth: boolean;
  today: boolean;
  holidays: string[];
  items: { id: number; title: string; time: string; allDay: boolean }[];
}

/** The days from `first` to `last` with their holidays and the occurrences overlapping each. */
function cells(first: string, last: string, occ: Occurrence[], holidays: Record<string, string[]>, timeZone: string, today: string, month?: string) {
  const out: DayCell[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const from = dayStart(day, timeZone);
    const to = dayStart(addDays(day, 1), timeZone);
    out.push({
      day,
      inMonth: !month || day.startsWith(month),
      today: day === today,
      holidays: holidays[day] ?? [],
      items: occ
        .filter((o) => o.startsAt < to && o.endsAt > from)
        .map((o) => ({ id: o.id, title: o.title, allDay: o.allDay, time: o.allDay || o.startsAt < from ? "" : formatTime(o.startsAt, timeZone) })),
    });
  }
  return out;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, workspace, language } = await requireCalendarUser(request, context);
  const timeZone = workspace.timeZone;
  const url = new URL(request.url);
  const asked = url.searchParams.get("view");
  const view: View = asked === "week" || asked === "list" ? asked : "month";
  const now = Date.now();
  const today = dayKey(now, timeZone);
  const country = await holidayCountry();
  const token = await feedToken(user.id);
  const common = {
    view,
    timeZone,
    today,
    country,
    countries: user.type === "admin" ? countries(language) : [],
    isAdmin: user.type === "admin",
    feedUrl: token ? `${publicOrigin(request)}/calendar/feed/${token}.ics` : "",
    feedMade: url.searchParams.has("feed"),
    deleted: url.searchParams.has("deleted"),
  };
  const headers = { "Cache-Control": "private, no-store" };
  if (view === "list") {
    const page = Number(url.searchParams.get("page") ?? 1);
    return json({ ...common, list: await upcoming(user, timeZone, page, now), days: [] as DayCell[], month: "", date: "" }, { headers });
  }
  let first: string;
  let last: string;
  let month = "";
  let date = "";
  if (view === "week") {
    const askedDate = url.searchParams.get("date") ?? "";
    date = Number.isNaN(dayStart(askedDate, timeZone)) ? today : askedDate;
    first = addDays(date, -weekday(date));
    last = addDays(first, 6);
  } else {
    const askedMonth = url.searchParams.get("month") ?? "";
    month = /^\d{4}-(0[1-9]|1[0-2])$/.test(askedMonth) && askedMonth >= "1900" && askedMonth < "3000" ? askedMonth : today.slice(0, 7);
    const monthFirst = `${month}-01`;
    const monthLast = addDays(`${addDays(monthFirst, 32).slice(0, 7)}-01`, -1);
    first = addDays(monthFirst, -weekday(monthFirst));
    last = addDays(monthLast, 6 - weekday(monthLast));
  }
  const occ = await occurrencesBetween(user, dayStart(first, timeZone), dayStart(addDays(last, 1), timeZone), timeZone);
  const days = cells(first, last, occ, publicHolidays(country, language, first, last), timeZone, today, month || undefined);
  return json({ ...common, list: null, days, month, date }, { headers });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireCalendarUser(request, context);
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "feed") {
    await regenerateFeed(user.id);
    return redirect("/calendar?feed=1#calendar-feed");
  }
  if (intent === "country" && user.type === "admin") {
    await setHolidayCountry(String(form.get("country") ?? ""));
    return redirect("/calendar");
  }
  throw new Response("Bad Request", { status: 400 });
}

export const meta = pageMeta("plugin_calendar.title");

const monthLink = (month: string, delta: number) => {
  const [y, m] = month.split("-").map(Number);
  const d = new Date(Date.UTC(y, m - 1 + delta, 1));
  return `/calendar?month=${d.toISOString().slice(0, 7)}`;
};

function DayItems({ cell }: { cell: DayCell }) {
  const { t } = useTranslation();
  return (
    <>
      {cell.holidays.map((h) => (
        <p key={h} className="calendar-holiday">
          <span className="sr-only">{t("plugin_calendar.holiday")}: </span>
          {h}
        </p>
      ))}
      {cell.items.length ? (
        <ul className="calendar-items">
          {cell.items.map((i) => (
            <li key={i.id}>
              <Link to={`/calendar/event/${i.id}`}>
                {i.time ? `${i.time} ` : ""}
                {i.title}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

function MonthView() {
  const { days, month, today } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation();
  const title = new Intl.DateTimeFormat(i18n.language, { month: "long", year: "numeric", timeZone: "UTC" }).format(Date.parse(`${month}-01T00:00:00Z`));
  const names = days
    .slice(0, 7)
    .map((d) => new Intl.DateTimeFormat(i18n.language, { weekday: "long", timeZone: "UTC" }).format(Date.parse(`${d.day}T00:00:00Z`)));
  const weeks = Array.from({ length: days.length / 7 }, (_, w) => days.slice(w * 7, w * 7 + 7));
  return (
    <>
      <nav className="row" aria-label={t("plugin_calendar.month.nav")}>
        <Link to={monthLink(month, -1)}>{t("plugin_calendar.month.previous")}</Link>
        <Link to={`/calendar?month=${today.slice(0, 7)}`}>{t("plugin_calendar.today")}</Link>
        <Link to={monthLink(month, 1)}>{t("plugin_calendar.month.next")}</Link>
      </nav>
      <div className="table-scroll">
        <table className="labels-table calendar-month">
          <caption>{title}</caption>
          <thead>
            <tr>
              {names.map((n) => (
                <th key={n} scope="col">
                  {n}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {weeks.map((week) => (
              <tr key={week[0].day}>
                {week.map((cell) => (
                  <td key={cell.day} data-day={cell.day} className={cell.inMonth ? undefined : "muted"} style={{ verticalAlign: "top", minWidth: "7rem" }}>
                    <p>
                      <Link to={`/calendar?view=week&date=${cell.day}`} aria-current={cell.today ? "date" : undefined}>
                        {cell.today ? (
                          <strong>{formatDate(Date.parse(`${cell.day}T12:00:00Z`), "UTC")}</strong>
                        ) : (
                          formatDate(Date.parse(`${cell.day}T12:00:00Z`), "UTC")
                        )}
                      </Link>
                    </p>
                    <DayItems cell={cell} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function WeekView() {
  const { days, date, today } = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation();
  const label = (day: string) =>
    `${new Intl.DateTimeFormat(i18n.language, { weekday: "long", timeZone: "UTC" }).format(Date.parse(`${day}T00:00:00Z`))} ${formatDate(Date.parse(`${day}T12:00:00Z`), "UTC")}`;
  return (
    <>
      <nav className="row" aria-label={t("plugin_calendar.week.nav")}>
        <Link to={`/calendar?view=week&date=${addDays(date, -7)}`}>{t("plugin_calendar.week.previous")}</Link>
        <Link to={`/calendar?view=week&date=${today}`}>{t("plugin_calendar.today")}</Link>
        <Link to={`/calendar?view=week&date=${addDays(date, 7)}`}>{t("plugin_calendar.week.next")}</Link>
      </nav>
      <table className="labels-table calendar-week">
        <caption>{t("plugin_calendar.week.caption", { from: label(days[0].day), to: label(days[6].day) })}</caption>
        <thead>
          <tr>
            <th scope="col">{t("plugin_calendar.week.day")}</th>
            <th scope="col">{t("plugin_calendar.week.appointments")}</th>
          </tr>
        </thead>
        <tbody>
          {days.map((cell) => (
            <tr key={cell.day} data-day={cell.day}>
              <th scope="row" aria-current={cell.today ? "date" : undefined}>
                {label(cell.day)}
              </th>
              <td>
                <DayItems cell={cell} />
                {!cell.items.length && !cell.holidays.length ? <span className="muted">—</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function ListView() {
  const { list, timeZone } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  if (!list) return null;
  const pageLink = (page: number) => `/calendar?view=list&page=${page}`;
  return (
    <>
      <h2>{t("plugin_calendar.list.title")}</h2>
      <OccurrenceList items={list.items} timeZone={timeZone} />
      {list.page > 1 || list.more ? (
        <nav className="pager" aria-label={t("plugin_calendar.list.pages")}>
          {list.page > 1 ? <Link to={pageLink(list.page - 1)}>{t("plugin_calendar.list.previous")}</Link> : <span />}
          <span>{t("plugin_calendar.list.page", { page: list.page })}</span>
          {list.more ? <Link to={pageLink(list.page + 1)}>{t("plugin_calendar.list.next")}</Link> : <span />}
        </nav>
      ) : null}
    </>
  );
}

export default function CalendarPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const views: [View, string][] = [
    ["month", "/calendar"],
    ["week", "/calendar?view=week"],
    ["list", "/calendar?view=list"],
  ];
  return (
    <section className="stack calendar-page">
      <h1>{t("plugin_calendar.title")}</h1>
      {data.deleted ? (
        <p className="notice" role="status">
          {t("plugin_calendar.event.deleted")}
        </p>
      ) : null}
      <nav className="row" aria-label={t("plugin_calendar.views")}>
        {views.map(([v, to]) => (
          <Link key={v} to={to} aria-current={data.view === v ? "page" : undefined}>
            {t(`plugin_calendar.view.${v}`)}
          </Link>
        ))}
        <Link className="button primary" to="/calendar/new">
          {t("plugin_calendar.new.title")}
        </Link>
      </nav>
      <p className="muted">{t("plugin_calendar.zone", { zone: data.timeZone })}</p>
      {data.view === "month" ? <MonthView /> : data.view === "week" ? <WeekView /> : <ListView />}
      <section className="card stack" aria-labelledby="calendar-feed" id="calendar-feed-section">
        <h2 id="calendar-feed">{t("plugin_calendar.feed.title")}</h2>
        <p className="muted">{t("plugin_calendar.feed.help")}</p>
        {data.feedMade ? (
          <p className="notice" role="status">
            {t("plugin_calendar.feed.made")}
          </p>
        ) : null}
        {data.feedUrl ? (
          <p>
            <label htmlFor="calendar-feed-url">{t("plugin_calendar.feed.address")}</label>
            <input id="calendar-feed-url" type="text" readOnly value={data.feedUrl} className="wide" />
          </p>
        ) : null}
        <Form method="post">
          <input type="hidden" name="intent" value="feed" />
          <button type="submit" className="button">
            {data.feedUrl ? t("plugin_calendar.feed.regenerate") : t("plugin_calendar.feed.create")}
          </button>
        </Form>
      </section>
      {data.isAdmin ? (
        <section className="card stack" aria-labelledby="calendar-country">
          <h2 id="calendar-country">{t("plugin_calendar.country.title")}</h2>
          <Form method="post" className="row">
            <input type="hidden" name="intent" value="country" />
            <label htmlFor="calendar-country-select">{t("plugin_calendar.country.label")}</label>
            <select id="calendar-country-select" name="country" defaultValue={data.country}>
              {data.countries.map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </select>
            <button type="submit" className="button">
              {t("plugin_calendar.country.save")}
            </button>
          </Form>
        </section>
      ) : null}
    </section>
  );
}
