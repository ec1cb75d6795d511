// /support/{type}/{lang} (public; /support/kb/en and /support/manual/en are the entry points): the
// public articles of that type and language by category, or those matching the search (full text).
// Rendered on the server, with a title, a meta description and a canonical link; internal articles
// never show here.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { i18nFor } from "~/i18n";
import { listArticles } from "../kb.server";
import { KB_LANGS, KB_TYPES, publicPath, QUERY_MAX } from "../limits";
import { canonical, PUBLIC_CACHE, supportParams } from "../public.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const { type, lang } = supportParams(params);
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, QUERY_MAX);
  const list = await listArticles({ q, type, lang, includeInternal: false, pageSize: q ? 50 : 500 });
  const t = i18nFor(lang).t;
  const heading = t(`plugin_kb.public.${type}`);
  return json(
    {
      type,
      lang,
      q,
      heading,
      description: t("plugin_kb.public.description", { product: ctx.edition.title }),
      productTitle: ctx.edition.title,
      canonical: canonical(request, `/support/${type}/${lang}`),
      total: list.total,
      articles: list.articles.map((a) => ({ id: a.id, title: a.title, summary: a.summary, category: a.category, path: publicPath(a) })),
    },
    { headers: { "Cache-Control": q || ctx.user ? "private, no-store" : PUBLIC_CACHE } },
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  data
    ? [
        { title: `${data.q ? `${data.q} · ` : ""}${data.heading} - ${data.productTitle}` },
        { name: "description", content: data.description },
        { tagName: "link", rel: "canonical", href: data.canonical },
        ...(data.q ? [{ name: "robots", content: "noindex" }] : []),
      ]
    : [];

export default function SupportList() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const byCategory = new Map<string, typeof data.articles>();
  for (const a of data.articles) byCategory.set(a.category, [...(byCategory.get(a.category) ?? []), a]);
  return (
    <main className="stack kb-public" id="main">
      <nav aria-label={t("plugin_kb.public.sections")} className="inline-form">
        {KB_TYPES.map((ty) => (
          <Link key={ty} to={`/support/${ty}/${data.lang}`} aria-current={ty === data.type ? "page" : undefined}>
            {t(`plugin_kb.public.${ty}`)}
          </Link>
        ))}
        <span aria-hidden="true">·</span>
        {KB_LANGS.map((l) => (
          <Link key={l} to={`/support/${data.type}/${l}`} lang={l} aria-current={l === data.lang ? "page" : undefined}>
            {t(`plugin_kb.lang.${l}`)}
          </Link>
        ))}
      </nav>
      <h1>{data.heading}</h1>
      <Form method="get" role="search" className="inline-form" aria-label={t("plugin_kb.list.search")}>
        <div className="stack">
          <label htmlFor="support-q">{t("plugin_kb.list.searchLabel")}</label>
          <input id="support-q" name="q" type="search" defaultValue={data.q} maxLength={QUERY_MAX} />
        </div>
        <div>
          <button type="submit" className="button">
            {t("plugin_kb.list.searchButton")}
          </button>
        </div>
      </Form>
      {data.q ? <h2>{t("plugin_kb.public.results", { count: data.total, q: data.q })}</h2> : null}
      {data.articles.length ? (
        [...byCategory].map(([category, articles]) => (
          <section key={category} className="stack" aria-label={category || t("plugin_kb.public.general")}>
            {data.q ? null : <h2>{category || t("plugin_kb.public.general")}</h2>}
            <ul>
              {articles.map((a) => (
                <li key={a.id} lang={data.lang}>
                  <Link to={a.path}>{a.title}</Link>
                  {a.summary ? <p className="muted">{a.summary}</p> : null}
                </li>
              ))}
            </ul>
          </section>
        ))
      ) : (
        <p className="muted">{t(data.q ? "plugin_kb.public.noResults" : "plugin_kb.public.empty")}</p>
      )}
    </main>
  );
}
