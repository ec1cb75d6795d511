// /settings/statuses (admins): the built-in second statuses, and custom ones to add or remove.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { formError, formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { IntentButton } from "~/components/IntentButton";
import { PRESENCE_STATUSES, STATUSES_NEEDING_REASON } from "~/presence";
import { SettingsNav } from "../components/SettingsNav";
import { addCustomStatus, customStatusSchema, listCustomStatuses, removeCustomStatus, CUSTOM_STATUS_NAME_MAX } from "../custom-statuses.server";
import { pageMeta } from "~/meta";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const saved = new URL(request.url).searchParams.get("saved");
  return json({ custom: await listCustomStatuses(), saved: saved === "added" || saved === "removed" ? saved : null, nameMax: CUSTOM_STATUS_NAME_MAX });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const ip = String(context.clientIp ?? "");
  if (form.get("intent") === "remove") {
    const result = await removeCustomStatus(user, Number(form.get("id")), ip);
    if (!result.ok) return refuse(formResult({ intent: "remove", message: result.error }), 404);
    return redirect("/settings/statuses?saved=removed");
  }
  const values = formValues(form, ["name", "needs_reason"]);
  const parsed = customStatusSchema.safeParse({ name: values.name, needsReason: values.needs_reason === "on" });
  if (!parsed.success) return refuse(formError(parsed.error, values, "add"));
  const result = await addCustomStatus(user, parsed.data, ip);
  if (!result.ok) return refuse(formResult({ intent: "add", errors: { name: result.error }, values }), 409);
  return redirect("/settings/statuses?saved=added");
}

export const meta = pageMeta("account.statuses.title");

export default function Statuses() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const add = useFormResult("add");
  const removal = useFormResult("remove");
  const nameError = add?.errors.name;
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("account.statuses.title")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t(data.saved === "added" ? "account.statuses.added" : "account.statuses.removed")}
        </p>
      ) : null}
      <section aria-labelledby="built-in-heading">
        <h2 id="built-in-heading">{t("account.statuses.builtIn")}</h2>
        <ul>
          {PRESENCE_STATUSES.map((s) => (
            <li key={s}>
              {t(`status.${s}`)}
              {(STATUSES_NEEDING_REASON as readonly string[]).includes(s) ? <span className="muted"> · {t("account.statuses.needsReason")}</span> : null}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="custom-heading" className="stack">
        <h2 id="custom-heading">{t("account.statuses.custom")}</h2>
        <FormMessage result={removal} />
        {data.custom.length === 0 ? (
          <p className="muted">{t("account.statuses.none")}</p>
        ) : (
          <table className="custom-statuses">
            <thead>
              <tr>
                <th scope="col">{t("account.statuses.name")}</th>
                <th scope="col">{t("account.statuses.needsReason")}</th>
                <th scope="col">{t("account.statuses.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {data.custom.map((s) => (
                <tr key={s.id} data-status={s.name}>
                  <td>{s.name}</td>
                  <td>{t(s.needsReason ? "account.statuses.yes" : "account.statuses.no")}</td>
                  <td>
                    <IntentButton intent="remove" id={s.id} label={t("account.statuses.removeNamed", { name: s.name })}>
                      {t("account.statuses.remove")}
                    </IntentButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="add-heading">
        <h2 id="add-heading">{t("account.statuses.addTitle")}</h2>
        <Form method="post" className="stack narrow" noValidate key={add ? JSON.stringify(add.values) : "new"}>
          <input type="hidden" name="intent" value="add" />
          <label>
            {t("account.statuses.name")}
            <input
              name="name"
              maxLength={data.nameMax}
              defaultValue={add?.values.name ?? ""}
              aria-invalid={nameError ? true : undefined}
              aria-describedby={nameError ? "status-name-error" : undefined}
              required
            />
          </label>
          {nameError ? (
            <p id="status-name-error" className="field-error">
              {t(nameError)}
            </p>
          ) : null}
          <label style={{ flexDirection: "row", alignItems: "center", gap: ".4rem", fontWeight: 400 }}>
            <input type="checkbox" name="needs_reason" defaultChecked={add?.values.needs_reason === "on"} />
            {t("account.statuses.needsReason")}
          </label>
          <button type="submit" className="button primary">
            {t("account.statuses.add")}
          </button>
        </Form>
      </section>
    </section>
  );
}
