// Personal settings: language, theme, rich links and two-factor sign-in.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import QRCode from "qrcode";
import { requestContext, requireUser } from "~/context.server";
import { newTotpSecret, totpUri, turnOffTwoFactor, turnOnTwoFactor, type TfaChange } from "~/accounts/auth.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { withCount } from "~/accounts/texts";
import { LanguageDialog } from "~/components/LanguageDialog";
import { THEMES } from "~/theme";
import { formError, formResult, formValues, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { tfaDisableSchema, tfaEnableSchema } from "~/accounts/login-schemas.server";
import { FormMessage } from "~/components/FormMessage";
import { pageMeta } from "~/meta";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request);
  const ctx = await requestContext(request, context);
  const user = ctx.user!;
  const params = new URL(request.url).searchParams;
  const setup = user.totpEnabled ? null : await totpSetup(user.username, ctx.edition.title, newTotpSecret());
  return json({
    language: ctx.language,
    theme: ctx.theme,
    richLinks: ctx.richLinks,
    totpEnabled: user.totpEnabled,
    setup,
    saved: params.has("saved"),
    admin: user.type === "admin",
    // section 17, subscriptions and billing, lives in the payment plugin
    billing: user.type === "admin" && ctx.edition.enabled.includes("payment"),
    // channel accounts live in the channels plugin (a link, not an import: app/ imports no plugin)
    channels: user.type === "admin" && ctx.edition.enabled.includes("channels"),
    wauchat: user.type === "admin" && ctx.edition.enabled.includes("wauchat"),
  });
}

/** The secret travels in the form (never the URL); a failed attempt shows the same secret again. */
async function totpSetup(username: string, issuer: string, secret: string) {
  return { secret, qr: await QRCode.toString(totpUri(username, issuer, secret), { type: "svg", margin: 1 }) };
}
/** A refused wrong code also brings back the setup it was for (the QR is drawn on the server). */
type EnableResult = FormResult & { setup?: Awaited<ReturnType<typeof totpSetup>> };

export async function action({ request, context }: ActionFunctionArgs) {
  const { user, session } = await requireUser(request);
  const ctx = await requestContext(request, context);
  const form = await request.formData();
  const client = { keepIdHash: session.idHash, ip: context.clientIp };
  if (form.get("intent") === "tfa_disable") {
    const parsed = tfaDisableSchema.safeParse(formValues(form, ["password"]));
    if (!parsed.success) return refuse(formError(parsed.error, {}, "tfa_disable"));
    // turning the second factor off asks for the password, so a borrowed session cannot do it
    const done = await turnOffTwoFactor(user, { password: parsed.data.password, ...client });
    if (!done.ok) return refuse(tfaRefusal("tfa_disable", done), done.code === "rate_limited" ? 429 : 400);
    return redirect("/settings?saved=1");
  }
  const parsed = tfaEnableSchema.safeParse(formValues(form, ["secret", "code", "password"]));
  if (!parsed.success) {
    const result = formError(parsed.error, {}, "tfa_enable");
    const secret = String(form.get("secret") ?? "");
    const setup = /^[A-Z2-7]{16,64}$/.test(secret) ? await totpSetup(user.username, ctx.edition.title, secret) : undefined;
    return refuse<EnableResult>({ ...result, setup });
  }
  const done = await turnOnTwoFactor(user, { ...parsed.data, ...client });
  if (!done.ok)
    return refuse<EnableResult>(
      { ...tfaRefusal("tfa_enable", done), setup: done.code === "already" ? undefined : await totpSetup(user.username, ctx.edition.title, parsed.data.secret) },
      done.code === "rate_limited" ? 429 : 400,
    );
  return redirect("/settings?saved=1");
}

/** Why a two-factor change was refused, beside the field it is about. */
function tfaRefusal(intent: string, failure: Exclude<TfaChange, { ok: true }>): FormResult {
  switch (failure.code) {
    case "already":
      return formResult({ intent, message: intent === "tfa_enable" ? "security.tfaAlreadyOn" : "security.tfaAlreadyOff" });
    case "code_invalid":
      return formResult({ intent, errors: { code: "login.codeInvalid" } });
    case "password_invalid":
      return formResult({ intent, errors: { password: "settings.passwordInvalid" } });
    case "rate_limited":
      return formResult({
        intent,
        errors: { password: "security.locked" },
        messageValues: { count: String(Math.max(1, Math.ceil(failure.retryAfterSeconds / 60))) },
      });
  }
}

export const meta = pageMeta("settings.title");

