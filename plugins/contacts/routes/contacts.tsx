// /contacts: every customer who wrote in (each conversation links to one, link.server.ts), newest
// first, 20 a page; a search by name, email or phone. The admins' custom contact tabs (spec section
// 3) sit beside it: ?tab={id}&index={page from 0} shows that tab's slice, data_per_page a page. GET
// forms and plain links: it works the same without JavaScript. GET /api/contacts/list and
// /api/contacts/custom are its JSON twins.
import type { LoaderFunctionArgs, SerializeFrom } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { formatDate } from "~/time";
import { listContacts, SEARCH_MAX, type ContactRow } from "../contacts.server";
import { requireContactsUser } from "../guard.server";
import { contactTab, contactTabs, TAB_INDEX_MAX, tabPage, type TabPage } from "../tabs.server";

/** The tab's part of the page: its slice, or why it cannot be shown (a translation key and its status). */
async function openTab(url: URL): Promise<{ page?: TabPage; error?: { key: string; values?: Record<string, string | number>; status: number } }> {
  const id = url.searchParams.get("tab") ?? "";
  const tab = /^\d{1,9}$/.test(id) ? await contactTab(Number(id)) : undefined;
  if (!tab) return { error: { key: "plugin_contacts.tabs.error.notFound", status: 404 } };
  const index = url.searchParams.get("index") || "0";
  if (!/^\d{1,7}$/.test(index) || Number(index) > TAB_INDEX_MAX) return { error: { key: "plugin_contacts.tabs.error.index", values: { index }, status: 400 } };
  const { pastEnd, ...page } = await tabPage(tab, Number(index));
  if (pastEnd) return { page, error: { key: "plugin_contacts.tabs.error.pastEnd", values: { count: page.pages }, status: 404 } };
  return { page };
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx, user } = await requireContactsUser(request, context);
  const url = new URL(request.url);
  const headers = { "Cache-Control": "private, no-store" };
  const base = { isAdmin: user.type === "admin", timeZone: ctx.workspace.timeZone, tabs: await contactTabs() };
  if (url.searchParams.has("tab")) {
    const opened = await openTab(url);
    return json({ ...base, view: "tab" as const, tabId: url.searchParams.get("tab"), ...opened }, { headers, status: opened.error?.status ?? 200 });
  }
  const page = Number(url.searchParams.get("page") ?? 1);
  const found = await listContacts({ q: url.searchParams.get("q") ?? "", page: Number.isSafeInteger(page) ? page : 1 });
  return json({ ...base, view: "all" as const, ...found }, { headers });
}

export const meta = pageMeta("plugin_contacts.title");

