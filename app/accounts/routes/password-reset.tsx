// /password_reset: ask for a link (the answer never tells whether an account matched);
// /password_reset/{token}: set a new password with it, once, within the hour.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../password-policy.server";
import { linkBase, requestPasswordReset, RESET_TTL_MS, resetLinkUser, resetPassword } from "../password-reset.server";

// no "no-referrer" here for the token in the path: Chromium would post the forms with "Origin: null"
// (refused by server.ts); the site's strict-origin-when-cross-origin never sends a path elsewhere
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.productTitle ?? "OmniDesk" }];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  if (ctx.user) throw redirect("/");
  const q = new URL(request.url).searchParams;
  const base = { productTitle: ctx.edition.title, minutes: String(RESET_TTL_MS / 60_000) };
  if (params.token !== undefined) {
    const user = await resetLinkUser(params.token);
    return json({ ...base, view: user ? ("set" as const) : ("invalid" as const), username: user?.username ?? "", rules: rules() });
  }
  return json({ ...base, view: q.has("done") ? ("done" as const) : q.has("sent") ? ("sent" as const) : ("request" as const), username: "", rules: rules() });
}

const rules = () => ({ min: String(PASSWORD_MIN_LENGTH), max: String(PASSWORD_MAX_LENGTH) });

export async function action({ request, params, context }: ActionFunctionArgs) {
  const ctx = await requestContext(request, context);
  if (ctx.user) throw redirect("/");
  const form = await request.formData();
  const ip = String(context.clientIp ?? "");
  if (params.token === undefined) {
    const values = formValues(form, ["login"]);
    const login = values.login.trim().slice(0, 254);
    if (!login) return refuse(formResult({ intent: "request", errors: { login: "account.reset.loginRequired" }, values }));
    const { limited } = await requestPasswordReset({ login, ip, linkBase: linkBase(request) });
    if (limited) return refuse(formResult({ intent: "request", message: "account.reset.tooMany", values }), 429);
    return redirect("/password_reset?sent=1");
  }
  const outcome = await resetPassword(params.token, formValues(form, ["password", "confirm"]), ip);
  if (outcome.ok) return redirect("/password_reset?done=1");
  // the loader shows the expired or used link's message
  if (outcome.expired) return redirect(`/password_reset/${encodeURIComponent(params.token)}`);
  return refuse(formResult({ intent: "set", errors: outcome.errors, messageValues: rules() }));
}

export default function PasswordReset() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="login-page">
      <section className="login-card stack">
        <p className="muted" style={{ margin: 0 }}>
          {data.productTitle}
        </p>
        {data.view === "request" ? <RequestForm minutes={data.minutes} /> : null}
        {data.view === "sent" ? (
          <>
            <h1>{t("account.reset.title")}</h1>
            <p role="status" className="notice">
              {t("account.reset.sent")}
            </p>
            <p className="muted">{t("account.reset.sentHint", { minutes: data.minutes })}</p>
            <Link to="/">{t("account.reset.back")}</Link>
          </>
        ) : null}
        {data.view === "done" ? (
          <>
            <h1>{t("account.reset.title")}</h1>
            <p role="status" className="notice">
              {t("account.reset.done")}
            </p>
            <Link className="button primary" to="/">
              {t("account.reset.signIn")}
            </Link>
          </>
        ) : null}
        {data.view === "invalid" ? (
          <>
            <h1>{t("account.reset.newTitle")}</h1>
            <p role="alert" className="form-error">
              {t("account.reset.invalid")}
            </p>
            <Link className="button primary" to="/password_reset">
              {t("account.reset.requestNew")}
            </Link>
            <Link to="/">{t("account.reset.back")}</Link>
          </>
        ) : null}
        {data.view === "set" ? <SetForm username={data.username} rules={data.rules} /> : null}
      </section>
    </main>
  );
}

function RequestForm({ minutes }: { minutes: string }) {
  const { t } = useTranslation();
  const result = useFormResult("request");
  const busy = useNavigation().state !== "idle";
  const error = result?.errors.login;
  return (
    <Form method="post" className="stack" noValidate>
      <h1>{t("account.reset.title")}</h1>
      <p className="muted">{t("account.reset.intro")}</p>
      <FormMessage result={result} />
      <label>
        {t("account.reset.login")}
        <input
          name="login"
          autoComplete="username"
          maxLength={254}
          defaultValue={result?.values.login}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "login-error" : "login-hint"}
          required
        />
      </label>
      <p id="login-hint" className="muted" style={{ margin: 0 }}>
        {t("account.reset.sentHint", { minutes })}
      </p>
      {error ? (
        <p id="login-error" className="field-error">
          {t(error)}
        </p>
      ) : null}
      <button type="submit" className="button primary" disabled={busy}>
        {t("account.reset.send")}
      </button>
      <Link to="/">{t("account.reset.back")}</Link>
    </Form>
  );
}

function SetForm({ username, rules }: { username: string; rules: { min: string; max: string } }) {
  const { t } = useTranslation();
  const result = useFormResult("set");
  const busy = useNavigation().state !== "idle";
  const errors = result?.errors ?? {};
  return (
    <Form method="post" className="stack" noValidate>
      <h1>{t("account.reset.newTitle")}</h1>
      <p className="muted">{t("account.reset.for", { username })}</p>
      {/* for password managers: which account the new password belongs to */}
      <input type="hidden" name="username" value={username} autoComplete="username" />
      <label>
        {t("account.newPassword")}
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={Number(rules.min)}
          aria-invalid={errors.password ? true : undefined}
          aria-describedby={errors.password ? "password-error password-hint" : "password-hint"}
          required
        />
      </label>
      <p id="password-hint" className="muted" style={{ margin: 0 }}>
        {t("password.rules", rules)}
      </p>
      {errors.password ? (
        <p id="password-error" className="field-error">
          {t(errors.password, result?.messageValues)}
        </p>
      ) : null}
      <label>
        {t("account.confirmPassword")}
        <input
          name="confirm"
          type="password"
          autoComplete="new-password"
          aria-invalid={errors.confirm ? true : undefined}
          aria-describedby={errors.confirm ? "confirm-error" : undefined}
          required
        />
      </label>
      {errors.confirm ? (
        <p id="confirm-error" className="field-error">
          {t(errors.confirm)}
        </p>
      ) : null}
      <button type="submit" className="button primary" disabled={busy}>
        {t("account.reset.set")}
      </button>
    </Form>
  );
}
