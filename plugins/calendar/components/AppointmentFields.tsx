// The fields of an appointment (new and edit), each labelled, its error tied to it
// (aria-describedby), its value what was typed when the post was refused. Plain controls: the form
// works the same without JavaScript.
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";

const REPEATS = ["none", "daily", "weekly", "monthly"] as const;
const REMINDERS = ["", "0", "5", "15", "30", "60", "1440"] as const;

export function AppointmentFields({ initial, failed }: { initial: Record<string, string>; failed: FormResult | undefined }) {
  const { t } = useTranslation();
  const errors = failed?.errors ?? {};
  const value = (name: string) => failed?.values[name] ?? initial[name] ?? "";
  const row = (name: string, label: string, control: (a: Record<string, unknown>) => JSX.Element, help?: string) => {
    const id = `appt-${name}`;
    const describedBy = [help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        {control({ id, name, defaultValue: value(name), "aria-invalid": !!errors[name], "aria-describedby": describedBy })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], failed?.messageValues)}
          </p>
        ) : null}
      </div>
    );
  };
  const allDayId = "appt-all_day";
  return (
    <>
      {row("title", t("plugin_calendar.field.title"), (a) => (
        <input {...a} type="text" required maxLength={200} autoComplete="off" />
      ))}
      {row(
        "contact",
        t("plugin_calendar.field.contact"),
        (a) => (
          <input {...a} type="text" maxLength={254} autoComplete="off" />
        ),
        t("plugin_calendar.field.contactHelp"),
      )}
      {row(
        "ticket",
        t("plugin_calendar.field.ticket"),
        (a) => (
          <input {...a} type="text" inputMode="numeric" maxLength={20} autoComplete="off" />
        ),
        t("plugin_calendar.field.optional"),
      )}
      <fieldset className="stack">
        <legend>{t("plugin_calendar.field.when")}</legend>
        <div className="row">
          {row("start_date", t("plugin_calendar.field.startDate"), (a) => (
            <input {...a} type="date" required />
          ))}
          {row("start_time", t("plugin_calendar.field.startTime"), (a) => (
            <input {...a} type="time" />
          ))}
        </div>
        <div className="row">
          {row("end_date", t("plugin_calendar.field.endDate"), (a) => (
            <input {...a} type="date" />
          ))}
          {row("end_time", t("plugin_calendar.field.endTime"), (a) => (
            <input {...a} type="time" />
          ))}
        </div>
        <div>
          <input id={allDayId} name="all_day" type="checkbox" defaultChecked={value("all_day") === "on"} />{" "}
          <label htmlFor={allDayId}>{t("plugin_calendar.field.allDay")}</label>
        </div>
      </fieldset>
      <fieldset className="stack">
        <legend>{t("plugin_calendar.field.repeatGroup")}</legend>
        {row("repeat", t("plugin_calendar.field.repeat"), (a) => (
          <select {...a}>
            {REPEATS.map((r) => (
              <option key={r} value={r}>
                {t(`plugin_calendar.repeat.${r}`)}
              </option>
            ))}
          </select>
        ))}
        <div className="row">
          {row(
            "count",
            t("plugin_calendar.field.count"),
            (a) => (
              <input {...a} type="number" min={1} max={366} />
            ),
            t("plugin_calendar.field.countHelp"),
          )}
          {row("until", t("plugin_calendar.field.until"), (a) => (
            <input {...a} type="date" />
          ))}
        </div>
      </fieldset>
      {row("location", t("plugin_calendar.field.location"), (a) => (
        <input {...a} type="text" maxLength={200} autoComplete="off" />
      ))}
      {row("notes", t("plugin_calendar.field.notes"), (a) => (
        <textarea {...a} rows={3} maxLength={5000} />
      ))}
      {row("reminder", t("plugin_calendar.field.reminder"), (a) => (
        <select {...a}>
          {REMINDERS.map((r) => (
            <option key={r} value={r}>
              {t(`plugin_calendar.reminder.option${r || "None"}`)}
            </option>
          ))}
        </select>
      ))}
    </>
  );
}
