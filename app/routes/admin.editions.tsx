// Admin: which plugins each edition enables and which hosts it answers. Plain forms, no JS needed.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { requestContext, requireAdmin } from "~/context.server";
import { HOST_PATTERN, listEditions, parseHostPatterns, saveEdition } from "~/models/editions.server";
import { plugins } from "~/plugins/registry.server";
import { translatorFor } from "~/i18n.server";
import { formError, formValues, readFormResult, refusalKey, useFormResult, valueList } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const editions = await listEditions();
  const t = translatorFor(ctx.language);
  return json({
    saved: new URL(request.url).searchParams.get("saved"),
    editions: editions.map((e) => ({ id: e.id, title: e.title, hosts: e.hosts, enabled: e.enabled })),
    plugins: plugins().map((p) => ({ id: p.id, title: t(p.title), status: p.status })),
  });
}

/**
 * One edition's form: its host patterns (one bad one is named in the error) and its plugins. A
 * function, so the browser bundle drops it with the action and its server imports.
 */
function editionSchema() {
  return z.object({
    edition: z.string(),
    hosts: z
      .string()
      .transform(parseHostPatterns)
      .superRefine((hosts, ctx) => {
        const host = hosts.find((h) => !HOST_PATTERN.test(h));
        if (host) ctx.addIssue({ code: "custom", message: "editions.badHost", params: { host } });
      }),
    plugins: z.string().transform(valueList),
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const values = formValues(form, ["edition", "hosts", "plugins"]);
  const parsed = editionSchema().safeParse(values);
  // the typed hosts and ticked plugins come back, so a no-JS form shows them again; the edition
  // is the intent: the error shows in its own form
  if (!parsed.success) return refuse(formError(parsed.error, values, values.edition));
  const { edition, plugins, hosts } = parsed.data;
  await saveEdition(edition, plugins, hosts, { actor: user, ip: context.clientIp });
  return redirect(`/admin/editions?saved=${encodeURIComponent(edition)}#edition-${edition}`);
}

export const meta = pageMeta("editions.title");

export default function AdminEditions() {
  const data = useLoaderData<typeof loader>();
  const result = useFormResult();
  const { t } = useTranslation();
  return (
    <section className="stack">
      <h1>{t("editions.title")}</h1>
      <p className="muted">{t("editions.help")}</p>
      {data.editions.map((edition) => {
        const failed = readFormResult(result, edition.id);
        return (
          <Form
            key={`${edition.id}-${refusalKey(failed, "")}`}
            method="post"
            className="card stack"
            id={`edition-${edition.id}`}
            aria-labelledby={`edition-${edition.id}-title`}
          >
            <h2 id={`edition-${edition.id}-title`}>
              {edition.title} <code>{edition.id}</code>
            </h2>
            {data.saved === edition.id ? (
              <p className="notice" role="status">
                {t("settings.updated")}
              </p>
            ) : null}
            <input type="hidden" name="edition" value={edition.id} />
            <label>
              {t("editions.hosts")}
              <textarea name="hosts" rows={2} defaultValue={failed ? failed.values.hosts : edition.hosts.join("\n")} disabled={edition.id === "default"} />
            </label>
            {edition.id === "default" ? <p className="muted">{t("editions.defaultHosts")}</p> : null}
            {failed?.errors.hosts ? (
              <p className="field-error" role="alert">
                {t(failed.errors.hosts, failed.messageValues)}
              </p>
            ) : null}
            <fieldset className="plugin-grid">
              <legend>{t("editions.plugins")}</legend>
              {data.plugins.map((plugin) => (
                <label key={plugin.id}>
                  <input
                    type="checkbox"
                    name="plugins"
                    value={plugin.id}
                    defaultChecked={(failed ? valueList(failed.values.plugins) : edition.enabled).includes(plugin.id)}
                  />
                  {plugin.title}
                  {plugin.status === "planned" ? <span className="badge">{t("editions.planned")}</span> : null}
                </label>
              ))}
            </fieldset>
            <button type="submit" className="button primary">
              {t("common.save")}
            </button>
          </Form>
        );
      })}
    </section>
  );
}

export { AdminOnlyBoundary as ErrorBoundary } from "~/components/AdminOnly";
