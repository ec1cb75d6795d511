// /contacts/fields (admins): the custom fields every contact has: add one (a label, its kind: text,
// number, date or a select with its choices one per line, and whether it is required), rename one
// (its values stay), move one up or down (the order contacts show them in), and retire or bring
// back one. Plain forms: the same without JavaScript; a refusal keeps what was typed.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { requireContactsAdmin } from "../guard.server";
import {
  addCustomField,
  customFields,
  FIELD_FORM,
  FIELD_KINDS,
  LABEL_MAX,
  moveCustomField,
  renameCustomField,
  setCustomFieldActive,
} from "../custom-fields.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireContactsAdmin(request, context);
  const url = new URL(request.url);
  const done = ["added", "renamed", "moved"].find((k) => url.searchParams.has(k)) ?? null;
  return json({ fields: await customFields({ all: true }), done }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireContactsAdmin(request, context);
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "retire" || intent === "restore") {
    const id = Number(form.get("field"));
    if (!Number.isSafeInteger(id) || !(await setCustomFieldActive(id, intent === "restore", user)))
      return refuse(formResult({ intent: "toggle", message: "plugin_contacts.customFields.error.gone" }), 404);
    return redirect("/contacts/fields");
  }
  if (intent === "up" || intent === "down") {
    const id = Number(form.get("field"));
    if (!Number.isSafeInteger(id) || !(await moveCustomField(id, intent, user)))
      return refuse(formResult({ intent: "toggle", message: "plugin_contacts.customFields.error.gone" }), 404);
    return redirect(`/contacts/fields?moved=${id}`);
  }
  if (intent === "rename") {
    const id = Number(form.get("field"));
    const renamed = await renameCustomField(Number.isSafeInteger(id) ? id : -1, String(form.get("label") ?? ""), user);
    if (!renamed.ok) return refuse(renamed.result, renamed.status);
    return redirect("/contacts/fields?renamed=1");
  }
  const values = formValues(form, FIELD_FORM);
  const added = await addCustomField(values, user);
  if (!added.ok) return refuse(added.result);
  return redirect("/contacts/fields?added=1");
}

export const meta = pageMeta("plugin_contacts.customFields.pageTitle");