export default function Settings() {
  const data = useLoaderData<typeof loader>();
  const disable = useFormResult("tfa_disable");
  const enable = useFormResult<EnableResult>("tfa_enable");
  // after a wrong code the same secret is shown again (it is already in the user's app)
  const setup = enable?.setup ?? data.setup;
  const { t } = useTranslation();
  return (
    <section className="settings stack">
      <SettingsNav admin={data.admin} />
      <h1>{t("settings.title")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t("settings.updated")}
        </p>
      ) : null}
      {data.billing ? (
        <p>
          <Link to="/settings/billing">{t("payment.billingTitle")}</Link>
        </p>
      ) : null}
      {data.channels ? (
        <p>
          <Link to="/settings/channels">{t("plugin_channels.title")}</Link>
        </p>
      ) : null}
      {data.wauchat ? (
        <p>
          <Link to="/settings/wauchat">{t("plugin_wauchat.title")}</Link>
        </p>
      ) : null}
      <section>
        <h2>{t("language.title")}</h2>
        <LanguageDialog current={data.language} inline />
      </section>
      <section>
        <h2>{t("settings.theme")}</h2>
        <Form method="post" action="/preferences" className="inline-form">
          <input type="hidden" name="intent" value="theme" />
          <input type="hidden" name="redirectTo" value="/settings" />
          {THEMES.map((theme) => (
            <button
              key={theme}
              type="submit"
              name="value"
              value={theme}
              className={theme === data.theme ? "button primary" : "button"}
              aria-pressed={theme === data.theme}
            >
              {t(`theme.${theme}`)}
            </button>
          ))}
        </Form>
        <Form method="post" action="/preferences" className="inline-form">
          <input type="hidden" name="intent" value="rich_links" />
          <input type="hidden" name="redirectTo" value="/settings" />
          <input type="hidden" name="value" value={data.richLinks ? "0" : "1"} />
          <span>
            {t("settings.richLinks")}: {data.richLinks ? t("common.on") : t("common.off")}
          </span>
          <button type="submit" className="button" aria-describedby="rich-links-hint">
            {data.richLinks ? t("settings.turnOff") : t("settings.turnOn")}
          </button>
          <span id="rich-links-hint" className="muted">
            {t("settings.richLinksHint")}
          </span>
        </Form>
      </section>
      <section>
        <h2>{t("settings.tfa")}</h2>
        {data.totpEnabled ? (
          <Form method="post" className="stack narrow" noValidate>
            <p>{t("settings.tfaOn")}</p>
            <FormMessage result={disable} />
            <PasswordField error={disable?.errors.password} values={disable?.messageValues} id="tfa-disable-password" />
            <p className="muted">{t("security.tfaOthersEnd")}</p>
            <button type="submit" name="intent" value="tfa_disable" className="button">
              {t("settings.tfaDisable")}
            </button>
          </Form>
        ) : setup ? (
          <Form method="post" className="stack narrow" noValidate>
            <p>{t("settings.tfaScan")}</p>
            <div className="qr" dangerouslySetInnerHTML={{ __html: setup.qr }} />
            <p>
              {t("settings.tfaSecret")}: <code data-testid="totp-secret">{setup.secret}</code>
            </p>
            <FormMessage result={enable} />
            {enable?.errors.secret ? (
              <p className="field-error" role="alert">
                {t(enable.errors.secret)}
              </p>
            ) : null}
            <input type="hidden" name="secret" value={setup.secret} />
            <label>
              {t("login.code")}
              <input
                name="code"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                required
                aria-invalid={!!enable?.errors.code}
                aria-describedby={enable?.errors.code ? "tfa-enable-code-error" : undefined}
              />
            </label>
            {enable?.errors.code ? (
              <p id="tfa-enable-code-error" className="field-error" role="alert">
                {t(enable.errors.code)}
              </p>
            ) : null}
            <PasswordField error={enable?.errors.password} values={enable?.messageValues} id="tfa-enable-password" />
            <p className="muted">{t("security.tfaOthersEnd")}</p>
            <button type="submit" name="intent" value="tfa_enable" className="button primary">
              {t("settings.tfaEnable")}
            </button>
          </Form>
        ) : null}
      </section>
    </section>
  );
}

/** The current password a two-factor change asks for, with its error tied to it. */
function PasswordField({ error, values, id }: { error?: string; values?: Record<string, string>; id: string }) {
  const { t } = useTranslation();
  return (
    <>
      <label>
        {t("settings.currentPassword")}
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          aria-invalid={!!error}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </label>
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {t(error, withCount(values))}
        </p>
      ) : null}
    </>
  );
}
