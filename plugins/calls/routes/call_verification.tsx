// /call_verification ('scam call'; spec section 6: admins of client 2 on the call edition, exactly
// the menu item's rule): the calls the AI plugin flagged with scam and risk hints, newest first,
// 30 a page, each with the caller, the number called, the agent, when (the workspace's time zone)
// and each hint saying why (plugin_ai.scam.<kind>), linked to its CALL ticket. The filter is a GET
// form (dates and hint kind): it works without JavaScript. See verification.server.ts.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, viewerOf } from "~/context.server";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { allows } from "~/permissions";
import { formatDate, formatTime } from "~/time";
import { FilterInput, FilterSelect } from "../components/CallFilters";
import { CALL_HINT_KINDS, listFlaggedCalls, parseVerificationFilter } from "../verification.server";

const PATH = "/call_verification";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx, plugin } = await guardPluginRoute(request, context);
  // the menu item's own rule (plugin.json), so the page and the menu never disagree
  const rule = plugin.menu.find((m) => m.path === PATH)?.rule;
  const viewer = viewerOf(ctx);
  if (!rule || !viewer || !allows(rule, viewer)) throw new Response("Access denied", { status: 403 });
  const { filter, invalid, values } = parseVerificationFilter(Object.fromEntries(new URL(request.url).searchParams));
  const timeZone = ctx.workspace.timeZone;
  const list = await listFlaggedCalls(filter, timeZone);
  const { page: _page, ...kept } = values;
  return json({ ...list, timeZone, filter: kept, invalid }, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta("plugin_calls.menu.call_verification");

export default function CallVerification() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const filtered = Object.values(data.filter).some(Boolean);
  const pageLink = (page: number) => {
    const search = new URLSearchParams(Object.entries(data.filter).filter(([, v]) => v));
    if (page > 1) search.set("page", String(page));
    const s = search.toString();
    return s ? `${PATH}?${s}` : PATH;
  };
  const hintText = (h: { kind: string; values: Record<string, string> }) =>
    t(`plugin_ai.scam.${h.kind}`, Object.fromEntries(Object.entries(h.values).map(([k, v]) => [k, v.startsWith("t:") ? t(v.slice(2)) : v])));
  return (
    <section className="stack calls-page">
      <h1>{t("plugin_calls.menu.call_verification")}</h1>
      <p className="muted">{t("plugin_calls.verification.intro")}</p>
      <Form method="get" className="inline-form" aria-label={t("plugin_calls.list.filters")}>
        {data.invalid.length ? (
          <p role="alert" className="error" id="call-filter-error">
            {t("plugin_calls.filters.invalid", { fields: data.invalid.map((f) => t(`plugin_calls.filters.${f}`)).join(", ") })}
          </p>
        ) : null}
        <FilterInput field="from" value={data.filter.from} invalid={data.invalid} type="date" />
        <FilterInput field="to" value={data.filter.to} invalid={data.invalid} type="date" />
        <FilterSelect
          field="kind"
          value={data.filter.kind}
          options={CALL_HINT_KINDS.map((k) => [k, t(`plugin_calls.verification.kind.${k}`)])}
          invalid={data.invalid}
        />
        <div>
          <button type="submit" className="button">
            {t("plugin_calls.list.filter")}
          </button>
        </div>
      </Form>
      <h2 id="call-list">{t("plugin_calls.verification.count", { count: data.total })}</h2>
      {data.calls.length ? (
        <TableScroll label={t("plugin_calls.menu.call_verification")}>
          <table className="payment-table">
            <thead>
              <tr>
                <th scope="col">{t("plugin_calls.list.ticket")}</th>
                <th scope="col">{t("plugin_calls.list.when")}</th>
                <th scope="col">{t("plugin_calls.list.caller")}</th>
                <th scope="col">{t("plugin_calls.list.called")}</th>
                <th scope="col">{t("plugin_calls.list.agent")}</th>
                <th scope="col">{t("plugin_calls.verification.hints")}</th>
              </tr>
            </thead>
            <tbody>
              {data.calls.map((c) => (
                <tr key={c.ticketNumber} data-testid={`flagged-${c.ticketNumber}`}>
                  <td>
                    <Link to={`/call/${c.ticketNumber}`}>#{c.ticketNumber}</Link>
                  </td>
                  <td>
                    {formatDate(c.startedAt, data.timeZone)} {formatTime(c.startedAt, data.timeZone)}
                  </td>
                  <td>{c.from}</td>
                  <td>{c.did ? t("plugin_calls.list.viaDid", { number: c.to }) : c.to}</td>
                  <td>{c.agent || t("plugin_calls.list.nobody")}</td>
                  <td>
                    <ul>
                      {c.hints.map((h, i) => (
                        <li key={`${h.kind}-${i}`} data-kind={h.kind}>
                          {hintText(h)}
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted" data-testid="verification-empty">
          {filtered ? t("plugin_calls.verification.noneFiltered") : t("plugin_calls.verification.none")}
        </p>
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
