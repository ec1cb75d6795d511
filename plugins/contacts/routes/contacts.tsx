// /contacts: every customer who wrote in (each conversation links to one, link.server.ts), newest
// first, 20 a page; a search by name, email or phone. A GET form and plain links: it works the same
// without JavaScript. GET /api/contacts/list is its JSON twin.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { formatDate } from "~/time";
import { listContacts, SEARCH_MAX } from "../contacts.server";
import { requireContactsUser } from "../guard.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx, user } = await requireContactsUser(request, context);
  const url = new URL(request.url);
  const page = Number(url.searchParams.get("page") ?? 1);
  const found = await listContacts({ q: url.searchParams.get("q") ?? "", page: Number.isSafeInteger(page) ? page : 1 });
  return json({ ...found, isAdmin: user.type === "admin", timeZone: ctx.workspace.timeZone }, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta("plugin_contacts.title");

export default function ContactsPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const pageLink = (page: number) => `/contacts?${new URLSearchParams({ ...(data.q ? { q: data.q } : {}), page: String(page) })}`;
  return (
    <section className="stack contacts-page">
      <h1>{t("plugin_contacts.title")}</h1>
      {data.isAdmin ? (
        <p className="row">
          <Link to="/contacts/import">{t("plugin_contacts.csv.title")}</Link>
          <a href="/contacts/export.csv" download>
            {t("plugin_contacts.csv.export")}
          </a>
        </p>
      ) : null}
      <Form method="get" action="/contacts" role="search" aria-label={t("plugin_contacts.list.search")} className="row">
        <label htmlFor="contacts-q">{t("plugin_contacts.list.search")}</label>
        <input id="contacts-q" name="q" type="search" defaultValue={data.q} maxLength={SEARCH_MAX} aria-describedby="contacts-q-help" />
        <button type="submit" className="button">
          {t("plugin_contacts.list.searchButton")}
        </button>
        <span id="contacts-q-help" className="muted">
          {t("plugin_contacts.list.searchHelp")}
        </span>
      </Form>
      {data.contacts.length ? (
        <TableScroll label={t("plugin_contacts.title")}>
          <table className="payment-table contacts-table">
            <thead>
              <tr>
                <th scope="col">{t("plugin_contacts.field.name")}</th>
                <th scope="col">{t("plugin_contacts.field.email")}</th>
                <th scope="col">{t("plugin_contacts.field.phone")}</th>
                <th scope="col">{t("plugin_contacts.field.created")}</th>
              </tr>
            </thead>
            <tbody>
              {data.contacts.map((c) => (
                <tr key={c.id} data-testid={`contact-${c.uid}`}>
                  <th scope="row">
                    <Link to={`/contacts/${c.uid}`}>{[c.salutation, c.name].filter(Boolean).join(" ") || t("plugin_contacts.noName")}</Link>
                  </th>
                  <td>{c.email}</td>
                  <td>{c.phone}</td>
                  <td>
                    <time dateTime={new Date(c.createdAt).toISOString()}>{formatDate(c.createdAt, data.timeZone)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted" role="status">
          {data.q ? t("plugin_contacts.list.noneFound") : t("plugin_contacts.list.none")}
        </p>
      )}
      {data.page > 1 || data.more ? (
        <nav className="pager" aria-label={t("plugin_contacts.list.pages")}>
          {data.page > 1 ? <Link to={pageLink(data.page - 1)}>{t("plugin_contacts.list.previous")}</Link> : <span />}
          <span>{t("plugin_contacts.list.page", { page: data.page })}</span>
          {data.more ? <Link to={pageLink(data.page + 1)}>{t("plugin_contacts.list.next")}</Link> : <span />}
        </nav>
      ) : null}
    </section>
  );
}
