// /kb/new and /kb/{id} (admins): an article's title, type, language, category, visibility, summary
// and Markdown body, with an optional image (stored in the product's file storage, its Markdown
// added to the body). "Preview" shows the typed text rendered (sanitised) without saving; "Save"
// keeps the previous text as a version. A plain multipart form: works without JavaScript, and a
// refusal (a missing title, an image over the limit) shows its reason and keeps what was typed.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { formResult, readFormResult, refusalKey } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { ArticleFields } from "../components/ArticleFields";
import { readArticleForm } from "../form.server";
import { createArticle, getArticle, updateArticle, type ArticleValues } from "../kb.server";
import { requireKbAdmin } from "../guard.server";
import { ARTICLE_FIELDS, IMAGE_MAX_BYTES, publicPath } from "../limits";
import { renderMarkdown } from "../render.server";

const idOf = (raw: string | undefined) => {
  if (raw === undefined) return undefined;
  const id = Number(raw);
  if (!/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) throw new Response("Not Found", { status: 404 });
  return id;
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireKbAdmin(request, context);
  const id = idOf(params.id);
  const row = id ? await getArticle(id) : undefined;
  if (id && !row) throw new Response("Not Found", { status: 404 });
  const saved = new URL(request.url).searchParams.has("saved");
  return json(
    {
      article: row
        ? {
            id: row.id,
            version: row.version,
            values: Object.fromEntries(ARTICLE_FIELDS.map((f) => [f, String(row[f])])) as Record<string, string>,
            html: renderMarkdown(row.body),
            publicPath: row.visibility === "public" ? publicPath(row) : null,
          }
        : null,
      saved,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user } = await requireKbAdmin(request, context);
  const id = idOf(params.id);
  const read = await readArticleForm(request);
  const values = Object.fromEntries(ARTICLE_FIELDS.map((f) => [f, read.fields[f] ?? ""])) as ArticleValues;
  if (read.tooLarge)
    return refuse(
      formResult({ errors: { image: "plugin_kb.errors.imageTooLarge" }, values, messageValues: { size: String(IMAGE_MAX_BYTES / 1024 / 1024) } }),
      413,
    );
  if (read.fields.intent === "preview") return json({ preview: renderMarkdown(values.body), values });
  const outcome = id
    ? await updateArticle(user, id, { ...values, version: read.fields.version ?? "" }, read.image)
    : await createArticle(user, values, read.image);
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`/kb/${outcome.id}?saved=1`);
}

export const meta = pageMeta<{ article: { values: Record<string, string> } | null }>((d) => (d?.article ? "plugin_kb.edit.title" : "plugin_kb.new.title"));

export default function EditArticle() {
  const data = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const location = useLocation();
  const navigation = useNavigation();
  const failed = readFormResult(answer);
  const preview = answer && "preview" in answer ? answer : null;
  const values = failed?.values ?? preview?.values ?? data.article?.values ?? {};
  const html = preview?.preview ?? data.article?.html ?? null;
  const heading = data.article ? t("plugin_kb.edit.title") : t("plugin_kb.new.title");
  return (
    <section className="stack kb-page">
      <p>
        <Link to="/kb">{t("plugin_kb.back")}</Link>
        {data.article ? (
          <>
            {" · "}
            <Link to={`/kb/${data.article.id}/history`}>{t("plugin_kb.history.title")}</Link>
            {" · "}
            <Link to={`/kb/${data.article.id}/delete`}>{t("plugin_kb.edit.delete")}</Link>
            {data.article.publicPath ? (
              <>
                {" · "}
                <Link to={data.article.publicPath}>{t("plugin_kb.edit.publicPage")}</Link>
              </>
            ) : null}
          </>
        ) : null}
      </p>
      <h1>{heading}</h1>
      {data.saved && !answer ? (
        <p role="status" className="notice">
          {t("plugin_kb.edit.saved", { version: data.article?.version })}
        </p>
      ) : null}
      <Form method="post" encType="multipart/form-data" noValidate className="stack narrow" key={refusalKey(failed, location.key)}>
        <FormMessage result={failed} />
        {data.article ? <input type="hidden" name="version" value={data.article.version} /> : null}
        <ArticleFields values={values} failed={failed} />
        <div className="inline-form">
          <button type="submit" name="intent" value="save" className="button primary" disabled={navigation.state === "submitting"}>
            {t("plugin_kb.edit.save")}
          </button>
          <button type="submit" name="intent" value="preview" className="button">
            {t("plugin_kb.edit.preview")}
          </button>
        </div>
      </Form>
      {html !== null ? (
        <section className="stack kb-preview" aria-labelledby="kb-preview-title">
          <h2 id="kb-preview-title">{t("plugin_kb.edit.previewTitle")}</h2>
          <div className="kb-article" data-testid="kb-preview" dangerouslySetInnerHTML={{ __html: html }} />
        </section>
      ) : null}
    </section>
  );
}
