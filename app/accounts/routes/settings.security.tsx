// /settings/security (admins): how long sessions last (idle timeout, maximum age), and the
// sign-in limits in force.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { requireAdmin } from "~/context.server";
import { IDLE_HOURS_MAX, MAX_DAYS_MAX, sessionSettings, setSessionSettings } from "~/accounts/sessions.server";
import { ACCOUNT_LIMIT, NETWORK_LIMIT, THROTTLE_WINDOW_MS } from "~/accounts/throttle.server";
import { TFA_TRIES_PER_SESSION } from "~/accounts/auth.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { FormMessage } from "~/components/FormMessage";
import { formError, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";

/** A whole number from 1 to `max`; every failure is the field's one message. */
const whole = (key: string, max: number) => z.coerce.number({ invalid_type_error: key }).int(key).min(1, key).max(max, key);

const limitsSchema = (maxHours: number, maxDays: number) =>
  z.object({ idle_hours: whole("security.settings.idleInvalid", maxHours), max_days: whole("security.settings.maxDaysInvalid", maxDays) });

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return json({
    ...(await sessionSettings()),
    maxHours: IDLE_HOURS_MAX,
    maxMaxDays: MAX_DAYS_MAX,
    accountLimit: ACCOUNT_LIMIT,
    networkLimit: NETWORK_LIMIT,
    windowMinutes: THROTTLE_WINDOW_MS / 60_000,
    tfaTries: TFA_TRIES_PER_SESSION,
    saved: new URL(request.url).searchParams.has("saved"),
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const values = formValues(form, ["idle_hours", "max_days"]);
  // an empty field is not 0
  const parsed = limitsSchema(IDLE_HOURS_MAX, MAX_DAYS_MAX).safeParse({ idle_hours: values.idle_hours.trim() || "x", max_days: values.max_days.trim() || "x" });
  if (!parsed.success) return refuse(formError(parsed.error, values, "limits"));
  await setSessionSettings({ idleHours: parsed.data.idle_hours, maxDays: parsed.data.max_days }, { id: user.id, name: user.name }, context.clientIp);
  return redirect("/settings/security?saved=1");
}

export const meta = pageMeta("security.settings.title");

export default function SettingsSecurity() {
  const data = useLoaderData<typeof loader>();
  const refused = useFormResult("limits");
  const { t } = useTranslation();
  const fields = [
    { name: "idle_hours", label: "security.settings.idleHours", value: data.idleHours, max: data.maxHours, help: "security.settings.idleHelp" },
    { name: "max_days", label: "security.settings.maxDays", value: data.maxDays, max: data.maxMaxDays, help: "security.settings.maxDaysHelp" },
  ];
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("security.settings.title")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t("settings.updated")}
        </p>
      ) : null}
      <section className="stack">
        <h2>{t("security.settings.sessionsTitle")}</h2>
        <Form method="post" className="stack narrow" noValidate>
          <FormMessage result={refused} />
          {fields.map((f) => {
            const error = refused?.errors[f.name];
            const help = `${f.name}-help`;
            return (
              <div key={f.name} className="stack">
                <label>
                  {t(f.label)}
                  <input
                    name={f.name}
                    type="number"
                    inputMode="numeric"
                    min={1}
                    max={f.max}
                    step={1}
                    required
                    defaultValue={refused?.values[f.name] ?? String(f.value)}
                    aria-invalid={!!error}
                    aria-describedby={error ? `${f.name}-error ${help}` : help}
                  />
                </label>
                {error ? (
                  <p id={`${f.name}-error`} className="field-error" role="alert">
                    {t(error, { max: f.max })}
                  </p>
                ) : null}
                <p id={help} className="muted">
                  {t(f.help)}
                </p>
              </div>
            );
          })}
          <button type="submit" className="button primary">
            {t("security.settings.save")}
          </button>
        </Form>
      </section>
      <section className="stack">
        <h2>{t("security.settings.limitsTitle")}</h2>
        <ul>
          <li>{t("security.settings.accountLimit", { count: data.accountLimit, minutes: data.windowMinutes })}</li>
          <li>{t("security.settings.networkLimit", { count: data.networkLimit, minutes: data.windowMinutes })}</li>
          <li>{t("security.settings.tfaLimit", { count: data.tfaTries })}</li>
        </ul>
      </section>
    </section>
  );
}
