// /kb: the articles (admins and agents, unless hide_case), searched by full text and filtered by
// type, language and category; internal ones marked. Admins get "New article" and the edit links.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { categories, listArticles } from "../kb.server";
import { requireKbUser } from "../guard.server";
import { isLang, isType, KB_LANGS, KB_TYPES, publicPath, QUERY_MAX } from "../limits";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireKbUser(request, context);
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").slice(0, QUERY_MAX);
  const type = url.searchParams.get("type") ?? "";
  const lang = url.searchParams.get("lang") ?? "";
  const category = url.searchParams.get("category") ?? "";
  const page = Math.max(1, Math.min(10_000, Number(url.searchParams.get("page")) || 1));
  const query = {
    q,
    type: isType(type) ? type : undefined,
    lang: isLang(lang) ? lang : undefined,
    category: category || undefined,
    includeInternal: true,
    page,
  };
  const [list, cats] = await Promise.all([listArticles(query), categories({ includeInternal: true })]);
  return json(
    {
      ...list,
      articles: list.articles.map((a) => ({ ...a, publicPath: a.visibility === "public" ? publicPath(a) : null })),
      categories: cats,
      query: { q, type: query.type ?? "", lang: query.lang ?? "", category },
      isAdmin: ctx.user.type === "admin",
      deleted: url.searchParams.get("deleted")?.slice(0, 300) ?? null,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_kb.title");

export default function KbList() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const pageLink = (page: number) => {
    const search = new URLSearchParams(Object.entries(data.query).filter(([, v]) => v));
    if (page > 1) search.set("page", String(page));
    const s = search.toString();
    return s ? `/kb?${s}` : "/kb";
  };
  return (
    <section className="stack kb-page">
      <h1>{t("plugin_kb.title")}</h1>
      {data.deleted !== null ? (
        <p role="status" className="notice">
          {t("plugin_kb.delete.done", { title: data.deleted })}
        </p>
      ) : null}
      <p>
        {data.isAdmin ? (
          <>
            <Link to="/kb/new" className="button primary">
              {t("plugin_kb.new.title")}
            </Link>{" "}
          </>
        ) : null}
        <Link to="/support/kb/en">{t("plugin_kb.list.publicSite")}</Link>
      </p>
      <Form method="get" className="inline-form" role="search" aria-label={t("plugin_kb.list.search")}>
        <div className="stack">
          <label htmlFor="kb-q">{t("plugin_kb.list.searchLabel")}</label>
          <input id="kb-q" name="q" type="search" defaultValue={data.query.q} maxLength={QUERY_MAX} />
        </div>
        <div className="stack">
          <label htmlFor="kb-filter-type">{t("plugin_kb.field.type")}</label>
          <select id="kb-filter-type" name="type" defaultValue={data.query.type}>
            <option value="">{t("plugin_kb.list.all")}</option>
            {KB_TYPES.map((x) => (
              <option key={x} value={x}>
                {t(`plugin_kb.type.${x}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="stack">
          <label htmlFor="kb-filter-lang">{t("plugin_kb.field.lang")}</label>
          <select id="kb-filter-lang" name="lang" defaultValue={data.query.lang}>
            <option value="">{t("plugin_kb.list.all")}</option>
            {KB_LANGS.map((x) => (
              <option key={x} value={x}>
                {t(`plugin_kb.lang.${x}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="stack">
          <label htmlFor="kb-filter-category">{t("plugin_kb.field.category")}</label>
          <select id="kb-filter-category" name="category" defaultValue={data.query.category}>
            <option value="">{t("plugin_kb.list.all")}</option>
            {data.categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" className="button">
            {t("plugin_kb.list.searchButton")}
          </button>
        </div>
      </Form>
      <h2 id="kb-list">{t("plugin_kb.list.count", { count: data.total })}</h2>
      {data.articles.length ? (
        <TableScroll label={t("plugin_kb.title")}>
          <table className="payment-table kb-list">
            <thead>
              <tr>
                <th scope="col">{t("plugin_kb.field.title")}</th>
                <th scope="col">{t("plugin_kb.field.category")}</th>
                <th scope="col">{t("plugin_kb.field.type")}</th>
                <th scope="col">{t("plugin_kb.field.lang")}</th>
                <th scope="col">{t("plugin_kb.field.visibility")}</th>
                <th scope="col">{t("plugin_kb.field.version")}</th>
              </tr>
            </thead>
            <tbody>
              {data.articles.map((a) => (
                <tr key={a.id} data-testid={`kb-${a.id}`}>
                  <td>{data.isAdmin ? <Link to={`/kb/${a.id}`}>{a.title}</Link> : a.publicPath ? <Link to={a.publicPath}>{a.title}</Link> : a.title}</td>
                  <td>{a.category || t("plugin_kb.none")}</td>
                  <td>{t(`plugin_kb.type.${a.type}`)}</td>
                  <td>{t(`plugin_kb.lang.${a.lang}`)}</td>
                  <td>{t(`plugin_kb.visibility.${a.visibility}`)}</td>
                  <td>{a.version}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_kb.list.none")}</p>
      )}
      {data.pages > 1 ? (
        <nav aria-label={t("list.pager")} className="inline-form">
          {data.page > 1 ? <Link to={pageLink(data.page - 1)}>{t("list.prev")}</Link> : null}
          <span>{t("plugin_kb.list.page", { page: data.page, pages: data.pages })}</span>
          {data.page < data.pages ? <Link to={pageLink(data.page + 1)}>{t("list.next")}</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}
