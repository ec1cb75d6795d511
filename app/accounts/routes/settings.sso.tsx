// Admins: the OpenID Connect providers users may sign in with. Plain forms, no JS needed; the
// client secret is write-only (never shown back; left empty on an edit, the stored one stays).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { publicOrigin, requireAdmin } from "~/context.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { DEFAULT_SCOPES, listProviders, providerSchema, redirectUri, removeProvider, saveProvider, setProviderEnabled } from "~/accounts/sso.server";
import { formError, formResult, formValues, readFormResult, refusalKey, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { pageMeta } from "~/meta";

const FIELDS = ["name", "issuer", "clientId", "clientSecret", "scopes"] as const;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const url = new URL(request.url);
  const providers = await listProviders();
  return json({
    saved: url.searchParams.get("saved"),
    removed: url.searchParams.has("removed"),
    providers: providers.map((p) => ({ ...p, redirectUri: redirectUri(publicOrigin(request), p.id) })),
    // what the next one's redirect URI will look like, before it has an id
    redirectPattern: redirectUri(publicOrigin(request), 0).replace("/0/", "/<id>/"),
    defaultScopes: DEFAULT_SCOPES,
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const actor = { id: user.id, name: user.username };
  const ip = context.clientIp;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = Number(form.get("id"));

  if (intent === "enable" || intent === "disable") {
    if (!(await setProviderEnabled(id, intent === "enable", actor, ip))) throw new Response("Not Found", { status: 404 });
    return redirect(`/settings/sso?saved=${id}#provider-${id}`);
  }
  if (intent === "delete") {
    if (!(await removeProvider(id, actor, ip))) throw new Response("Not Found", { status: 404 });
    return redirect("/settings/sso?removed=1");
  }
  if (intent !== "add" && intent !== "edit") return refuse(formResult({ message: "sso.errors.unknownAction" }));

  const formIntent = intent === "add" ? "add" : `edit-${id}`;
  // the secret is never sent back
  const { clientSecret: _secret, ...values } = formValues(form, FIELDS);
  const parsed = providerSchema().safeParse(formValues(form, FIELDS));
  if (!parsed.success) return refuse(formError(parsed.error, values, formIntent));
  const saved = await saveProvider(parsed.data, actor, ip, intent === "edit" ? id : undefined);
  if (!saved.ok)
    return refuse(formResult({ intent: formIntent, errors: { [saved.field]: saved.error }, values }), saved.error === "sso.errors.notFound" ? 404 : 400);
  return redirect(`/settings/sso?saved=${saved.id}#provider-${saved.id}`);
}

export const meta = pageMeta("sso.title");

export default function SsoSettings() {
  const data = useLoaderData<typeof loader>();
  const result = useFormResult();
  const { t } = useTranslation();
  const added = readFormResult(result, "add");
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("sso.title")}</h1>
      <p className="muted">{t("sso.help")}</p>
      {data.removed ? (
        <p className="notice" role="status">
          {t("sso.removed")}
        </p>
      ) : null}
      {result && !result.intent ? <FormMessage result={result} /> : null}

      <section className="stack" aria-labelledby="sso-providers">
        <h2 id="sso-providers">{t("sso.providers")}</h2>
        {data.providers.length ? null : <p className="muted">{t("sso.none")}</p>}
        {data.providers.map((p) => {
          const failed = readFormResult(result, `edit-${p.id}`);
          const headingId = `provider-${p.id}-name`;
          return (
            <article key={p.id} id={`provider-${p.id}`} className="card stack" aria-labelledby={headingId}>
              <h3 id={headingId}>
                {p.name} <span className="muted">({p.enabled ? t("sso.enabled") : t("sso.disabled")})</span>
              </h3>
              {data.saved === String(p.id) ? (
                <p className="notice" role="status">
                  {t("sso.saved")}
                </p>
              ) : null}
              <dl>
                <dt>{t("sso.issuer")}</dt>
                <dd>
                  <code>{p.issuer}</code>
                </dd>
                <dt>{t("sso.clientId")}</dt>
                <dd>
                  <code>{p.clientId}</code>
                </dd>
                <dt>{t("sso.clientSecret")}</dt>
                <dd>{p.hasSecret ? t("sso.secretStored") : t("sso.secretNone")}</dd>
                <dt>{t("sso.scopes")}</dt>
                <dd>
                  <code>{p.scopes}</code>
                </dd>
                <dt>{t("sso.redirectUri")}</dt>
                <dd>
                  <code data-testid={`redirect-uri-${p.id}`}>{p.redirectUri}</code>
                  <br />
                  <span className="muted">{t("sso.redirectHelp")}</span>
                </dd>
              </dl>
              <div className="inline-form">
                <Form method="post">
                  <input type="hidden" name="id" value={p.id} />
                  <button type="submit" name="intent" value={p.enabled ? "disable" : "enable"} className="button">
                    {p.enabled ? t("sso.disable", { name: p.name }) : t("sso.enable", { name: p.name })}
                  </button>
                </Form>
                <Form method="post">
                  <input type="hidden" name="id" value={p.id} />
                  <button type="submit" name="intent" value="delete" className="button">
                    {t("sso.delete", { name: p.name })}
                  </button>
                </Form>
              </div>
              <details open={!!failed}>
                <summary>{t("sso.edit", { name: p.name })}</summary>
                <ProviderForm
                  key={refusalKey(failed, "edit")}
                  idPrefix={`p${p.id}`}
                  intent="edit"
                  id={p.id}
                  result={failed}
                  defaults={{ name: p.name, issuer: p.issuer, clientId: p.clientId, scopes: p.scopes }}
                  hasSecret={p.hasSecret}
                />
              </details>
            </article>
          );
        })}
      </section>

      <section className="card stack" aria-labelledby="sso-add">
        <h2 id="sso-add">{t("sso.add")}</h2>
        <p className="muted">{t("sso.addHelp", { uri: data.redirectPattern })}</p>
        <ProviderForm key={refusalKey(added, "add")} idPrefix="new" intent="add" result={added} defaults={{ scopes: data.defaultScopes }} hasSecret={false} />
      </section>
    </section>
  );
}

