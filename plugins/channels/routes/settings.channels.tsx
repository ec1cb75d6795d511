// /settings/channels (admins): every channel account, the form to add one of any connectable kind
// (chosen with a plain GET form, so it works without JavaScript), and what cannot get through:
// replies waiting for a mail server, failed deliveries, refused incoming messages.
import { deliveryErrorText } from "~/conversation/delivery";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext, requireAdmin } from "~/context.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { formatDate, formatTime } from "~/time";
import { AccountForm } from "../components/AccountForm";
import { channelsPage, saveAccountForm } from "../settings.server";
import { pageMeta } from "~/meta";
import { TableScroll } from "~/components/TableScroll";
import { ChannelName } from "~/components/ChannelName";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const params = new URL(request.url).searchParams;
  const page = await channelsPage();
  const asked = params.get("kind");
  return json(
    {
      ...page,
      kind: page.kinds.some((k) => k.kind === asked) ? asked : (page.kinds[0]?.kind ?? null),
      deleted: params.has("deleted"),
      timeZone: ctx.workspace.timeZone,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const saved = await saveAccountForm(form, { actor: { id: user.id, name: user.username }, ip: context.clientIp });
  if (!saved.ok) return refuse(saved.result, saved.status);
  return redirect(`/settings/channels/${saved.id}?created=1`);
}

export const meta = pageMeta("plugin_channels.title");

export default function ChannelSettings() {
  const data = useLoaderData<typeof loader>();
  const added = useFormResult("add");
  const { t } = useTranslation();
  // after a refused add, the form of the kind that was posted
  const kind = added?.values.kind && data.kinds.some((k) => k.kind === added.values.kind) ? added.values.kind : data.kind;
  const form = data.kinds.find((k) => k.kind === kind);
  const when = (at: number) => `${formatDate(at, data.timeZone)} ${formatTime(at, data.timeZone)}`;
  const departmentName = (id: number | null) => data.departments.find((d) => d.id === id)?.name ?? "";
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("plugin_channels.title")}</h1>
      <p className="muted">{t("plugin_channels.help.page")}</p>
      {data.deleted ? (
        <p className="notice" role="status">
          {t("plugin_channels.deleted")}
        </p>
      ) : null}

      {data.trouble.waiting > 0 ? (
        <section className="card stack" role="status" aria-labelledby="channels-no-mail" data-testid="no-mail-server">
          <h2 id="channels-no-mail">{t("plugin_channels.noMail.title")}</h2>
          <p>{t("plugin_channels.noMail.waiting", { count: data.trouble.waiting })}</p>
          <p className="muted">{t("plugin_channels.noMail.hint")}</p>
        </section>
      ) : null}
      {data.trouble.failed > 0 ? <p className="field-error">{t("plugin_channels.failedDeliveries", { count: data.trouble.failed })}</p> : null}

      <section className="stack" aria-labelledby="channels-accounts">
        <h2 id="channels-accounts">{t("plugin_channels.accounts")}</h2>
        {data.accounts.length ? (
          <TableScroll label={t("plugin_channels.accounts")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_channels.field.name")}</th>
                  <th scope="col">{t("plugin_channels.col.kind")}</th>
                  <th scope="col">{t("plugin_channels.field.address")}</th>
                  <th scope="col">{t("plugin_channels.field.department")}</th>
                  <th scope="col">{t("plugin_channels.col.enabled")}</th>
                  <th scope="col">{t("plugin_channels.col.state")}</th>
                </tr>
              </thead>
              <tbody>
                {data.accounts.map((a) => (
                  <tr key={a.id} data-testid={`channel-account-${a.id}`}>
                    <td>
                      <Link to={`/settings/channels/${a.id}`}>{a.name}</Link>
                    </td>
                    <td>
                      <ChannelName channel={a.kind} className="channel-name" />
                    </td>
                    <td>
                      <code>{a.address}</code>
                    </td>
                    <td>{departmentName(a.departmentId)}</td>
                    <td>{a.enabled ? t("plugin_channels.enabled") : t("plugin_channels.disabled")}</td>
                    <td>
                      {t(`plugin_channels.state.${a.state}`)}
                      {a.checkedAt ? <span className="muted"> ({when(a.checkedAt)})</span> : null}
                      {a.state === "failing" && a.lastError ? <div className="field-error">{deliveryErrorText(t, a.lastError)}</div> : null}
                      {a.pausedUntil ? <div data-testid="account-paused">{t("plugin_channels.pausedUntil", { time: when(a.pausedUntil) })}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_channels.none")}</p>
        )}
      </section>

      <section className="card stack" aria-labelledby="channels-add" id="add">
        <h2 id="channels-add">{t("plugin_channels.add")}</h2>
        {data.kinds.length === 0 ? (
          <p className="muted">{t("plugin_channels.noKinds")}</p>
        ) : (
          <>
            {/* choosing the kind is a GET: the page comes back with that kind's form, JavaScript or not */}
            <Form method="get" className="inline-form" preventScrollReset>
              <label htmlFor="channels-kind">{t("plugin_channels.col.kind")}</label>
              <select id="channels-kind" name="kind" defaultValue={kind ?? undefined} key={kind}>
                {data.kinds.map((k) => (
                  <option key={k.kind} value={k.kind}>
                    {t(`channel.${k.kind}`)}
                  </option>
                ))}
              </select>
              <button type="submit" className="button">
                {t("plugin_channels.chooseKind")}
              </button>
            </Form>
            {form ? (
              <>
                <h3>{t("plugin_channels.addTitle", { kind: t(`channel.${form.kind}`) })}</h3>
                <AccountForm
                  key={`${form.kind}-${refusalKey(added, "add")}`}
                  idPrefix="new"
                  intent="add"
                  kind={form.kind}
                  fields={form.fields}
                  departments={data.departments}
                  result={added}
                />
              </>
            ) : null}
          </>
        )}
      </section>

      {data.refused.length ? (
        <section className="stack" aria-labelledby="channels-refused">
          <h2 id="channels-refused">{t("plugin_channels.refused.title")}</h2>
          <p className="muted">{t("plugin_channels.refused.help")}</p>
          <TableScroll label={t("plugin_channels.refused.title")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_channels.refused.receivedAt")}</th>
                  <th scope="col">{t("plugin_channels.refused.source")}</th>
                  <th scope="col">{t("plugin_channels.refused.reason")}</th>
                </tr>
              </thead>
              <tbody>
                {data.refused.map((e) => (
                  <tr key={e.id}>
                    <td>{when(e.receivedAt)}</td>
                    <td>{[e.provider, e.source].filter(Boolean).join(" / ")}</td>
                    <td>{e.reason ?? t(`plugin_channels.refused.${e.state === "failed" ? "failed" : "quarantined"}`)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </section>
      ) : null}
    </section>
  );
}

export { AdminOnlyBoundary as ErrorBoundary };
