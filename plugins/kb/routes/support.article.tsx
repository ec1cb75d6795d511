// /support/{type}/{lang}/{id} and /support/{type}/{lang}/{id}/{question} (public): one public
// article, rendered on the server from its Markdown (sanitised), with its title, a meta description
// (its summary, else the start of its text) and the canonical address (with the question part).
// An internal article, or one of another type or language, is not found.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { i18nFor } from "~/i18n";
import { getPublicArticle } from "../kb.server";
import { publicPath } from "../limits";
import { plainText, renderMarkdown } from "../render.server";
import { canonical, PUBLIC_CACHE, supportParams } from "../public.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const { type, lang } = supportParams(params);
  const id = /^\d{1,15}$/.test(params.id ?? "") ? Number(params.id) : 0;
  const article = id ? await getPublicArticle(id, type, lang) : undefined;
  if (!article) throw new Response("Not Found", { status: 404 });
  const description = (article.summary || plainText(article.body)).replace(/\s+/g, " ").slice(0, 160);
  return json(
    {
      type,
      lang,
      title: article.title,
      category: article.category,
      html: renderMarkdown(article.body),
      description,
      productTitle: ctx.edition.title,
      section: i18nFor(lang).t(`plugin_kb.public.${type}`),
      canonical: canonical(request, publicPath(article)),
      updatedAt: new Date(article.updatedAt).toISOString(),
    },
    { headers: { "Cache-Control": ctx.user ? "private, no-store" : PUBLIC_CACHE } },
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data
    ? [
        { title: `${data.title} - ${data.section} - ${data.productTitle}` },
        { name: "description", content: data.description },
        { tagName: "link", rel: "canonical", href: data.canonical },
        { property: "og:title", content: data.title },
        { property: "og:description", content: data.description },
        { property: "og:type", content: "article" },
      ]
    : [{ title: "Not Found" }];

export default function SupportArticle() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="stack kb-public" id="main">
      <nav aria-label={t("plugin_kb.public.breadcrumb")}>
        <Link to={`/support/${data.type}/${data.lang}`}>{data.section}</Link>
        {data.category ? <> · {data.category}</> : null}
      </nav>
      <article className="stack kb-article" lang={data.lang}>
        <h1>{data.title}</h1>
        <div dangerouslySetInnerHTML={{ __html: data.html }} />
        <p className="muted">
          {t("plugin_kb.public.updated")} <time dateTime={data.updatedAt}>{data.updatedAt.slice(0, 10)}</time>
        </p>
      </article>
    </main>
  );
}