export default function CustomFieldsPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult("addField");
  const toggled = useFormResult("toggle");
  const renaming = useFormResult("rename");
  const navigation = useNavigation();
  const location = useLocation();
  const errors = failed?.errors ?? {};
  const value = (name: (typeof FIELD_FORM)[number]) => failed?.values[name] ?? "";
  const describedBy = (name: string, help?: boolean) =>
    [help ? `field-${name}-help` : "", errors[name] ? `field-${name}-error` : ""].filter(Boolean).join(" ") || undefined;
  const errorOf = (name: string) =>
    errors[name] ? (
      <p id={`field-${name}-error`} className="field-error">
        {t(errors[name], failed?.messageValues)}
      </p>
    ) : null;
  return (
    <section className="stack contact-fields-page">
      <p>
        <Link to="/contacts">{t("plugin_contacts.contact.back")}</Link>
      </p>
      <h1>{t("plugin_contacts.customFields.pageTitle")}</h1>
      <FormMessage result={toggled} />
      {renaming?.message ? <FormMessage result={renaming} /> : null}
      {data.done === "renamed" || data.done === "moved" ? (
        <p className="notice" role="status">
          {t(`plugin_contacts.customFields.${data.done}`)}
        </p>
      ) : null}
      {data.fields.length ? (
        <section className="stack" aria-labelledby="field-order">
          <h2 id="field-order">{t("plugin_contacts.customFields.order")}</h2>
          <ol className="stack contact-field-list">
            {data.fields.map((f, i) => {
              const renameError = renaming && renaming.values.field === String(f.id) ? renaming : undefined;
              const labelId = `field-${f.id}-label`;
              return (
                <li key={f.id} data-testid={`custom-field-${f.id}`} className="stack">
                  <span>
                    <strong>{f.label}</strong>
                    {` · ${t(`plugin_contacts.customFields.kind.${f.kind}`)}`}
                    {f.kind === "select" ? ` (${f.options.join(", ")})` : ""}
                    {f.required ? ` · ${t("plugin_contacts.customFields.required")}` : ""}
                    {f.active ? "" : ` · ${t("plugin_contacts.customFields.retired")}`}
                  </span>
                  <Form method="post" noValidate className="row" key={renameError ? refusalKey(renameError, location.key) : `rename-${f.id}-${f.label}`}>
                    <input type="hidden" name="field" value={f.id} />
                    <label htmlFor={labelId} className="sr-only">
                      {t("plugin_contacts.customFields.newLabel", { label: f.label })}
                    </label>
                    <input
                      id={labelId}
                      name="label"
                      defaultValue={renameError?.values.label ?? f.label}
                      maxLength={LABEL_MAX}
                      autoComplete="off"
                      aria-invalid={!!renameError?.errors.label}
                      aria-describedby={renameError?.errors.label ? `${labelId}-error` : undefined}
                    />
                    <button
                      type="submit"
                      name="intent"
                      value="rename"
                      className="button"
                      aria-label={t("plugin_contacts.customFields.renameNamed", { label: f.label })}
                    >
                      {t("plugin_contacts.customFields.rename")}
                    </button>
                  </Form>
                  {renameError?.errors.label ? (
                    <p id={`${labelId}-error`} className="field-error">
                      {t(renameError.errors.label)}
                    </p>
                  ) : null}
                  <Form method="post" className="row">
                    <input type="hidden" name="field" value={f.id} />
                    {i > 0 ? (
                      <button
                        type="submit"
                        name="intent"
                        value="up"
                        className="button"
                        aria-label={t("plugin_contacts.customFields.moveUpNamed", { label: f.label })}
                      >
                        {t("plugin_contacts.customFields.moveUp")}
                      </button>
                    ) : null}
                    {i < data.fields.length - 1 ? (
                      <button
                        type="submit"
                        name="intent"
                        value="down"
                        className="button"
                        aria-label={t("plugin_contacts.customFields.moveDownNamed", { label: f.label })}
                      >
                        {t("plugin_contacts.customFields.moveDown")}
                      </button>
                    ) : null}
                    <button
                      type="submit"
                      name="intent"
                      value={f.active ? "retire" : "restore"}
                      className="button"
                      aria-label={t(f.active ? "plugin_contacts.customFields.retireNamed" : "plugin_contacts.customFields.restoreNamed", { label: f.label })}
                    >
                      {t(f.active ? "plugin_contacts.customFields.retire" : "plugin_contacts.customFields.restore")}
                    </button>
                  </Form>
                </li>
              );
            })}
          </ol>
        </section>
      ) : (
        <p className="muted">{t("plugin_contacts.customFields.none")}</p>
      )}
      <section className="card stack" aria-labelledby="field-add">
        <h2 id="field-add">{t("plugin_contacts.customFields.add")}</h2>
        {data.done === "added" ? (
          <p className="notice" role="status">
            {t("plugin_contacts.customFields.added")}
          </p>
        ) : null}
        <Form method="post" noValidate className="stack narrow" aria-labelledby="field-add" key={refusalKey(failed, location.key)}>
          <input type="hidden" name="intent" value="add" />
          <FormMessage result={failed} />
          <div className="stack">
            <label htmlFor="field-label">{t("plugin_contacts.customFields.label")}</label>
            <input
              id="field-label"
              name="label"
              defaultValue={value("label")}
              maxLength={LABEL_MAX}
              aria-invalid={!!errors.label}
              aria-describedby={describedBy("label")}
              autoComplete="off"
            />
            {errorOf("label")}
          </div>
          <div className="stack">
            <label htmlFor="field-kind">{t("plugin_contacts.customFields.kindLabel")}</label>
            <select id="field-kind" name="kind" defaultValue={value("kind") || "text"} aria-invalid={!!errors.kind} aria-describedby={describedBy("kind")}>
              {FIELD_KINDS.map((k) => (
                <option key={k} value={k}>
                  {t(`plugin_contacts.customFields.kind.${k}`)}
                </option>
              ))}
            </select>
            {errorOf("kind")}
          </div>
          <div className="stack">
            <label htmlFor="field-options">{t("plugin_contacts.customFields.options")}</label>
            <textarea
              id="field-options"
              name="options"
              rows={4}
              defaultValue={value("options")}
              aria-invalid={!!errors.options}
              aria-describedby={describedBy("options", true)}
            />
            <p id="field-options-help" className="muted">
              {t("plugin_contacts.customFields.optionsHelp")}
            </p>
            {errorOf("options")}
          </div>
          <label className="row">
            <input type="checkbox" name="required" value="1" defaultChecked={value("required") === "1"} />
            {t("plugin_contacts.customFields.requiredLabel")}
          </label>
          <div>
            <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
              {t("plugin_contacts.customFields.addButton")}
            </button>
          </div>
        </Form>
      </section>
    </section>
  );
}