function ContactsTable({ contacts, timeZone, label }: { contacts: SerializeFrom<ContactRow>[]; timeZone: string; label: string }) {
  const { t } = useTranslation();
  return (
    <TableScroll label={label}>
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
          {contacts.map((c) => (
            <tr key={c.id} data-testid={`contact-${c.uid}`}>
              <th scope="row">
                <Link to={`/contacts/${c.uid}`}>{[c.salutation, c.name].filter(Boolean).join(" ") || t("plugin_contacts.noName")}</Link>
              </th>
              <td>{c.email}</td>
              <td>{c.phone}</td>
              <td>
                <time dateTime={new Date(c.createdAt).toISOString()}>{formatDate(c.createdAt, timeZone)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

type Data = SerializeFrom<typeof loader>;

/** All contacts, then each custom tab: plain links, the current one marked. */
function TabNav({ data }: { data: Data }) {
  const { t } = useTranslation();
  const current = data.view === "tab" ? data.tabId : null;
  return (
    <nav aria-label={t("plugin_contacts.tabs.nav")} className="contact-tabs">
      <ul className="row" style={{ listStyle: "none", padding: 0, margin: 0, flexWrap: "wrap" }}>
        <li>
          <Link to="/contacts" aria-current={current === null ? "page" : undefined} style={current === null ? { fontWeight: 700 } : undefined}>
            {t("plugin_contacts.tabs.all")}
          </Link>
        </li>
        {data.tabs.map((tab) => (
          <li key={tab.id}>
            <Link
              to={`/contacts?tab=${tab.id}`}
              aria-current={current === String(tab.id) ? "page" : undefined}
              style={current === String(tab.id) ? { fontWeight: 700 } : undefined}
            >
              {tab.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function TabView({ data }: { data: Extract<Data, { view: "tab" }> }) {
  const { t } = useTranslation();
  const { page, error } = data;
  const indexLink = (index: number) => `/contacts?${new URLSearchParams({ tab: String(page!.tab.id), index: String(index) })}`;
  return (
    <section className="stack" aria-labelledby="contact-tab-title">
      <h2 id="contact-tab-title">{page ? page.tab.name : t("plugin_contacts.tabs.title")}</h2>
      {error ? (
        <p className="form-error" role="alert">
          {t(error.key, error.values)}
        </p>
      ) : null}
      {page && !error ? (
        <>
          <p className="muted" data-testid="contact-tab-range">
            {page.contacts.length
              ? t("plugin_contacts.tabs.range", {
                  from: page.first + 1,
                  to: page.first + page.contacts.length,
                  total: page.total,
                  start: page.tab.startIndex + 1,
                })
              : t("plugin_contacts.tabs.empty", { start: page.tab.startIndex + 1 })}
          </p>
          {page.contacts.length ? <ContactsTable contacts={page.contacts} timeZone={data.timeZone} label={page.tab.name} /> : null}
        </>
      ) : null}
      {page && page.pages > 1 ? (
        <nav className="pager" aria-label={t("plugin_contacts.tabs.pages", { name: page.tab.name })}>
          {page.index > 0 ? <Link to={indexLink(Math.min(page.index, page.pages) - 1)}>{t("plugin_contacts.list.previous")}</Link> : <span />}
          <span>{t("plugin_contacts.tabs.page", { page: page.index + 1, pages: page.pages })}</span>
          {page.index + 1 < page.pages ? <Link to={indexLink(page.index + 1)}>{t("plugin_contacts.list.next")}</Link> : <span />}
        </nav>
      ) : null}
    </section>
  );
}

export default function ContactsPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="stack contacts-page">
      <h1>{t("plugin_contacts.title")}</h1>
      {data.isAdmin ? (
        <p className="row">
          <Link to="/contacts/import">{t("plugin_contacts.csv.title")}</Link>
          <a href="/contacts/export.csv" download>
            {t("plugin_contacts.csv.export")}
          </a>
          <Link to="/contacts/tabs">{t("plugin_contacts.tabs.manage")}</Link>
        </p>
      ) : null}
      <Form method="get" action="/contacts" role="search" aria-label={t("plugin_contacts.list.search")} className="row">
        <label htmlFor="contacts-q">{t("plugin_contacts.list.search")}</label>
        <input
          id="contacts-q"
          name="q"
          type="search"
          defaultValue={data.view === "all" ? data.q : ""}
          maxLength={SEARCH_MAX}
          aria-describedby="contacts-q-help"
        />
        <button type="submit" className="button">
          {t("plugin_contacts.list.searchButton")}
        </button>
        <span id="contacts-q-help" className="muted">
          {t("plugin_contacts.list.searchHelp")}
        </span>
      </Form>
      {data.tabs.length ? <TabNav data={data} /> : null}
      {data.view === "tab" ? <TabView data={data} /> : <AllContacts data={data} />}
    </section>
  );
}

function AllContacts({ data }: { data: Extract<Data, { view: "all" }> }) {
  const { t } = useTranslation();
  const pageLink = (page: number) => `/contacts?${new URLSearchParams({ ...(data.q ? { q: data.q } : {}), page: String(page) })}`;
  return (
    <>
      {data.contacts.length ? (
        <ContactsTable contacts={data.contacts} timeZone={data.timeZone} label={t("plugin_contacts.title")} />
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
    </>
  );
}
