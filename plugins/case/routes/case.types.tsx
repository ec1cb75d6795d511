// /case/types (admins): the case types agents choose from (the ticket field case_type). A type is
// added, renamed, or retired (no longer offered; the cases that have it keep it).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { TableScroll } from "~/components/TableScroll";
import { formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { caseTypes, saveCaseType } from "../case.server";
import { requireCaseUser } from "../guard.server";
import { TYPE_NAME_MAX } from "../limits";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireCaseUser(request, context);
  if (ctx.user.type !== "admin") throw redirect("/case");
  return json({ types: await caseTypes() }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireCaseUser(request, context);
  const values = formValues(await request.formData(), ["id", "name", "active"]);
  const outcome = await saveCaseType(user, values);
  if (!outcome.ok) return refuse({ ...outcome.result, intent: values.id ? `type-${values.id}` : "type-new" }, outcome.status);
  return redirect("/case/types");
}

export const meta = pageMeta("plugin_case.types.title");

function TypeForm({ type }: { type?: { id: number; name: string; active: boolean } }) {
  const { t } = useTranslation();
  const location = useLocation();
  const navigation = useNavigation();
  const intent = type ? `type-${type.id}` : "type-new";
  const failed = useFormResult(intent);
  const id = type ? `case-type-${type.id}` : "case-type-new";
  const error = failed?.errors.name;
  const active = failed ? failed.values.active === "1" : (type?.active ?? true);
  return (
    <Form
      method="post"
      noValidate
      className="inline-form"
      key={refusalKey(failed, location.key)}
      aria-label={type ? t("plugin_case.types.edit", { name: type.name }) : t("plugin_case.types.add")}
    >
      <FormMessage result={failed} />
      <input type="hidden" name="id" value={type?.id ?? ""} />
      <label htmlFor={id}>{t("plugin_case.types.name")}</label>
      <input
        id={id}
        name="name"
        type="text"
        maxLength={TYPE_NAME_MAX}
        defaultValue={failed?.values.name ?? type?.name ?? ""}
        aria-invalid={!!error}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <label>
        <input type="checkbox" name="active" value="1" defaultChecked={active} /> {t("plugin_case.types.active")}
      </label>
      <button type="submit" className="button" disabled={navigation.state === "submitting"}>
        {type ? t("plugin_case.detail.save") : t("plugin_case.types.addButton")}
      </button>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {t(error, { max: TYPE_NAME_MAX, ...failed?.messageValues })}
        </p>
      ) : null}
    </Form>
  );
}

export default function CaseTypes() {
  const { types } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="stack case-page">
      <p>
        <Link to="/case">{t("plugin_case.back")}</Link>
      </p>
      <h1>{t("plugin_case.types.title")}</h1>
      <p className="muted">{t("plugin_case.types.intro")}</p>
      <section className="card stack" aria-labelledby="case-type-add">
        <h2 id="case-type-add">{t("plugin_case.types.add")}</h2>
        <TypeForm />
      </section>
      <section className="stack" aria-labelledby="case-type-list">
        <h2 id="case-type-list">{t("plugin_case.types.list")}</h2>
        {types.length ? (
          <TableScroll label={t("plugin_case.types.list")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_case.types.name")}</th>
                </tr>
              </thead>
              <tbody>
                {types.map((ty) => (
                  <tr key={ty.id}>
                    <td>
                      <TypeForm type={ty} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_case.types.none")}</p>
        )}
      </section>
    </section>
  );
}
