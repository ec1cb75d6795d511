// /call (the calls the user may read, newest first, paged by 30 with the call filters: direction,
// number, dates) and /call/ongoing (the calls ringing or in progress now). Server-rendered tables
// with a GET filter form: they work without JavaScript; only live calling needs it (the softphone).
// Each row links to its CALL ticket (/call/{ticket_number}), the shared conversation page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { callFilterSchema, DIRECTIONS, listCalls } from "../calls.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const url = new URL(request.url);
  const ongoing = url.pathname.replace(/\/$/, "") === "/call/ongoing";
  const filter = callFilterSchema.parse(Object.fromEntries(url.searchParams));
  const timeZone = ctx.workspace.timeZone;
  const list = await listCalls(ctx.user!, filter, timeZone, { ongoing });
  return json(
    { ...list, ongoing, timeZone, filter: { direction: filter.direction ?? "", number: filter.number ?? "", from: filter.from ?? "", to: filter.to ?? "" } },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_calls.menu.call");

export default function Calls() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const base = data.ongoing ? "/call/ongoing" : "/call";
  const pageLink = (page: number) => {
    const search = new URLSearchParams(Object.entries(data.filter).filter(([, v]) => v));
    if (page > 1) search.set("page", String(page));
    const s = search.toString();
    return s ? `${base}?${s}` : base;
  };
  const seconds = (s: number | null) => (s == null ? "–" : t("plugin_calls.list.seconds", { n: s }));
  return (
    <section className="stack calls-page">
      <h1>{data.ongoing ? t("plugin_calls.list.ongoingTitle") : t("plugin_calls.menu.call")}</h1>
      <p className="muted">{t("plugin_calls.list.needsJs")}</p>
      <nav className="inline-form" aria-label={t("plugin_calls.list.views")}>
        {data.ongoing ? <Link to="/call">{t("plugin_calls.list.all")}</Link> : <Link to="/call/ongoing">{t("plugin_calls.list.ongoingTitle")}</Link>}
      </nav>
      <Form method="get" className="inline-form" aria-label={t("plugin_calls.list.filters")}>
        <div className="stack">
          <label htmlFor="call-filter-direction">{t("plugin_calls.list.direction")}</label>
          <select id="call-filter-direction" name="direction" defaultValue={data.filter.direction}>
            <option value="">{t("plugin_calls.list.any")}</option>
            {DIRECTIONS.map((d) => (
              <option key={d} value={d}>
                {t(`plugin_calls.direction.${d}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="stack">
          <label htmlFor="call-filter-number">{t("plugin_calls.list.number")}</label>
          <input id="call-filter-number" name="number" inputMode="tel" defaultValue={data.filter.number} size={12} />
        </div>
        <div className="stack">
          <label htmlFor="call-filter-from">{t("plugin_calls.list.from")}</label>
          <input id="call-filter-from" name="from" type="date" defaultValue={data.filter.from} />
        </div>
        <div className="stack">
          <label htmlFor="call-filter-to">{t("plugin_calls.list.to")}</label>
          <input id="call-filter-to" name="to" type="date" defaultValue={data.filter.to} />
        </div>
        <div>
          <button type="submit" className="button">
            {t("plugin_calls.list.filter")}
          </button>
        </div>
      </Form>
      <h2 id="call-list">{t("plugin_calls.list.count", { count: data.total })}</h2>
      {data.calls.length ? (
        <TableScroll label={t("plugin_calls.menu.call")}>
          <table className="payment-table">
            <thead>
              <tr>
                <th scope="col">{t("plugin_calls.list.ticket")}</th>
                <th scope="col">{t("plugin_calls.list.when")}</th>
                <th scope="col">{t("plugin_calls.list.direction")}</th>
                <th scope="col">{t("plugin_calls.list.caller")}</th>
                <th scope="col">{t("plugin_calls.list.called")}</th>
                <th scope="col">{t("plugin_calls.list.agent")}</th>
                <th scope="col">{t("plugin_calls.list.state")}</th>
                <th scope="col">{t("plugin_calls.list.ring")}</th>
                <th scope="col">{t("plugin_calls.list.talk")}</th>
                <th scope="col">{t("plugin_calls.list.hold")}</th>
                <th scope="col">{t("plugin_calls.list.acw")}</th>
                <th scope="col">{t("plugin_calls.list.cause")}</th>
              </tr>
            </thead>
            <tbody>
              {data.calls.map((c) => (
                <tr key={c.sipCallId} data-testid={`call-${c.ticketNumber}`} data-state={c.state}>
                  <td>
                    <Link to={`/call/${c.ticketNumber}`}>#{c.ticketNumber}</Link>
                  </td>
                  <td>
                    {formatDate(c.startedAt, data.timeZone)} {formatTime(c.startedAt, data.timeZone)}
                  </td>
                  <td>{t(`plugin_calls.direction.${c.direction}`)}</td>
                  <td>{c.from}</td>
                  <td>{c.did ? t("plugin_calls.list.viaDid", { number: c.to }) : c.to}</td>
                  <td>{c.agent || t("plugin_calls.list.nobody")}</td>
                  <td>{t(`plugin_calls.state.${c.state}`)}</td>
                  <td data-testid="ring">{seconds(c.ring)}</td>
                  <td data-testid="talk">{seconds(c.talk)}</td>
                  <td data-testid="hold">{seconds(c.hold)}</td>
                  <td data-testid="acw">{seconds(c.acw)}</td>
                  <td data-testid="cause">
                    {c.cause ? t(`plugin_calls.cause.${c.cause}`) : "–"}
                    {c.hangupBy ? ` (${t("plugin_calls.list.by", { by: c.hangupBy })})` : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{data.ongoing ? t("plugin_calls.list.noneOngoing") : t("plugin_calls.list.none")}</p>
      )}
      {data.pages > 1 ? (
        <nav aria-label={t("list.pager")} className="inline-form">
          {data.page > 1 ? <Link to={pageLink(data.page - 1)}>{t("list.prev")}</Link> : null}
          <span>{t("plugin_calls.list.page", { page: data.page, pages: data.pages })}</span>
          {data.page < data.pages ? <Link to={pageLink(data.page + 1)}>{t("list.next")}</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}
