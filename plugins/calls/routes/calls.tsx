// /call (the calls the user may read, newest first, paged by 30 with the call filters of spec
// section 3: dates, number, assignee, DID, direction, label, emotion, energy, pace, personality;
// a bad value is named and kept, the other filters still apply) and /call/ongoing (the calls ringing or in progress now). Server-rendered tables
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
import { FilterInput, FilterSelect } from "../components/CallFilters";
import { callFilterChoices, DIRECTIONS, EMOTIONS, listCalls, parseCallFilter, PERSONALITIES, VOICE_LEVELS } from "../calls.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const url = new URL(request.url);
  const ongoing = url.pathname.replace(/\/$/, "") === "/call/ongoing";
  const { filter, invalid, values } = parseCallFilter(Object.fromEntries(url.searchParams));
  const timeZone = ctx.workspace.timeZone;
  const [list, choices] = await Promise.all([listCalls(ctx.user!, filter, timeZone, { ongoing }), callFilterChoices()]);
  const { page: _page, ...kept } = values;
  return json({ ...list, ongoing, timeZone, filter: kept, invalid, choices }, { headers: { "Cache-Control": "private, no-store" } });
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
        {data.invalid.length ? (
          <p role="alert" className="error" id="call-filter-error">
            {t("plugin_calls.filters.invalid", { fields: data.invalid.map((f) => t(`plugin_calls.filters.${f}`)).join(", ") })}
          </p>
        ) : null}
        <FilterSelect
          field="direction"
          value={data.filter.direction}
          options={DIRECTIONS.map((d) => [d, t(`plugin_calls.direction.${d}`)])}
          invalid={data.invalid}
        />
        <FilterInput field="number" value={data.filter.number} invalid={data.invalid} inputMode="tel" size={12} />
        <FilterInput field="from" value={data.filter.from} invalid={data.invalid} type="date" />
        <FilterInput field="to" value={data.filter.to} invalid={data.invalid} type="date" />
        <FilterSelect
          field="assignee"
          value={data.filter.assignee}
          options={data.choices.agents.map((a) => [a.username, `${a.name} (${a.username})`])}
          invalid={data.invalid}
        />
        <FilterSelect field="did" value={data.filter.did} options={data.choices.dids.map((d) => [d, d])} invalid={data.invalid} />
        <FilterSelect field="label" value={data.filter.label} options={data.choices.labels.map((l) => [String(l.id), l.name])} invalid={data.invalid} />
        <FilterSelect field="emotion" value={data.filter.emotion} options={EMOTIONS.map((e) => [e, t(`emotion.${e}`)])} invalid={data.invalid} />
        <FilterSelect
          field="energy"
          value={data.filter.energy}
          options={VOICE_LEVELS.map((l) => [String(l), t(`plugin_calls.filters.energyLevel.${l}`)])}
          invalid={data.invalid}
        />
        <FilterSelect
          field="pace"
          value={data.filter.pace}
          options={VOICE_LEVELS.map((l) => [String(l), t(`plugin_calls.filters.paceLevel.${l}`)])}
          invalid={data.invalid}
        />
        <FilterSelect
          field="personality"
          value={data.filter.personality}
          options={PERSONALITIES.map((p) => [p, t(`plugin_calls.filters.personalityType.${p}`)])}
          invalid={data.invalid}
        />
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
                <th scope="col">{t("plugin_calls.filters.emotion")}</th>
                <th scope="col">{t("plugin_calls.filters.label")}</th>
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
                  <td data-testid="emotion">{c.emotion ? t(`emotion.${c.emotion}`) : "–"}</td>
                  <td data-testid="labels">{c.labels.map((l) => l.name || t("plugin_calls.filters.removedLabel")).join(", ") || "–"}</td>
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
