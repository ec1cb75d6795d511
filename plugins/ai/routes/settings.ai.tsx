// /settings/ai (admins): which adapter reads the customers' messages, and whether anything of a
// conversation leaves this machine, said plainly at the top. The outside model's key is sealed at
// rest and never sent back to the page (it says only whether one is stored). A plain post that
// works without JavaScript; a refusal shows each field's error with what was typed kept.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, requireAdmin } from "~/context.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { FormMessage } from "~/components/FormMessage";
import { formError, formValues, refusalKey, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { ADAPTERS, aiSettings, hasStoredKey, leavesMachine, saveSettings, settingsSchema } from "../settings.server";
import { analyse, usedToday } from "../service.server";

const FIELDS = ["adapter", "baseUrl", "model", "embeddingModel", "apiKey", "clearKey", "timeoutMs", "dailyBudget", "ratePerMinute"] as const;
const TEST_REASONS = ["ok", "timeout", "rate_limited", "bad_response", "http", "network", "budget", "rate_limit", "not_configured", "offline"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireAdmin(request);
  const url = new URL(request.url);
  const s = await aiSettings(true);
  const tested = url.searchParams.get("tested");
  return json(
    {
      settings: {
        adapter: s.adapter,
        baseUrl: s.baseUrl,
        model: s.model,
        embeddingModel: s.embeddingModel,
        timeoutMs: s.timeoutMs,
        dailyBudget: s.dailyBudget,
        ratePerMinute: s.ratePerMinute,
      },
      keyStored: await hasStoredKey(),
      leaves: leavesMachine(s),
      used: await usedToday(),
      saved: url.searchParams.get("saved") === "1",
      tested: (TEST_REASONS as readonly string[]).includes(tested ?? "") ? tested : null,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  if (form.get("intent") === "test") {
    const s = await aiSettings(true);
    if (s.adapter === "off") return redirect("/settings/ai?tested=not_configured");
    if (s.adapter === "offline") return redirect("/settings/ai?tested=offline");
    const answer = await analyse(`Test from the settings page ${Date.now()}: where is my parcel?`, s);
    return redirect(`/settings/ai?tested=${answer.state === "unavailable" ? answer.reason : "ok"}`);
  }
  const values = formValues(form, FIELDS);
  const parsed = settingsSchema.safeParse(values);
  // the key is never shown again, also not in a refused form
  if (!parsed.success) return refuse(formError(parsed.error, { ...values, apiKey: "" }));
  await saveSettings(parsed.data, { actor: { id: user.id, name: user.username }, ip: (context as { clientIp?: string }).clientIp });
  return redirect("/settings/ai?saved=1");
}

export const meta = pageMeta("plugin_ai.settings.title");

function Field(props: { name: (typeof FIELDS)[number]; type?: string; result?: FormResult; value: string | number; hint?: string; inputMode?: "numeric" }) {
  const { t } = useTranslation();
  const id = `ai-${props.name}`;
  const error = props.result?.errors[props.name];
  const described = [props.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="stack">
      <label htmlFor={id}>{t(`plugin_ai.settings.field.${props.name}`)}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        inputMode={props.inputMode}
        autoComplete="off"
        defaultValue={props.result?.values[props.name] ?? String(props.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={described}
      />
      {props.hint ? (
        <p id={`${id}-hint`} className="muted">
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {t(error)}
        </p>
      ) : null}
    </div>
  );
}

export default function AiSettings() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const result = useFormResult();
  const s = data.settings;
  const adapter = result?.values.adapter ?? s.adapter;
  const privacy =
    s.adapter === "off"
      ? t("plugin_ai.settings.privacy.off")
      : s.adapter === "offline" || !s.baseUrl
        ? t("plugin_ai.settings.privacy.offline")
        : data.leaves.leaves
          ? t("plugin_ai.settings.privacy.outside", { host: data.leaves.host })
          : t("plugin_ai.settings.privacy.local", { host: data.leaves.host });
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("plugin_ai.settings.title")}</h1>
      <p className="notice" data-testid="ai-privacy">
        {privacy}
      </p>
      {s.adapter === "off" ? (
        <p className="muted" data-testid="ai-state">
          {t("plugin_ai.state.notConfigured")}
        </p>
      ) : null}
      {data.saved ? (
        <p className="notice" role="status">
          {t("plugin_ai.settings.saved")}
        </p>
      ) : null}
      {data.tested ? (
        <p className="notice" role="status" data-testid="ai-tested">
          {data.tested === "ok"
            ? t("plugin_ai.settings.test.ok")
            : data.tested === "offline"
              ? t("plugin_ai.settings.test.offline")
              : data.tested === "not_configured"
                ? t("plugin_ai.state.notConfigured")
                : `${t("plugin_ai.state.unavailable")} ${t(`plugin_ai.reason.${data.tested}`)}`}
        </p>
      ) : null}
      {s.adapter === "openai" ? <p className="muted">{t("plugin_ai.settings.usage", { used: data.used, budget: s.dailyBudget })}</p> : null}

      <Form method="post" className="stack narrow" noValidate key={refusalKey(result, location.key)} aria-labelledby="ai-settings-form">
        <h2 id="ai-settings-form">{t("plugin_ai.settings.formTitle")}</h2>
        <FormMessage result={result} />
        <fieldset className="stack">
          <legend>{t("plugin_ai.settings.field.adapter")}</legend>
          {ADAPTERS.map((a) => (
            <label key={a} className="inline">
              <input type="radio" name="adapter" value={a} defaultChecked={adapter === a} /> {t(`plugin_ai.adapter.${a}`)}
            </label>
          ))}
          {result?.errors.adapter ? <p className="field-error">{t(result.errors.adapter)}</p> : null}
        </fieldset>
        <Field name="baseUrl" type="url" result={result} value={s.baseUrl} hint={t("plugin_ai.settings.hint.baseUrl")} />
        <Field name="model" result={result} value={s.model} />
        <Field name="embeddingModel" result={result} value={s.embeddingModel} hint={t("plugin_ai.settings.hint.embeddingModel")} />
        <Field
          name="apiKey"
          type="password"
          result={result}
          value=""
          hint={data.keyStored ? t("plugin_ai.settings.hint.keyStored") : t("plugin_ai.settings.hint.noKey")}
        />
        {data.keyStored ? (
          <label className="inline">
            <input type="checkbox" name="clearKey" value="1" defaultChecked={result?.values.clearKey === "1"} /> {t("plugin_ai.settings.field.clearKey")}
          </label>
        ) : null}
        <Field name="timeoutMs" inputMode="numeric" result={result} value={s.timeoutMs} />
        <Field name="dailyBudget" inputMode="numeric" result={result} value={s.dailyBudget} />
        <Field name="ratePerMinute" inputMode="numeric" result={result} value={s.ratePerMinute} />
        <button type="submit" className="button primary">
          {t("plugin_ai.settings.save")}
        </button>
      </Form>
      <Form method="post">
        <input type="hidden" name="intent" value="test" />
        <button type="submit" className="button">
          {t("plugin_ai.settings.test.button")}
        </button>
      </Form>
    </section>
  );
}
