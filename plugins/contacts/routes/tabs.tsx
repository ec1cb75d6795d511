// /contacts/tabs (admins): the custom contact tabs of /contacts (spec section 3: a name, the
// start_index of its first contact and data_per_page): add one, remove one (the contacts stay).
// Plain forms: the same without JavaScript; a refusal names the wrong field and keeps what was typed.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { LIST_PAGE, LIST_PAGE_MAX } from "../contacts.server";
import { requireContactsAdmin } from "../guard.server";
import { addContactTab, contactTabs, removeContactTab, START_INDEX_MAX, TAB_FORM, TAB_NAME_MAX } from "../tabs.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireContactsAdmin(request, context);
  const url = new URL(request.url);
  return json(
    { tabs: await contactTabs(), added: url.searchParams.has("added"), removed: url.searchParams.has("removed") },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireContactsAdmin(request, context);
  const form = await request.formData();
  if (form.get("intent") === "remove") {
    const id = Number(form.get("tab"));
    if (!Number.isSafeInteger(id) || !(await removeContactTab(id, user)))
      return refuse(formResult({ intent: "remove", message: "plugin_contacts.tabs.error.notFound" }), 404);
    return redirect("/contacts/tabs?removed=1");
  }
  const added = await addContactTab(formValues(form, TAB_FORM), user);
  if (!added.ok) return refuse(added.result);
  return redirect("/contacts/tabs?added=1");
}

export const meta = pageMeta("plugin_contacts.tabs.pageTitle");

export default function ContactTabsPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult("addTab");
  const removed = useFormResult("remove");
  const navigation = useNavigation();
  const location = useLocation();
  const errors = failed?.errors ?? {};
  const field = (name: (typeof TAB_FORM)[number], label: string, help: string, input: Record<string, unknown>) => {
    const id = `tab-${name}`;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          name={name}
          defaultValue={failed?.values[name] ?? (name === "start_index" ? "0" : name === "data_per_page" ? String(LIST_PAGE) : "")}
          aria-invalid={!!errors[name]}
          aria-describedby={[help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined}
          autoComplete="off"
          {...input}
        />
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], failed?.messageValues)}
          </p>
        ) : null}
      </div>
    );
  };
  return (
    <section className="stack contact-tabs-page">
      <p>
        <Link to="/contacts">{t("plugin_contacts.contact.back")}</Link>
      </p>
      <h1>{t("plugin_contacts.tabs.pageTitle")}</h1>
      <p>{t("plugin_contacts.tabs.explain")}</p>
      {data.removed ? (
        <p className="notice" role="status">
          {t("plugin_contacts.tabs.removed")}
        </p>
      ) : null}
      <FormMessage result={removed} />
      {data.tabs.length ? (
        <ul className="stack">
          {data.tabs.map((tab) => (
            <li key={tab.id} data-testid={`contact-tab-${tab.id}`}>
              <Form method="post" className="row">
                <input type="hidden" name="tab" value={tab.id} />
                <span>
                  <Link to={`/contacts?tab=${tab.id}`}>{tab.name}</Link>
                  {` · ${t("plugin_contacts.tabs.summary", { start: tab.startIndex, perPage: tab.dataPerPage })}`}
                </span>
                <button type="submit" name="intent" value="remove" className="button" aria-label={t("plugin_contacts.tabs.removeNamed", { name: tab.name })}>
                  {t("plugin_contacts.tabs.remove")}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t("plugin_contacts.tabs.none")}</p>
      )}
      <section className="card stack" aria-labelledby="tab-add">
        <h2 id="tab-add">{t("plugin_contacts.tabs.add")}</h2>
        {data.added ? (
          <p className="notice" role="status">
            {t("plugin_contacts.tabs.added")}
          </p>
        ) : null}
        <Form method="post" noValidate className="stack narrow" aria-labelledby="tab-add" key={refusalKey(failed, location.key)}>
          <input type="hidden" name="intent" value="add" />
          <FormMessage result={failed} />
          {field("name", t("plugin_contacts.tabs.name"), "", { maxLength: TAB_NAME_MAX })}
          {field("start_index", t("plugin_contacts.tabs.startIndex"), t("plugin_contacts.tabs.startIndexHelp", { max: START_INDEX_MAX }), {
            inputMode: "numeric",
          })}
          {field("data_per_page", t("plugin_contacts.tabs.dataPerPage"), t("plugin_contacts.tabs.dataPerPageHelp", { max: LIST_PAGE_MAX }), {
            inputMode: "numeric",
          })}
          <div>
            <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
              {t("plugin_contacts.tabs.addButton")}
            </button>
          </div>
        </Form>
      </section>
    </section>
  );
}
