// /product: the catalogue, searched by name or SKU and filtered by category (a GET form: works
// without JavaScript), paged by 20. Agents see active products; admins all, and "New product".
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { formatPrice } from "../money";
import { categories, listProducts } from "../products.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const isAdmin = ctx.user!.type === "admin";
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").slice(0, 200);
  const category = (url.searchParams.get("category") ?? "").slice(0, 200);
  const page = Number(url.searchParams.get("page")) || 1;
  const [list, cats] = await Promise.all([listProducts({ q, category, page, withInactive: isAdmin }), categories(isAdmin)]);
  return json(
    {
      isAdmin,
      q,
      category,
      categories: cats,
      language: ctx.language,
      page: list.page,
      pages: list.pages,
      total: list.total,
      rows: list.rows.map((r) => ({
        id: r.id,
        name: r.name,
        sku: r.sku,
        category: r.category,
        priceMinor: r.priceMinor,
        currency: r.currency,
        active: r.active,
      })),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_product.title");

export default function ProductList() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const pageLink = (page: number) => {
    const p = new URLSearchParams();
    if (data.q) p.set("q", data.q);
    if (data.category) p.set("category", data.category);
    p.set("page", String(page));
    return `/product?${p}`;
  };
  return (
    <section className="stack product-page">
      <h1>{t("plugin_product.title")}</h1>
      {data.isAdmin ? (
        <p>
          <Link to="/product/new" className="button primary">
            {t("plugin_product.list.new")}
          </Link>
        </p>
      ) : null}
      <Form method="get" action="/product" className="inline-form" role="search" aria-label={t("plugin_product.list.searchLabel")}>
        <label htmlFor="product-q">{t("plugin_product.list.search")}</label>
        <input id="product-q" name="q" type="search" defaultValue={data.q} maxLength={200} />
        <label htmlFor="product-category">{t("plugin_product.field.category")}</label>
        <select id="product-category" name="category" defaultValue={data.category}>
          <option value="">{t("plugin_product.list.allCategories")}</option>
          {data.categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="submit" className="button">
          {t("plugin_product.list.find")}
        </button>
      </Form>
      <p className="muted" role="status">
        {t("plugin_product.list.count", { count: data.total })}
      </p>
      {data.rows.length ? (
        <TableScroll label={t("plugin_product.title")}>
          <table className="payment-table product-table">
            <thead>
              <tr>
                <th scope="col">{t("plugin_product.field.name")}</th>
                <th scope="col">{t("plugin_product.field.sku")}</th>
                <th scope="col">{t("plugin_product.field.category")}</th>
                <th scope="col">{t("plugin_product.field.price")}</th>
                {data.isAdmin ? <th scope="col">{t("plugin_product.field.state")}</th> : null}
              </tr>
            </thead>
            <tbody>
              {data.rows.map((r) => (
                <tr key={r.id} data-testid={`product-${r.sku}`}>
                  <th scope="row" className="product-data">
                    <Link to={`/product/${r.id}`}>{r.name}</Link>
                  </th>
                  <td>
                    <code>{r.sku}</code>
                  </td>
                  <td className="product-data">{r.category}</td>
                  <td>{r.priceMinor == null ? t("plugin_product.noPrice") : formatPrice(r.priceMinor, r.currency, data.language)}</td>
                  {data.isAdmin ? <td>{r.active ? t("plugin_product.active") : t("plugin_product.inactive")}</td> : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_product.list.none")}</p>
      )}
      {data.pages > 1 ? (
        <nav className="pager" aria-label={t("plugin_product.list.pager")}>
          {data.page > 1 ? (
            <Link to={pageLink(data.page - 1)} rel="prev">
              {t("plugin_product.list.prev")}
            </Link>
          ) : (
            <span />
          )}
          <span>{t("plugin_product.list.pageOf", { page: data.page, pages: data.pages })}</span>
          {data.page < data.pages ? (
            <Link to={pageLink(data.page + 1)} rel="next">
              {t("plugin_product.list.next")}
            </Link>
          ) : (
            <span />
          )}
        </nav>
      ) : null}
    </section>
  );
}