function ProviderForm(props: {
  idPrefix: string;
  intent: "add" | "edit";
  id?: number;
  result: FormResult | undefined;
  defaults: Partial<Record<(typeof FIELDS)[number], string>>;
  hasSecret: boolean;
}) {
  const { t } = useTranslation();
  const { idPrefix, result } = props;
  const errors = result?.errors ?? {};
  const value = (name: (typeof FIELDS)[number]) => result?.values[name] ?? props.defaults[name] ?? "";
  const field = (name: (typeof FIELDS)[number], label: string, extra: { type?: string; help?: string; autoComplete?: string } = {}) => {
    const inputId = `${idPrefix}-${name}`;
    const describedBy = [errors[name] ? `${inputId}-error` : "", extra.help ? `${inputId}-help` : ""].filter(Boolean).join(" ");
    return (
      <div className="stack">
        <label htmlFor={inputId}>{label}</label>
        <input
          id={inputId}
          name={name}
          type={extra.type ?? "text"}
          autoComplete={extra.autoComplete ?? "off"}
          defaultValue={name === "clientSecret" ? "" : value(name)}
          aria-invalid={!!errors[name]}
          aria-describedby={describedBy || undefined}
        />
        {extra.help ? (
          <p id={`${inputId}-help`} className="muted">
            {extra.help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${inputId}-error`} className="field-error">
            {t(errors[name], result?.messageValues)}
          </p>
        ) : null}
      </div>
    );
  };
  return (
    <Form method="post" noValidate className="stack narrow">
      <input type="hidden" name="intent" value={props.intent} />
      {props.id !== undefined ? <input type="hidden" name="id" value={props.id} /> : null}
      <FormMessage result={result} />
      {field("name", t("sso.name"), { help: t("sso.nameHelp") })}
      {field("issuer", t("sso.issuer"), { type: "url", help: t("sso.issuerHelp") })}
      {field("clientId", t("sso.clientId"))}
      {field("clientSecret", t("sso.clientSecret"), {
        type: "password",
        autoComplete: "new-password",
        help: props.hasSecret ? t("sso.secretKeep") : t("sso.secretHelp"),
      })}
      {field("scopes", t("sso.scopes"), { help: t("sso.scopesHelp") })}
      <button type="submit" className="button primary">
        {props.intent === "add" ? t("sso.addSubmit") : t("sso.save")}
      </button>
    </Form>
  );
}
