// /call_config (admins, or agents with call_settings; spec section 6): the agents' SIP accounts
// (extension, password, active) the softphone registers with. Plain forms: they work without
// JavaScript; a refusal keeps what was typed (never the password).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { FormMessage } from "~/components/FormMessage";
import { TableScroll } from "~/components/TableScroll";
import { formError, formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { deleteSipAccount, listSipAccounts, saveSipAccount, sipAccountForm, sipCandidates, sipServer } from "../sip.server";
import { requireCallSettings } from "../guard.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireCallSettings(request);
  const params = new URL(request.url).searchParams;
  const server = sipServer();
  return json(
    {
      accounts: await listSipAccounts(),
      users: await sipCandidates(),
      server: { url: `${server.wsScheme}://${server.host}:${server.wsPort}`, domain: server.domain },
      saved: params.has("saved"),
      deleted: params.has("deleted"),
      edit: Number(params.get("edit")) || null,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const FIELDS = ["userId", "sipNumber", "password", "active"] as const;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { user } = await requireCallSettings(request);
  const form = await request.formData();
  const by = { actor: { id: user.id, name: user.username }, ip: String(context.clientIp ?? "") };
  const intent = String(form.get("intent") ?? "");
  if (intent === "delete") {
    const id = z.coerce.number().int().positive().safeParse(form.get("id"));
    if (!id.success || !(await deleteSipAccount(id.data, by))) return refuse(formResult({ intent: "delete", message: "plugin_calls.errors.gone" }), 404);
    return redirect("/call_config?deleted=1");
  }
  const values = formValues(form, FIELDS);
  // the password is never sent back
  const kept = { ...values, password: "" };
  const parsed = sipAccountForm.safeParse(values);
  if (!parsed.success) return refuse(formError(parsed.error, kept, "save"));
  const saved = await saveSipAccount(parsed.data, by);
  if (!saved.ok) return refuse(formResult({ intent: "save", errors: saved.errors, values: kept }), saved.errors.sipNumber ? 409 : 400);
  return redirect("/call_config?saved=1");
}

export const meta = pageMeta("plugin_calls.menu.call_config");

export default function CallConfig() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const refused = useFormResult("save");
  const refusedDelete = useFormResult("delete");
  const editing = data.accounts.find((a) => a.id === data.edit) ?? null;
  const value = (name: (typeof FIELDS)[number], fallback: string) => refused?.values[name] ?? fallback;
  const error = (name: string) => refused?.errors[name];
  const activeChecked = refused ? refused.values.active === "1" : editing ? editing.active : true;
  return (
    <section className="settings stack">
      <h1>{t("plugin_calls.config.title")}</h1>
      <p className="muted">{t("plugin_calls.config.help", { url: data.server.url, domain: data.server.domain })}</p>
      {data.saved ? (
        <p className="notice" role="status">
          {t("plugin_calls.config.saved")}
        </p>
      ) : null}
      {data.deleted ? (
        <p className="notice" role="status">
          {t("plugin_calls.config.deleted")}
        </p>
      ) : null}
      <FormMessage result={refusedDelete} />

      <section className="stack" aria-labelledby="sip-accounts">
        <h2 id="sip-accounts">{t("plugin_calls.config.accounts")}</h2>
        {data.accounts.length ? (
          <TableScroll label={t("plugin_calls.config.accounts")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_calls.config.sipNumber")}</th>
                  <th scope="col">{t("plugin_calls.config.agent")}</th>
                  <th scope="col">{t("plugin_calls.config.state")}</th>
                  <th scope="col">{t("plugin_calls.config.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {data.accounts.map((a) => (
                  <tr key={a.id} data-testid={`sip-account-${a.sipNumber}`}>
                    <td>{a.sipNumber}</td>
                    <td>
                      {a.name} ({a.username})
                    </td>
                    <td>{a.active ? t("plugin_calls.config.active") : t("plugin_calls.config.inactive")}</td>
                    <td className="inline-form">
                      <a className="button" href={`/call_config?edit=${a.id}#sip-form`} aria-label={t("plugin_calls.config.editOf", { number: a.sipNumber })}>
                        {t("plugin_calls.config.edit")}
                      </a>
                      <Form method="post">
                        <input type="hidden" name="intent" value="delete" />
                        <input type="hidden" name="id" value={a.id} />
                        <button type="submit" className="button danger" aria-label={t("plugin_calls.config.deleteOf", { number: a.sipNumber })}>
                          {t("plugin_calls.config.delete")}
                        </button>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_calls.config.none")}</p>
        )}
      </section>

      <section className="card stack" aria-labelledby="sip-form-title" id="sip-form">
        <h2 id="sip-form-title">{editing ? t("plugin_calls.config.editTitle", { number: editing.sipNumber }) : t("plugin_calls.config.add")}</h2>
        <Form method="post" className="stack" key={refusalKey(refused, `${location.key}-${data.edit ?? ""}`)} noValidate>
          <input type="hidden" name="intent" value="save" />
          <div className="field">
            <label htmlFor="sip-user">{t("plugin_calls.config.agent")}</label>
            <select
              id="sip-user"
              name="userId"
              defaultValue={value("userId", editing ? String(editing.userId) : "")}
              aria-invalid={error("userId") ? true : undefined}
              aria-describedby={error("userId") ? "sip-user-error" : undefined}
            >
              <option value="">{t("plugin_calls.config.chooseAgent")}</option>
              {data.users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({u.username})
                </option>
              ))}
            </select>
            {error("userId") ? (
              <p className="field-error" id="sip-user-error">
                {t(error("userId")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="sip-number">{t("plugin_calls.config.sipNumber")}</label>
            <input
              id="sip-number"
              name="sipNumber"
              inputMode="numeric"
              autoComplete="off"
              defaultValue={value("sipNumber", editing?.sipNumber ?? "")}
              aria-invalid={error("sipNumber") ? true : undefined}
              aria-describedby={error("sipNumber") ? "sip-number-error" : undefined}
            />
            {error("sipNumber") ? (
              <p className="field-error" id="sip-number-error">
                {t(error("sipNumber")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="sip-password">{t("plugin_calls.config.password")}</label>
            <input
              id="sip-password"
              name="password"
              type="password"
              autoComplete="new-password"
              aria-invalid={error("password") ? true : undefined}
              aria-describedby={`sip-password-help${error("password") ? " sip-password-error" : ""}`}
            />
            <p className="muted" id="sip-password-help">
              {editing ? t("plugin_calls.config.passwordKeep") : t("plugin_calls.config.passwordHelp")}
            </p>
            {error("password") ? (
              <p className="field-error" id="sip-password-error">
                {t(error("password")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label>
              <input type="checkbox" name="active" value="1" defaultChecked={activeChecked} /> {t("plugin_calls.config.active")}
            </label>
          </div>
          <button type="submit" className="button primary">
            {t("common.save")}
          </button>
        </Form>
      </section>
    </section>
  );
}

export const ErrorBoundary = deniedBoundary("plugin_calls.config.denied");
