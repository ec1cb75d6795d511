// "/": the login form for visitors (with the two-factor step), the home page for users.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext, sessionToken } from "~/context.server";
import { sessionCookie } from "~/cookies.server";
import { authenticate, completeSignIn, startSecondFactor, verifySecondFactor } from "~/accounts/auth.server";
import { deleteSession, findSession } from "~/accounts/sessions.server";
import { loginOptions } from "~/accounts/sso.server";
import { SsoButtons } from "~/accounts/components/SsoButtons";
import { formError, formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { codeSchema, loginSchema } from "~/accounts/login-schemas.server";
import { withCount } from "~/accounts/texts";
import type { ShellHandle } from "~/shell/view";

/** The signed-in home has no detail of its own: a phone shows the list under its welcome. */
export const handle: ShellHandle = { shell: "list" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const removed = new URL(request.url).searchParams.get("notice") === "removed";
  if (ctx.user) return json({ view: "home" as const, name: ctx.user.name, productTitle: ctx.edition.title, removed });
  const pending = await findSession(await sessionToken(request), { mfaPending: true });
  return json({
    view: pending ? ("tfa" as const) : ("login" as const),
    name: "",
    productTitle: ctx.edition.title,
    removed: false,
    sso: await loginOptions(request),
  });
}

function clientOf(request: Request, ip: string) {
  return { ip, userAgent: request.headers.get("User-Agent") ?? "" };
}

const cookieOf = (token: string) => sessionCookie().serialize(token);
const minutes = (seconds: number) => ({ count: String(Math.max(1, Math.ceil(seconds / 60))) });

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = form.get("intent");
  const client = clientOf(request, context.clientIp);

  if (intent === "tfa" || intent === "cancel_tfa") {
    const token = await sessionToken(request);
    const pending = await findSession(token, { mfaPending: true });
    if (!pending || intent === "cancel_tfa") {
      if (token) await deleteSession(token);
      return redirect("/", { headers: { "Set-Cookie": await sessionCookie().serialize("", { maxAge: 0 }) } });
    }
    const parsed = codeSchema.safeParse(formValues(form, ["code"]));
    if (!parsed.success) return refuse(formError(parsed.error, {}, "tfa"));
    const checked = await verifySecondFactor(pending, parsed.data.code, client.ip);
    if (checked.ok) {
      // the pending session is replaced by a full one with a new id
      await deleteSession(token!);
      const { token: full } = await completeSignIn(pending.user, { ...client, method: "tfa" });
      return redirect("/", { headers: { "Set-Cookie": await cookieOf(full) } });
    }
    if (checked.code === "tfa_locked") {
      // the pending session is gone: back to the password, with the reason
      const result = formResult({ intent: "login", message: "security.tfaLocked" });
      return json(result, { status: 429, headers: { "Set-Cookie": await sessionCookie().serialize("", { maxAge: 0 }) } });
    }
    if (checked.code === "rate_limited")
      return refuse(formResult({ intent: "tfa", errors: { code: "security.locked" }, messageValues: minutes(checked.retryAfterSeconds) }), 429);
    return refuse(formResult({ intent: "tfa", errors: { code: "login.codeInvalid" } }));
  }

  const parsed = loginSchema.safeParse(formValues(form, ["username", "password", "type"]));
  // the password is never sent back
  const values = formValues(form, ["username", "type"]);
  if (!parsed.success) return refuse(formError(parsed.error, values, "login"));
  const result = await authenticate({ ...parsed.data, ip: client.ip });
  if (result.ok) {
    const { token } = await completeSignIn(result.user, { ...client, method: "password" });
    return redirect("/", { headers: { "Set-Cookie": await cookieOf(token) } });
  }
  if (result.code === "tfa_required") {
    const { token } = await startSecondFactor(result.user, client);
    return redirect("/", { headers: { "Set-Cookie": await cookieOf(token) } });
  }
  if (result.code === "rate_limited")
    return refuse(formResult({ intent: "login", message: "security.locked", messageValues: minutes(result.retryAfterSeconds), values }), 429);
  return refuse(formResult({ intent: "login", message: "login.invalid", values }), 400);
}

export default function Home() {
  const data = useLoaderData<typeof loader>();
  if (data.view === "home") return <Welcome name={data.name} removed={data.removed} />;
  return (
    <main className="login-page">
      <section className="login-card">
        <h1>{data.productTitle}</h1>
        {data.view === "tfa" ? <SecondFactorForm /> : <LoginForm />}
        {data.view === "login" ? <SsoButtons {...data.sso} product={data.productTitle} /> : null}
      </section>
    </main>
  );
}

function Welcome({ name, removed }: { name: string; removed: boolean }) {
  const { t } = useTranslation();
  return (
    <section className="welcome">
      {removed ? (
        <p className="notice" role="status">
          {t("conversation.removed")}
        </p>
      ) : null}
      <h1>{t("home.welcome", { name })}</h1>
      <p className="muted">{t("home.empty")}</p>
    </section>
  );
}

function LoginForm() {
  const { t } = useTranslation();
  const data = useFormResult("login");
  const busy = useNavigation().state !== "idle";
  const errors = data?.errors ?? {};
  return (
    <Form method="post" noValidate className="stack" aria-describedby={data?.message ? "login-error" : undefined}>
      <input type="hidden" name="intent" value="login" />
      <h2>{t("login.title")}</h2>
      {data?.message ? (
        <p id="login-error" className="form-error" role="alert">
          {t(data.message, withCount(data.messageValues))}
        </p>
      ) : null}
      <label>
        {t("login.username")}
        <input
          name="username"
          autoComplete="username"
          defaultValue={data?.values.username}
          aria-invalid={!!errors.username}
          aria-describedby={errors.username ? "username-error" : undefined}
        />
      </label>
      {errors.username ? (
        <p id="username-error" className="field-error">
          {t(errors.username)}
        </p>
      ) : null}
      <label>
        {t("login.password")}
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          aria-invalid={!!errors.password}
          aria-describedby={errors.password ? "password-error" : undefined}
        />
      </label>
      {errors.password ? (
        <p id="password-error" className="field-error">
          {t(errors.password)}
        </p>
      ) : null}
      <fieldset className="inline">
        <legend>{t("login.userType")}</legend>
        {(["agent", "admin"] as const).map((type) => (
          <label key={type}>
            <input type="radio" name="type" value={type} defaultChecked={(data?.values.type || "agent") === type} />
            {t(`userType.${type}`)}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? t("login.signingIn") : t("login.submit")}
      </button>
      <Link to="/password_reset">{t("account.forgot")}</Link>
    </Form>
  );
}

function SecondFactorForm() {
  const { t } = useTranslation();
  const result = useFormResult("tfa");
  const error = result?.errors.code;
  const busy = useNavigation().state !== "idle";
  return (
    <div className="stack">
      <Form method="post" noValidate className="stack">
        <input type="hidden" name="intent" value="tfa" />
        <h2>{t("login.tfaTitle")}</h2>
        <p className="muted">{t("login.tfaPrompt")}</p>
        <label>
          {t("login.code")}
          <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="\d{6}" maxLength={6} autoFocus aria-invalid={!!error} />
        </label>
        {error ? (
          <p className="field-error" role="alert">
            {t(error, withCount(result?.messageValues))}
          </p>
        ) : null}
        <button type="submit" className="button primary" disabled={busy}>
          {t("login.verify")}
        </button>
      </Form>
      <Form method="post">
        <input type="hidden" name="intent" value="cancel_tfa" />
        <button type="submit" className="link-button">
          {t("common.cancel")}
        </button>
      </Form>
    </div>
  );
}
