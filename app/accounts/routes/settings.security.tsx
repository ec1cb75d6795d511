// /settings/security (admins): the session idle timeout, and the sign-in limits in force.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { requireAdmin } from "~/context.server";
import { IDLE_HOURS_MAX, idleHours, SESSION_TTL_MS, setIdleHours } from "~/accounts/sessions.server";
import { ACCOUNT_LIMIT, NETWORK_LIMIT, THROTTLE_WINDOW_MS } from "~/accounts/throttle.server";
import { TFA_TRIES_PER_SESSION } from "~/accounts/auth.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { FormMessage } from "~/components/FormMessage";
import { formError, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";

/** Whole hours from 1 to a month. */
const idleSchema = (max: number) =>
  z.object({
    idle_hours: z.coerce
      .number({ invalid_type_error: "security.settings.idleInvalid" })
      .int("security.settings.idleInvalid")
      .min(1, "security.settings.idleInvalid")
      .max(max, "security.settings.idleInvalid"),
  });

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return json({
    idleHours: await idleHours(),
    maxHours: IDLE_HOURS_MAX,
    lifetimeDays: Math.round(SESSION_TTL_MS / 86_400_000),
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
  const values = formValues(form, ["idle_hours"]);
  // an empty field is not 0 hours
  const parsed = idleSchema(IDLE_HOURS_MAX).safeParse({ idle_hours: values.idle_hours.trim() || "x" });
  if (!parsed.success) {
    const result = formError(parsed.error, values, "idle");
    return refuse({ ...result, messageValues: { max: String(IDLE_HOURS_MAX) } });
  }
  await setIdleHours(parsed.data.idle_hours, { id: user.id, name: user.name }, context.clientIp);
  return redirect("/settings/security?saved=1");
}

export default function SettingsSecurity() {
  const data = useLoaderData<typeof loader>();
  const refused = useFormResult("idle");
  const { t } = useTranslation();
  const error = refused?.errors.idle_hours;
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
          <label>
            {t("security.settings.idleHours")}
            <input
              name="idle_hours"
              type="number"
              inputMode="numeric"
              min={1}
              max={data.maxHours}
              step={1}
              required
              defaultValue={refused?.values.idle_hours ?? String(data.idleHours)}
              aria-invalid={!!error}
              aria-describedby={error ? "idle-hours-error idle-hours-help" : "idle-hours-help"}
            />
          </label>
          {error ? (
            <p id="idle-hours-error" className="field-error" role="alert">
              {t(error, { max: data.maxHours })}
            </p>
          ) : null}
          <p id="idle-hours-help" className="muted">
            {t("security.settings.idleHelp", { days: data.lifetimeDays })}
          </p>
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
