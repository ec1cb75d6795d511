// /survey/{token}: a public survey with the fields its admin defined. Plain form (works without
// JavaScript), csrf token, a per-visitor limit, errors beside each field with the answers kept.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { csrfToken, validCsrf } from "~/csrf.server";
import { MessagePage } from "~/components/PublicForm";
import { formResult, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { getSurveyByToken, optionsOf, submitSurvey, surveyAnswerLimiter as limiter, type SurveyField } from "../forms.server";
import { FormMessage } from "~/components/FormMessage";

/** Inputs are named after the field ids, prefixed so they never meet _token. */
const inputName = (field: SurveyField) => `field_${field.id}`;

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const survey = await getSurveyByToken(params.token);
  if (!survey) return json({ valid: false as const, productTitle: ctx.edition.title }, { status: 404 });
  const { token, setCookie } = await csrfToken(request);
  const sent = new URL(request.url).searchParams.has("sent");
  return json(
    { valid: true as const, csrf: token, sent, productTitle: ctx.edition.title, title: survey.title, fields: survey.fields },
    setCookie ? { headers: { "Set-Cookie": setCookie } } : undefined,
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.valid ? `${data.title} · ${data.productTitle}` : (data?.productTitle ?? "") }];

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const survey = await getSurveyByToken(params.token);
  if (!survey) throw new Response("Not Found", { status: 404 });
  const form = await request.formData();
  const values = Object.fromEntries(survey.fields.map((f) => [f.id, String(form.get(inputName(f)) ?? "")]));
  if (!(await validCsrf(request, form.get("_token")))) return refuse(formResult({ message: "forms.expired", values }), 403);
  const visitor = `${(context as { clientIp?: string }).clientIp ?? "unknown"} ${survey.id}`;
  // counted before saving (parallel posts cannot slip past the limit); a refused answer is given back
  try {
    await limiter.consume(visitor);
  } catch {
    return refuse(formResult({ message: "forms.tooMany", values }), 429);
  }
  const result = await submitSurvey(survey.token, values);
  if (!result.ok) {
    await limiter.reward(visitor, 1);
    if ("invalidLink" in result) throw new Response("Not Found", { status: 404 });
    // the error of each field; the address a badEmail names is that field's own answer (SurveyInput)
    return refuse(formResult({ errors: Object.fromEntries(Object.entries(result.errors).map(([id, e]) => [id, e.key])), values }));
  }
  return redirect(`${new URL(request.url).pathname}?sent=1`);
}

export default function SurveyPage() {
  const data = useLoaderData<typeof loader>();
  const result = useFormResult();
  const busy = useNavigation().state !== "idle";
  const { t } = useTranslation();
  if (!data.valid) return <MessagePage title={t("forms.invalidTitle")} body={t("forms.invalidBody")} />;
  if (data.sent) return <MessagePage title={t("forms.sentTitle")} body={t("forms.sentBody")} status />;
  const errors = result?.errors ?? {};
  return (
    <main className="login-page">
      <section className="login-card wide">
        <h1>{data.title}</h1>
        <p className="muted">{data.productTitle}</p>
        <Form method="post" className="stack survey-form" noValidate>
          <input type="hidden" name="_token" value={data.csrf} />
          <FormMessage result={result} />
          {data.fields.map((field) => (
            <SurveyInput key={field.id} field={field} value={result?.values[field.id] ?? ""} error={errors[field.id]} />
          ))}
          <button type="submit" className="button primary" disabled={busy}>
            {t("forms.submit")}
          </button>
        </Form>
      </section>
    </main>
  );
}

function SurveyInput({ field, value, error }: { field: SurveyField; value: string; error?: string }) {
  const { t } = useTranslation();
  const id = `survey-${field.id}`;
  const errorId = `${id}-error`;
  const common = {
    name: inputName(field),
    "aria-invalid": !!error,
    "aria-describedby": error ? errorId : undefined,
    "aria-required": field.required,
  };
  const label = (
    <>
      {field.label}
      {field.required ? null : <span className="muted"> {t("forms.optional")}</span>}
    </>
  );
  const message = error ? (
    <p className="field-error" id={errorId}>
      {/* a survey may have several email fields: each error names its own answer */}
      {t(error, { address: value.trim() })}
    </p>
  ) : null;
  if (field.type === "rating")
    return (
      <fieldset className="survey-rating" aria-describedby={common["aria-describedby"]}>
        <legend>{label}</legend>
        {optionsOf(field).map((option) => (
          <label key={option} className="inline">
            <input type="radio" name={common.name} value={option} defaultChecked={value === option} aria-invalid={common["aria-invalid"]} />
            {t("forms.stars", { count: Number(option) })}
          </label>
        ))}
        {message}
      </fieldset>
    );
  const input =
    field.type === "textarea" ? (
      <textarea id={id} {...common} defaultValue={value} rows={5} maxLength={10000} />
    ) : field.type === "select" ? (
      <select id={id} {...common} defaultValue={value}>
        <option value="">{t("forms.choose")}</option>
        {field.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    ) : (
      <input
        id={id}
        {...common}
        defaultValue={value}
        type={field.type === "email" ? "email" : "text"}
        inputMode={field.type === "number" ? "decimal" : undefined}
        autoComplete={field.type === "email" ? "email" : "off"}
        maxLength={field.type === "text" ? 1000 : 200}
      />
    );
  return (
    <>
      <label htmlFor={id}>{label}</label>
      {input}
      {message}
    </>
  );
}
