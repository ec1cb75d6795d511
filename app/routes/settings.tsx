// Personal settings: language, theme, rich links and two-factor sign-in.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import QRCode from "qrcode";
import { requestContext, requireUser } from "~/context.server";
import { disableTotp, enableTotp, newTotpSecret, totpUri } from "~/models/auth.server";
import { LanguageDialog } from "~/components/LanguageDialog";
import { THEMES } from "~/theme";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request);
  const ctx = await requestContext(request, context);
  const user = ctx.user!;
  const params = new URL(request.url).searchParams;
  let setup: { secret: string; qr: string } | null = null;
  if (!user.totpEnabled) {
    const secret = params.get("secret") ?? newTotpSecret();
    const qr = await QRCode.toString(totpUri(user.username, ctx.edition.title, secret), { type: "svg", margin: 1 });
    setup = { secret, qr };
  }
  return json({
    language: ctx.language,
    theme: ctx.theme,
    richLinks: ctx.richLinks,
    totpEnabled: user.totpEnabled,
    setup,
    saved: params.has("saved"),
    codeError: params.has("error"),
  });
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await request.formData();
  if (form.get("intent") === "tfa_disable") {
    await disableTotp(user.id);
    return redirect("/settings?saved=1");
  }
  const secret = String(form.get("secret") ?? "");
  if (!/^[A-Z2-7]{16,64}$/.test(secret)) return json({ error: "settings.tfaInvalid" }, { status: 400 });
  if (!(await enableTotp(user.id, secret, String(form.get("code") ?? ""))))
    return redirect(`/settings?secret=${secret}&error=1`);
  return redirect("/settings?saved=1");
}

export default function Settings() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  return (
    <section className="settings stack">
      <h1>{t("settings.title")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t("settings.updated")}
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
            <button key={theme} type="submit" name="value" value={theme} className={theme === data.theme ? "button primary" : "button"} aria-pressed={theme === data.theme}>
              {t(`theme.${theme}`)}
            </button>
          ))}
        </Form>
        <Form method="post" action="/preferences" className="inline-form">
          <input type="hidden" name="intent" value="rich_links" />
          <input type="hidden" name="redirectTo" value="/settings" />
          <input type="hidden" name="value" value={data.richLinks ? "0" : "1"} />
          <span>{t("settings.richLinks")}: {data.richLinks ? t("common.on") : t("common.off")}</span>
          <button type="submit" className="button">
            {data.richLinks ? t("settings.turnOff") : t("settings.turnOn")}
          </button>
        </Form>
      </section>
      <section>
        <h2>{t("settings.tfa")}</h2>
        {data.totpEnabled ? (
          <Form method="post" className="inline-form">
            <span>{t("settings.tfaOn")}</span>
            <button type="submit" name="intent" value="tfa_disable" className="button">
              {t("settings.tfaDisable")}
            </button>
          </Form>
        ) : data.setup ? (
          <Form method="post" className="stack narrow">
            <p>{t("settings.tfaScan")}</p>
            <div className="qr" dangerouslySetInnerHTML={{ __html: data.setup.qr }} />
            <p>
              {t("settings.tfaSecret")}: <code data-testid="totp-secret">{data.setup.secret}</code>
            </p>
            <input type="hidden" name="secret" value={data.setup.secret} />
            <label>
              {t("login.code")}
              <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required />
            </label>
            {actionData?.error || data.codeError ? <p className="field-error">{t("login.codeInvalid")}</p> : null}
            <button type="submit" name="intent" value="tfa_enable" className="button primary">
              {t("settings.tfaEnable")}
            </button>
          </Form>
        ) : null}
      </section>
    </section>
  );
}
