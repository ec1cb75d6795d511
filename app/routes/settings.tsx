// Personal settings: language, theme, rich links and two-factor sign-in.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import QRCode from "qrcode";
import { requestContext, requireUser } from "~/context.server";
import { disableTotp, enableTotp, newTotpSecret, totpUri } from "~/accounts/auth.server";
import { verifyPassword } from "~/accounts/password.server";
import { LanguageDialog } from "~/components/LanguageDialog";
import { THEMES } from "~/theme";
import { formError, formResult, formValues, tfaDisableSchema, tfaEnableSchema, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";

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
    // section 17, subscriptions and billing, lives in the payment plugin
    billing: user.type === "admin" && ctx.edition.enabled.includes("payment"),
  });
}

/** The secret travels in the form (never the URL); a failed attempt shows the same secret again. */
async function totpSetup(username: string, issuer: string, secret: string) {
  return { secret, qr: await QRCode.toString(totpUri(username, issuer, secret), { type: "svg", margin: 1 }) };
}
/** A refused wrong code also brings back the setup it was for (the QR is drawn on the server). */
type EnableResult = FormResult & { setup?: Awaited<ReturnType<typeof totpSetup>> };

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const ctx = await requestContext(request, context);
  const form = await request.formData();
  if (form.get("intent") === "tfa_disable") {
    const { password } = tfaDisableSchema.parse(formValues(form, ["password"]));
    // turning the second factor off asks for the password, so a borrowed session cannot do it
    if (!(await verifyPassword(password, user.passwordHash)))
      return refuse(formResult({ intent: "tfa_disable", errors: { password: "settings.passwordInvalid" } }));
    await disableTotp(user.id);
    return redirect("/settings?saved=1");
  }
  if (user.totpEnabled) return refuse(formResult({ intent: "tfa_enable", message: "settings.tfaAlreadyOn" }));
  const parsed = tfaEnableSchema.safeParse(formValues(form, ["secret", "code"]));
  if (!parsed.success) return refuse(formError(parsed.error, {}, "tfa_enable"));
  const { secret, code } = parsed.data;
  if (!(await enableTotp(user.id, secret, code)))
    return refuse<EnableResult>({
      ...formResult({ intent: "tfa_enable", errors: { code: "login.codeInvalid" } }),
      setup: await totpSetup(user.username, ctx.edition.title, secret),
    });
  return redirect("/settings?saved=1");
}

export default function Settings() {
  const data = useLoaderData<typeof loader>();
  const disable = useFormResult("tfa_disable");
  const enable = useFormResult<EnableResult>("tfa_enable");
  // after a wrong code the same secret is shown again (it is already in the user's app)
  const setup = enable?.setup ?? data.setup;
  // each form has one error line, under its last input
  const disableError = disable && (disable.message ?? Object.values(disable.errors)[0]);
  const enableError = enable && (enable.message ?? Object.values(enable.errors)[0]);
  const { t } = useTranslation();
  return (
    <section className="settings stack">
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
          <button type="submit" className="button">
            {data.richLinks ? t("settings.turnOff") : t("settings.turnOn")}
          </button>
        </Form>
      </section>
      <section>
        <h2>{t("settings.tfa")}</h2>
        {data.totpEnabled ? (
          <Form method="post" className="stack narrow">
            <p>{t("settings.tfaOn")}</p>
            <label>
              {t("settings.currentPassword")}
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
            {disableError ? (
              <p className="field-error" role="alert">
                {t(disableError)}
              </p>
            ) : null}
            <button type="submit" name="intent" value="tfa_disable" className="button">
              {t("settings.tfaDisable")}
            </button>
          </Form>
        ) : setup ? (
          <Form method="post" className="stack narrow">
            <p>{t("settings.tfaScan")}</p>
            <div className="qr" dangerouslySetInnerHTML={{ __html: setup.qr }} />
            <p>
              {t("settings.tfaSecret")}: <code data-testid="totp-secret">{setup.secret}</code>
            </p>
            <input type="hidden" name="secret" value={setup.secret} />
            <label>
              {t("login.code")}
              <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required />
            </label>
            {enableError ? (
              <p className="field-error" role="alert">
                {t(enableError)}
              </p>
            ) : null}
            <button type="submit" name="intent" value="tfa_enable" className="button primary">
              {t("settings.tfaEnable")}
            </button>
          </Form>
        ) : null}
      </section>
    </section>
  );
}
