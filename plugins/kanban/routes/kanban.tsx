// /kanban: the board (admins without hide_kanban). Tickets by status or by the admins' own columns,
// filtered by label, department, agent and campaign (a GET form), each column capped with a count of
// the rest. A card moves by drag and drop (JavaScript: @dnd-kit) or by its own "Move to" form (a plain
// post that works without JavaScript); every open board reloads on receiveKanbanNotification.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { boardQuery, filterOptions, loadBoard, moveCard } from "../kanban.server";
import { requireKanbanUser } from "../guard.server";
import { Board } from "../components/Board";
import styles from "../kanban.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireKanbanUser(request, context);
  const url = new URL(request.url);
  const q = boardQuery.parse(Object.fromEntries(url.searchParams));
  const [columns, options] = await Promise.all([loadBoard(ctx.user, q), filterOptions()]);
  const moved = /^\d{1,15}$/.test(url.searchParams.get("moved") ?? "") ? Number(url.searchParams.get("moved")) : null;
  const unchanged = /^\d{1,15}$/.test(url.searchParams.get("unchanged") ?? "") ? Number(url.searchParams.get("unchanged")) : null;
  return json(
    {
      columns,
      options,
      moved,
      unchanged,
      query: {
        view: q.view,
        label: q.label ? String(q.label) : "",
        department: q.department ? String(q.department) : "",
        agent: q.agent ? String(q.agent) : "",
        campaign: q.campaign ? String(q.campaign) : "",
        more: q.more,
      },
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

/** The board's filters as a query string (without the last move's notice). */
function boardSearch(search: string) {
  const params = new URLSearchParams(search);
  params.delete("moved");
  params.delete("unchanged");
  return params;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireKanbanUser(request, context);
  const form = await request.formData();
  const values = formValues(form, ["ticket", "to"]);
  const outcome = await moveCard(user, values);
  // a drag (JavaScript) asks with fetch=1 and wants the answer, not a new page
  if (form.get("fetch") === "1")
    return json(outcome.ok ? { ok: true, moved: outcome.moved } : { ok: false, result: outcome.result }, outcome.ok ? 200 : outcome.status);
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  const params = boardSearch(new URL(request.url).search);
  params.set(outcome.moved ? "moved" : "unchanged", String(outcome.ticketNumber));
  return redirect(`/kanban?${params}`);
}

export const meta = pageMeta("plugin_kanban.board.title");

export default function KanbanPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const refused = useFormResult("move");
  const search = boardSearch(location.search).toString();
  const action = search ? `/kanban?${search}` : "/kanban";
  const select = (name: "label" | "department" | "agent" | "campaign", items: { id: number; name: string }[]) => (
    <div className="stack">
      <label htmlFor={`kanban-filter-${name}`}>{t(`plugin_kanban.board.${name}`)}</label>
      <select id={`kanban-filter-${name}`} name={name} defaultValue={data.query[name]}>
        <option value="">{t("plugin_kanban.board.all")}</option>
        {items.map((i) => (
          <option key={i.id} value={String(i.id)}>
            {i.name}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <section className="stack kanban-page">
      <h1>{t("plugin_kanban.board.title")}</h1>
      <Form method="get" className="inline-form" aria-label={t("plugin_kanban.board.filters")} key={location.search}>
        <div className="stack">
          <label htmlFor="kanban-filter-view">{t("plugin_kanban.board.view")}</label>
          <select id="kanban-filter-view" name="view" defaultValue={data.query.view}>
            <option value="status">{t("plugin_kanban.board.viewStatus")}</option>
            <option value="columns">{t("plugin_kanban.board.viewColumns")}</option>
          </select>
        </div>
        {select("label", data.options.labels)}
        {select("department", data.options.departments)}
        {select("agent", data.options.agents)}
        {select("campaign", data.options.campaigns)}
        <div>
          <button type="submit" className="button">
            {t("plugin_kanban.board.filter")}
          </button>
        </div>
      </Form>
      <p>
        <Link to="/kanban/columns">{t("plugin_kanban.board.editColumns")}</Link>
      </p>
      <p className="muted">{t("plugin_kanban.board.hint")}</p>
      <div role="status">
        {data.moved ? <p className="form-ok">{t("plugin_kanban.board.moved", { number: data.moved })}</p> : null}
        {data.unchanged ? <p>{t("plugin_kanban.board.unchanged", { number: data.unchanged })}</p> : null}
      </div>
      <FormMessage result={refused} />
      {data.query.view === "columns" && data.columns.length === 1 ? <p className="muted">{t("plugin_kanban.board.noColumns")}</p> : null}
      <Board columns={data.columns} action={action} search={search} view={data.query.view} />
    </section>
  );
}
