// /kb/{id}/history (admins): every earlier version of an article, newest first, each shown rendered
// (sanitised) with a Restore button; restoring is a save, so the text it replaces is kept too.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formatter } from "~/time";
import { getArticle, listVersions, restoreVersion } from "../kb.server";
import { articleIdOf, requireKbAdmin } from "../guard.server";
import { renderMarkdown } from "../render.server";

const idOf = articleIdOf;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const ctx = await requireKbAdmin(request, context);
  const id = idOf(params.id);
  const article = await getArticle(id);
  if (!article) throw new Response("Not Found", { status: 404 });
  const when = formatter(ctx.workspace.timeZone, "clock");
  const versions = await listVersions(id);
  return json(
    {
      article: { id, title: article.title, version: article.version },
      versions: versions.map((v) => ({
        version: v.version,
        title: v.title,
        visibility: v.visibility,
        editor: v.editor,
        at: when.format(v.createdAt),
        html: renderMarkdown(v.body),
      })),
      restored: new URL(request.url).searchParams.get("restored"),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user } = await requireKbAdmin(request, context);
  const id = idOf(params.id);
  const form = await request.formData();
  const version = Number(form.get("version"));
  const outcome = await restoreVersion(user, id, Number.isSafeInteger(version) ? version : 0);
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`/kb/${id}/history?restored=${version}`);
}

export const meta = pageMeta("plugin_kb.history.title");

export default function History() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult();
  return (
    <section className="stack kb-page">
      <p>
        <Link to={`/kb/${data.article.id}`}>{t("plugin_kb.history.back")}</Link>
      </p>
      <h1>{t("plugin_kb.history.heading", { title: data.article.title })}</h1>
      <p>{t("plugin_kb.history.current", { version: data.article.version })}</p>
      {data.restored ? (
        <p role="status" className="notice">
          {t("plugin_kb.history.restored", { version: data.restored })}
        </p>
      ) : null}
      <FormMessage result={failed} />
      {data.versions.length ? (
        <ol className="stack kb-versions" reversed>
          {data.versions.map((v) => (
            <li key={v.version} className="stack" data-testid={`kb-version-${v.version}`}>
              <h2>{t("plugin_kb.history.version", { version: v.version, title: v.title })}</h2>
              <p className="muted">{t("plugin_kb.history.by", { name: v.editor ?? t("plugin_kb.nobody"), at: v.at })}</p>
              <details>
                <summary>{t("plugin_kb.history.show")}</summary>
                <div className="kb-article" dangerouslySetInnerHTML={{ __html: v.html }} />
              </details>
              <Form method="post">
                <input type="hidden" name="version" value={v.version} />
                <button type="submit" className="button" aria-label={t("plugin_kb.history.restoreVersion", { version: v.version })}>
                  {t("plugin_kb.history.restore")}
                </button>
              </Form>
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted">{t("plugin_kb.history.none")}</p>
      )}
    </section>
  );
}
