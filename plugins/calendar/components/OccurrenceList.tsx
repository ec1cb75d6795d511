// A list of occurrences (the list view, a contact's appointments): date, time, title as a link.
import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { formatDate, formatTime } from "~/time";

export interface ListedOccurrence {
  id: number;
  title: string;
  startsAt: number;
  endsAt: number;
  allDay: boolean;
  recurring: boolean;
  contactName: string;
}

export function OccurrenceList({ items, timeZone }: { items: ListedOccurrence[]; timeZone: string }) {
  const { t } = useTranslation();
  if (!items.length) return <p className="muted">{t("plugin_calendar.list.none")}</p>;
  return (
    <ul className="calendar-list">
      {items.map((o) => (
        <li key={`${o.id}-${o.startsAt}`}>
          <time dateTime={new Date(o.startsAt).toISOString()}>
            {formatDate(o.startsAt, timeZone)}{" "}
            {o.allDay ? t("plugin_calendar.allDay") : `${formatTime(o.startsAt, timeZone)}–${formatTime(o.endsAt, timeZone)}`}
          </time>{" "}
          <Link to={`/calendar/event/${o.id}`}>{o.title}</Link>
          {o.contactName ? <span className="muted"> · {o.contactName}</span> : null}
          {o.recurring ? <span className="muted"> · {t("plugin_calendar.recurring")}</span> : null}
        </li>
      ))}
    </ul>
  );
}
