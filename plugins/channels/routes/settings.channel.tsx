// /settings/channels/:id (admins): one channel account. Edit it (secrets are write-only), test its
// connections, enable or disable it, delete it after a confirmation step (a second page state, so
// it works without JavaScript).
import { deliveryErrorText } from "~/conversation/delivery";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { publicOrigin, requestContext, requireAdmin } from "~/context.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { formResult, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { formatDate, formatTime } from "~/time";
import { AccountForm } from "../components/AccountForm";
import { accountPage, deleteAccount, saveAccountForm, setEnabled, testAccount } from "../settings.server";

const notFound = () => new Response("Not Found", { status: 404 });

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const page = await accountPage(Number(params.id));
  if (!page) throw notFound();
  const search = new URL(request.url).searchParams;
  const { webhookPath, ...rest } = page;
  return json(
    {
      ...rest,
      webhookUrl: webhookPath ? `${publicOrigin(request)}${webhookPath}` : null,
      timeZone: ctx.workspace.timeZone,
      created: search.has("created"),
      saved: search.has("saved"),
      tested: search.has("tested"),
      confirmDelete: search.get("confirm") === "delete",
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const by = { actor: { id: user.id, name: user.username }, ip: context.clientIp };
  const id = Number(params.id);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const here = `/settings/channels/${id}`;
  switch (intent) {
    case "save": {
      const saved = await saveAccountForm(form, by, id);
      if (!saved.ok) {
        if (saved.status === 404) throw notFound();
        return refuse(saved.result, saved.status);
      }
      return redirect(`${here}?saved=1`);
    }
    case "test":
      if (!(await testAccount(id, by))) throw notFound();
      return redirect(`${here}?tested=1#state`);
    case "enable":
    case "disable":
      if (!(await setEnabled(id, intent === "enable", by))) throw notFound();
      return redirect(`${here}?saved=1`);
    case "delete":
      if (!(await deleteAccount(id, by))) throw notFound();
      return redirect("/settings/channels?deleted=1");
    default:
      return refuse(formResult({ message: "plugin_channels.errors.unknownAction" }));
  }
}

export default function ChannelAccountSettings() {
  const data = useLoaderData<typeof loader>();
  const failed = useFormResult("edit");
  const other = useFormResult();
  const { t } = useTranslation();
  const a = data.account;
  const here = `/settings/channels/${a.id}`;
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <p>
        <Link to="/settings/channels">{t("plugin_channels.back")}</Link>
      </p>
      <h1>
        {a.name} <span className="muted">({t(`channel.${a.kind}`)})</span>
      </h1>
      {data.created ? (
        <p className="notice" role="status">
          {t("plugin_channels.created")}
        </p>
      ) : data.saved ? (
        <p className="notice" role="status">
          {t("settings.updated")}
        </p>
      ) : null}
      {other && !other.intent ? (
        <p className="form-error" role="alert">
          {t(other.message ?? "")}
        </p>
      ) : null}

      <section className="card stack" id="state" aria-labelledby="account-state">
        <h2 id="account-state">{t("plugin_channels.col.state")}</h2>
        <dl>
          <dt>{t("plugin_channels.col.enabled")}</dt>
          <dd data-testid="account-enabled">{a.enabled ? t("plugin_channels.enabled") : t("plugin_channels.disabled")}</dd>
          <dt>{t("plugin_channels.lastTest")}</dt>
          <dd data-testid="account-state" role={data.tested ? "status" : undefined}>
            {t(`plugin_channels.state.${a.state}`)}
            {a.checkedAt ? (
              <span className="muted">
                {" "}
                ({formatDate(a.checkedAt, data.timeZone)} {formatTime(a.checkedAt, data.timeZone)})
              </span>
            ) : null}
            {a.state === "failing" && a.lastError ? <div className="field-error">{deliveryErrorText(t, a.lastError)}</div> : null}
          </dd>
          {a.pausedUntil ? (
            <>
              <dt>{t("plugin_channels.sending")}</dt>
              <dd data-testid="account-paused">
                {t("plugin_channels.pausedUntil", { time: `${formatDate(a.pausedUntil, data.timeZone)} ${formatTime(a.pausedUntil, data.timeZone)}` })}
              </dd>
            </>
          ) : null}
        </dl>
        {data.webhookUrl ? (
          <div className="field">
            <label htmlFor="webhook-url">{t("plugin_channels.webhookUrl")}</label>
            <input id="webhook-url" readOnly value={data.webhookUrl} aria-describedby="webhook-url-help" onFocus={(e) => e.currentTarget.select()} />
            <p id="webhook-url-help" className="muted">
              {t("plugin_channels.webhookHelp")}
            </p>
          </div>
        ) : null}
        <div className="inline-form">
          <Form method="post">
            <button type="submit" name="intent" value="test" className="button">
              {t("plugin_channels.test")}
            </button>
          </Form>
          <Form method="post">
            <button type="submit" name="intent" value={a.enabled ? "disable" : "enable"} className="button">
              {a.enabled ? t("plugin_channels.disable") : t("plugin_channels.enable")}
            </button>
          </Form>
        </div>
      </section>

      <section className="card stack" aria-labelledby="account-edit">
        <h2 id="account-edit">{t("plugin_channels.edit")}</h2>
        <AccountForm
          key={refusalKey(failed, "edit")}
          idPrefix={`a${a.id}`}
          intent="save"
          kind={a.kind}
          fields={data.fields}
          departments={data.departments}
          result={failed}
          defaults={{ name: a.name, address: a.address, departmentId: a.departmentId, config: a.config }}
          secretsSet={a.secretsSet}
        />
      </section>

      <section className="card stack" aria-labelledby="account-delete">
        <h2 id="account-delete">{t("plugin_channels.delete")}</h2>
        {data.confirmDelete ? (
          <Form method="post" className="stack" role="alert">
            <p>{t("plugin_channels.deleteConfirm", { name: a.name })}</p>
            <div className="inline-form">
              <button type="submit" name="intent" value="delete" className="button primary">
                {t("plugin_channels.deleteYes", { name: a.name })}
              </button>
              <Link to={here} className="button">
                {t("plugin_channels.deleteCancel")}
              </Link>
            </div>
          </Form>
        ) : (
          <>
            <p className="muted">{t("plugin_channels.deleteHelp")}</p>
            <p>
              <Link to={`${here}?confirm=delete#account-delete`} className="button">
                {t("plugin_channels.deleteStart")}
              </Link>
            </p>
          </>
        )}
      </section>
    </section>
  );
}

export { AdminOnlyBoundary as ErrorBoundary };
