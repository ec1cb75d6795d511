// /kanban/columns: the admins' own board columns: added, renamed, moved left or right, deleted
// (their tickets go back to "No column"). Plain posts that work without JavaScript; a refusal shows
// beside its form and keeps what was typed.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { TableScroll } from "~/components/TableScroll";
import { formResult, formValues, readFormResult, refusalKey } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { requireKanbanUser } from "../guard.server";
import { addColumn, deleteColumn, kanbanColumns, renameColumn, shiftColumn } from "../kanban.server";
import { COLUMN_NAME_MAX } from "../limits";
import styles from "../kanban.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireKanbanUser(request, context);
  return json({ columns: await kanbanColumns() }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireKanbanUser(request, context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = Number(form.get("id"));
  const validId = Number.isSafeInteger(id) && id > 0;
  const values = formValues(form, ["name"]);
  if (intent === "add") {
    const out = await addColumn(values, user);
    if (!out.ok) return refuse(out.result, out.status);
  } else if (intent === "rename" && validId) {
    const out = await renameColumn(id, values, user);
    if (!out.ok) return refuse(out.result, out.status);
  } else if ((intent === "left" || intent === "right") && validId) {
    await shiftColumn(id, intent === "left" ? -1 : 1);
  } else if (intent === "delete" && validId) {
    await deleteColumn(id, user);
  } else {
    return refuse(formResult({ message: "conversation.badInput" }));
  }
  return redirect("/kanban/columns");
}

export const meta = pageMeta("plugin_kanban.columns.title");

export default function KanbanColumns() {
  const { columns } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const data = useActionData();
  const added = readFormResult(data, "add");
  const any = readFormResult(data);
  return (
    <section className="stack kanban-page">
      <h1>{t("plugin_kanban.columns.title")}</h1>
      <p>
        <Link to="/kanban?view=columns">{t("plugin_kanban.columns.back")}</Link>
      </p>
      <p className="muted">{t("plugin_kanban.columns.intro")}</p>
      {any && !any.intent ? <FormMessage result={any} /> : null}
      <h2>{t("plugin_kanban.columns.add")}</h2>
      <Form method="post" className="inline-form" key={refusalKey(added, location.key)}>
        <input type="hidden" name="intent" value="add" />
        <div className="stack">
          <label htmlFor="kanban-column-new">{t("plugin_kanban.columns.name")}</label>
          <input
            id="kanban-column-new"
            name="name"
            maxLength={COLUMN_NAME_MAX + 20}
            defaultValue={added?.values?.name ?? ""}
            aria-invalid={added?.errors?.name ? true : undefined}
            aria-describedby={added?.errors?.name ? "kanban-column-new-error" : undefined}
          />
          {added?.errors?.name ? (
            <p className="field-error" id="kanban-column-new-error">
              {t(added.errors.name)}
            </p>
          ) : null}
        </div>
        <div>
          <button type="submit" className="button primary">
            {t("plugin_kanban.columns.addButton")}
          </button>
        </div>
      </Form>
      <h2>{t("plugin_kanban.columns.list")}</h2>
      {columns.length ? (
        <TableScroll label={t("plugin_kanban.columns.list")}>
          <table className="payment-table kanban-columns-table">
            <tbody>
              {columns.map((c, i) => {
                const refused = readFormResult(data, `column-${c.id}`);
                const inputId = `kanban-column-${c.id}`;
                return (
                  <tr key={c.id} data-column={c.id}>
                    <td>
                      <Form method="post" className="inline-form" key={refusalKey(refused, `${location.key}-${c.id}`)}>
                        <input type="hidden" name="intent" value="rename" />
                        <input type="hidden" name="id" value={c.id} />
                        <label htmlFor={inputId} className="sr-only">
                          {t("plugin_kanban.columns.rename", { name: c.name })}
                        </label>
                        <input
                          id={inputId}
                          name="name"
                          maxLength={COLUMN_NAME_MAX + 20}
                          defaultValue={refused?.values?.name ?? c.name}
                          aria-invalid={refused?.errors?.name ? true : undefined}
                          aria-describedby={refused?.errors?.name ? `${inputId}-error` : undefined}
                        />
                        <button type="submit" className="button">
                          {t("plugin_kanban.columns.save")}
                        </button>
                        {refused?.errors?.name ? (
                          <p className="field-error" id={`${inputId}-error`}>
                            {t(refused.errors.name)}
                          </p>
                        ) : null}
                        <FormMessage result={refused} />
                      </Form>
                    </td>
                    <td>
                      <Form method="post" className="inline-form">
                        <input type="hidden" name="id" value={c.id} />
                        {i > 0 ? (
                          <button type="submit" name="intent" value="left" className="button" aria-label={t("plugin_kanban.columns.leftOf", { name: c.name })}>
                            {t("plugin_kanban.columns.left")}
                          </button>
                        ) : null}
                        {i < columns.length - 1 ? (
                          <button
                            type="submit"
                            name="intent"
                            value="right"
                            className="button"
                            aria-label={t("plugin_kanban.columns.rightOf", { name: c.name })}
                          >
                            {t("plugin_kanban.columns.right")}
                          </button>
                        ) : null}
                        <button
                          type="submit"
                          name="intent"
                          value="delete"
                          className="button danger"
                          aria-label={t("plugin_kanban.columns.deleteOf", { name: c.name })}
                        >
                          {t("plugin_kanban.columns.delete")}
                        </button>
                      </Form>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_kanban.columns.none")}</p>
      )}
    </section>
  );
}
