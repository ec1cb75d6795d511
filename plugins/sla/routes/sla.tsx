// /sla (admins): the SLA policies per label and priority, the business-hours calendar, and this
// month's SLA alerts against the plan's limit. Plain forms that work without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { FormMessage } from "~/components/FormMessage";
import { IntentButton } from "~/components/IntentButton";
import { TableScroll } from "~/components/TableScroll";
import { formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { getSettings } from "~/models/settings.server";
import { formatClock, MAX_SLA_MINUTES } from "../business-hours";
import { alertsThisMonth, calendarSetting, monthlyAlertLimit } from "../engine.server";
import { DAYS, deletePolicy, labelChoices, listPolicies, PRIORITY_CHOICES, saveCalendar, savePolicy } from "../policies.server";

async function requireAdmin(request: Request, context: object) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user || ctx.user.type !== "admin") throw redirect("/");
  return ctx;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireAdmin(request, context);
  const [policies, labels, calendar, used, settings] = await Promise.all([listPolicies(), labelChoices(), calendarSetting(), alertsThisMonth(), getSettings()]);
  return json(
    {
      policies,
      labels,
      calendar,
      used,
      limit: monthlyAlertLimit(Number(settings.plan)),
      timeZone: ctx.workspace.timeZone,
      saved: new URL(request.url).searchParams.get("saved"),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const POLICY_FIELDS = ["label_id", "priority", "first_response", "next_response", "resolution", "warn", "pause_on_pending"] as const;
const CALENDAR_FIELDS = [...DAYS.flatMap((d) => [`open_${d}`, `from_${d}`, `to_${d}`]), "country"];

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAdmin(request, context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "policy") {
    const outcome = await savePolicy(formValues(form, POLICY_FIELDS));
    if (!outcome.ok) return refuse(outcome.result);
    return redirect("/sla?saved=policy");
  }
  if (intent === "delete") {
    await deletePolicy(Number(form.get("id")));
    return redirect("/sla?saved=deleted");
  }
  if (intent === "calendar") {
    const outcome = await saveCalendar(formValues(form, CALENDAR_FIELDS));
    if (!outcome.ok) return refuse(outcome.result);
    return redirect("/sla?saved=calendar");
  }
  return redirect("/sla");
}

export const meta = pageMeta("plugin_sla.page.title");

const minutesText = (n: number | null) => (n === null ? "" : String(n));

function PolicyForm({ labels }: { labels: { id: number; name: string; sla: number }[] }) {
  const { t } = useTranslation();
  const location = useLocation();
  const failed = useFormResult("policy");
  const v = failed?.values ?? {};
  const field = (name: string, labelKey: string, hint?: string) => {
    const error = failed?.errors[name];
    return (
      <p className="field">
        <label htmlFor={`sla-${name}`}>{t(labelKey)}</label>
        <input
          id={`sla-${name}`}
          name={name}
          type="text"
          inputMode="numeric"
          defaultValue={v[name] ?? (name === "warn" ? "15" : "")}
          aria-invalid={!!error}
          aria-describedby={[hint ? `sla-${name}-hint` : "", error ? `sla-${name}-error` : ""].filter(Boolean).join(" ") || undefined}
        />
        {hint ? (
          <span id={`sla-${name}-hint`} className="muted">
            {t(hint)}
          </span>
        ) : null}
        {error ? (
          <span id={`sla-${name}-error`} className="field-error">
            {t(error, { max: MAX_SLA_MINUTES, ...failed?.messageValues })}
          </span>
        ) : null}
      </p>
    );
  };
  return (
    <Form method="post" noValidate className="stack" key={refusalKey(failed, location.key)} aria-labelledby="sla-policy-heading">
      <FormMessage result={failed} />
      <input type="hidden" name="intent" value="policy" />
      <p className="field">
        <label htmlFor="sla-label_id">{t("plugin_sla.page.label")}</label>
        <select id="sla-label_id" name="label_id" defaultValue={v.label_id ?? ""} aria-invalid={!!failed?.errors.label_id}>
          <option value="">{t("plugin_sla.page.chooseLabel")}</option>
          {labels.map((l) => (
            <option key={l.id} value={l.id}>
              {t("plugin_sla.page.labelOption", { name: l.name, minutes: l.sla })}
            </option>
          ))}
        </select>
        {failed?.errors.label_id ? <span className="field-error">{t(failed.errors.label_id)}</span> : null}
      </p>
      <p className="field">
        <label htmlFor="sla-priority">{t("plugin_sla.page.priority")}</label>
        <select id="sla-priority" name="priority" defaultValue={v.priority ?? ""}>
          {PRIORITY_CHOICES.map((p) => (
            <option key={p} value={p}>
              {p ? t(`priority.${p}`) : t("plugin_sla.page.anyPriority")}
            </option>
          ))}
        </select>
      </p>
      {field("first_response", "plugin_sla.page.firstResponse", "plugin_sla.page.optionalHint")}
      {field("next_response", "plugin_sla.page.nextResponse", "plugin_sla.page.optionalHint")}
      {field("resolution", "plugin_sla.page.resolution", "plugin_sla.page.resolutionHint")}
      {field("warn", "plugin_sla.page.warn")}
      <p>
        <label>
          <input type="checkbox" name="pause_on_pending" value="on" defaultChecked={failed ? v.pause_on_pending === "on" : true} /> {t("plugin_sla.page.pause")}
        </label>
      </p>
      <p>
        <button type="submit" className="button">
          {t("plugin_sla.page.savePolicy")}
        </button>
      </p>
    </Form>
  );
}

function CalendarForm({ calendar }: { calendar: { week: [number, number][][]; country: string } }) {
  const { t } = useTranslation();
  const location = useLocation();
  const failed = useFormResult("calendar");
  const v = failed?.values;
  return (
    <Form method="post" noValidate className="stack" key={refusalKey(failed, location.key)} aria-labelledby="sla-calendar-heading">
      <FormMessage result={failed} />
      <input type="hidden" name="intent" value="calendar" />
      <TableScroll label={t("plugin_sla.page.calendar")}>
        <table className="payment-table">
          <thead>
            <tr>
              <th scope="col">{t("plugin_sla.page.day")}</th>
              <th scope="col">{t("plugin_sla.page.open")}</th>
              <th scope="col">{t("plugin_sla.page.from")}</th>
              <th scope="col">{t("plugin_sla.page.to")}</th>
            </tr>
          </thead>
          <tbody>
            {DAYS.map((d) => {
              const span = calendar.week[d]?.[0];
              const fromError = failed?.errors[`from_${d}`];
              const toError = failed?.errors[`to_${d}`];
              const dayName = t(`plugin_sla.days.${d}`);
              return (
                <tr key={d}>
                  <th scope="row">{dayName}</th>
                  <td>
                    <input
                      type="checkbox"
                      name={`open_${d}`}
                      value="on"
                      aria-label={t("plugin_sla.page.openOn", { day: dayName })}
                      defaultChecked={v ? !!v[`open_${d}`] : !!span}
                    />
                  </td>
                  <td>
                    <input
                      name={`from_${d}`}
                      type="text"
                      size={5}
                      aria-label={t("plugin_sla.page.fromOn", { day: dayName })}
                      defaultValue={v ? v[`from_${d}`] : formatClock(span?.[0] ?? 540)}
                      aria-invalid={!!fromError}
                    />
                    {fromError ? <span className="field-error">{t(fromError)}</span> : null}
                  </td>
                  <td>
                    <input
                      name={`to_${d}`}
                      type="text"
                      size={5}
                      aria-label={t("plugin_sla.page.toOn", { day: dayName })}
                      defaultValue={v ? v[`to_${d}`] : formatClock(span?.[1] ?? 1020)}
                      aria-invalid={!!toError}
                    />
                    {toError ? <span className="field-error">{t(toError)}</span> : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      <p className="field">
        <label htmlFor="sla-country">{t("plugin_sla.page.country")}</label>
        <input
          id="sla-country"
          name="country"
          type="text"
          size={4}
          maxLength={3}
          defaultValue={v ? v.country : calendar.country}
          aria-invalid={!!failed?.errors.country}
        />
        {failed?.errors.country ? <span className="field-error">{t(failed.errors.country)}</span> : null}
      </p>
      <p>
        <button type="submit" className="button">
          {t("plugin_sla.page.saveCalendar")}
        </button>
      </p>
    </Form>
  );
}

export default function SlaPage() {
  const { policies, labels, calendar, used, limit, timeZone, saved } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="stack sla-page">
      <h1>{t("plugin_sla.page.title")}</h1>
      {saved ? (
        <p className="notice" role="status">
          {t(`plugin_sla.page.saved.${saved === "calendar" ? "calendar" : saved === "deleted" ? "deleted" : "policy"}`)}
        </p>
      ) : null}
      <p className={limit !== null && used >= limit ? "form-error" : "muted"} role={limit !== null && used >= limit ? "alert" : undefined}>
        {limit === null
          ? t("plugin_sla.page.usedUnlimited", { used })
          : used >= limit
            ? t("plugin_sla.page.limitReached", { used, limit })
            : t("plugin_sla.page.used", { used, limit })}
      </p>
      <section className="stack" aria-labelledby="sla-policies-heading">
        <h2 id="sla-policies-heading">{t("plugin_sla.page.policies")}</h2>
        <p className="muted">{t("plugin_sla.page.policiesIntro")}</p>
        {policies.length ? (
          <TableScroll label={t("plugin_sla.page.policies")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_sla.page.label")}</th>
                  <th scope="col">{t("plugin_sla.page.priority")}</th>
                  <th scope="col">{t("plugin_sla.page.firstResponse")}</th>
                  <th scope="col">{t("plugin_sla.page.nextResponse")}</th>
                  <th scope="col">{t("plugin_sla.page.resolution")}</th>
                  <th scope="col">{t("plugin_sla.page.warn")}</th>
                  <th scope="col">{t("plugin_sla.page.pause")}</th>
                  <th scope="col">
                    <span className="sr-only">{t("plugin_sla.page.actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {policies.map((p) => (
                  <tr key={p.id} data-policy={p.label}>
                    <td>{p.label}</td>
                    <td>{p.priority ? t(`priority.${p.priority}`) : t("plugin_sla.page.anyPriority")}</td>
                    <td>{minutesText(p.firstResponseMinutes)}</td>
                    <td>{minutesText(p.nextResponseMinutes)}</td>
                    <td>{p.resolutionMinutes ?? t("plugin_sla.page.labelDefault", { minutes: p.labelSla })}</td>
                    <td>{p.warnMinutes}</td>
                    <td>{p.pauseOnPending ? t("plugin_sla.page.yes") : t("plugin_sla.page.no")}</td>
                    <td>
                      <IntentButton intent="delete" id={p.id} className="link-button" label={t("plugin_sla.page.deleteOf", { name: p.label })}>
                        {t("plugin_sla.page.delete")}
                      </IntentButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_sla.page.none")}</p>
        )}
        <h3 id="sla-policy-heading">{t("plugin_sla.page.addPolicy")}</h3>
        <PolicyForm labels={labels} />
      </section>
      <section className="stack" aria-labelledby="sla-calendar-heading">
        <h2 id="sla-calendar-heading">{t("plugin_sla.page.calendar")}</h2>
        <p className="muted">{t("plugin_sla.page.calendarIntro", { zone: timeZone })}</p>
        <CalendarForm calendar={calendar} />
      </section>
    </section>
  );
}
