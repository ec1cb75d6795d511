// /call_verification ('scam call'; spec section 6: admins of client 2 on the call edition, exactly
// the menu item's rule): the calls the AI plugin flagged with scam and risk hints, newest first,
// 30 a page, each with the caller, the number called, the agent, when (the workspace's time zone)
// and each hint saying why (plugin_ai.scam.<kind>), linked to its CALL ticket. The filter is a GET
// form (dates and hint kind): it works without JavaScript. See verification.server.ts.
// Who may open it (and post its form) is the menu item's rule (guard.server.ts); others get 403
// 'Access denied' inside the shell, as on /call_config.
// "Check earlier calls" (a plain POST form): calls recorded and transcribed before the scam check
// existed are queued for it (the AI plugin's backfill, which also runs once at each start); the
// page comes back saying how many, and lists them as their checks finish.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableScroll } from "~/components/TableScroll";
import { deniedBoundary } from "~/components/AdminOnly";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { backfillCallScam } from "@plugins/ai/call-scam.server";
import { FilterInput, FilterSelect } from "../components/CallFilters";
import { guardCallVerification } from "../guard.server";
import { CALL_HINT_KINDS, listFlaggedCalls, parseVerificationFilter } from "../verification.server";

const PATH = "/call_verification";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardCallVerification(request, context);
  const search = new URL(request.url).searchParams;
  const { filter, invalid, values } = parseVerificationFilter(Object.fromEntries(search));
  const timeZone = ctx.workspace.timeZone;
  const list = await listFlaggedCalls(filter, timeZone);
  const { page: _page, ...kept } = values;
  // what the last "Check earlier calls" did: a count, or "off" (the AI is off)
  const queued = search.get("queued");
  const backfill = queued === "off" ? "off" : queued && /^\d{1,9}$/.test(queued) ? Number(queued) : null;
  return json(
    { ...list, timeZone, filter: kept, invalid, canBackfill: ctx.edition.enabled.includes("ai"), backfill },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardCallVerification(request, context);
  const form = await request.formData();
  if (form.get("intent") !== "backfill" || !ctx.edition.enabled.includes("ai")) throw new Response("Bad Request", { status: 400 });
  const queued = await backfillCallScam();
  return redirect(`${PATH}?queued=${queued}`);
}

export const meta = pageMeta("plugin_calls.menu.call_verification");

export const ErrorBoundary = deniedBoundary("plugin_calls.verification.denied");

export default function CallVerification() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const busy = useNavigation().formData?.get("intent") === "backfill";
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
      {data.backfill !== null ? (
        <p className="notice" role="status" data-testid="backfill-notice">
          {data.backfill === "off"
            ? t("plugin_calls.verification.backfill.off")
            : t("plugin_calls.verification.backfill.queued", { count: Number(data.backfill) })}
        </p>
      ) : null}
      {data.canBackfill ? (
        <Form method="post" className="inline-form" aria-labelledby="backfill-help">
          <input type="hidden" name="intent" value="backfill" />
          <p className="muted" id="backfill-help">
            {t("plugin_calls.verification.backfill.help")}
          </p>
          <button type="submit" className="button" disabled={busy}>
            {t("plugin_calls.verification.backfill.button")}
          </button>
        </Form>
      ) : null}
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
