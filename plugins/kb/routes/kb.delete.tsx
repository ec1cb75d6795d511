// /kb/{id}/delete (admins): "Delete this article?" with its title, what goes with it (every
// version, and its public page), and a real form: Delete, or back to the article. Deleting is
// audited (kb.article_deleted) in its transaction; the list then says which article went.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { deleteArticle, getArticle } from "../kb.server";
import { articleIdOf, requireKbAdmin } from "../guard.server";
import { publicPath } from "../limits";

const idOf = articleIdOf;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireKbAdmin(request, context);
  const article = await getArticle(idOf(params.id));
  if (!article) throw new Response("Not Found", { status: 404 });
  return json(
    {
      article: { id: article.id, title: article.title, version: article.version, publicPath: article.visibility === "public" ? publicPath(article) : null },
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user } = await requireKbAdmin(request, context);
  const id = idOf(params.id);
  const article = await getArticle(id);
  // gone already (deleted in another tab): the list, as after a delete
  if (!article || !(await deleteArticle(user, id))) return redirect("/kb");
  return redirect(`/kb?deleted=${encodeURIComponent(article.title)}`);
}

export const meta = pageMeta("plugin_kb.delete.title");

export default function DeleteArticle() {
  const { article } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="stack kb-page narrow">
      <p>
        <Link to={`/kb/${article.id}`}>{t("plugin_kb.delete.back")}</Link>
      </p>
      <h1>{t("plugin_kb.delete.heading", { title: article.title })}</h1>
      <p>{t("plugin_kb.delete.warning", { count: article.version })}</p>
      {article.publicPath ? <p>{t("plugin_kb.delete.public", { path: article.publicPath })}</p> : null}
      <Form method="post" className="inline-form">
        <button type="submit" className="button danger">
          {t("plugin_kb.delete.submit")}
        </button>
        <Link to={`/kb/${article.id}`} className="button">
          {t("plugin_kb.delete.cancel")}
        </Link>
      </Form>
    </section>
  );
}
