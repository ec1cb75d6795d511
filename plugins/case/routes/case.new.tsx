// /case/new: a new case (title, type, owner, due date); it opens as "open". A refusal keeps what
// was typed; the request key makes a double submit create one case.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { staffList } from "~/conversation/model.server";
import { formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { attachTicket, caseTypes, createCase } from "../case.server";
import { CaseFields } from "../components/CaseFields";
import { requireCaseUser } from "../guard.server";
import { CASE_FIELDS } from "../limits";
import { formWriteOnce } from "~/request-keys.server";

/** ?ticket=N (from a conversation's Case panel): the new case takes that ticket with it. */
const ticketParam = (value: string | null) => (value && /^\d{1,10}$/.test(value) ? value : "");

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireCaseUser(request, context);
  const [types, staff] = await Promise.all([caseTypes(), staffList()]);
  const ticket = ticketParam(new URL(request.url).searchParams.get("ticket"));
  return json({ types, staff: staff.map((s) => ({ id: s.id, name: s.name })), ticket }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireCaseUser(request, context);
  const form = await request.formData();
  const values = formValues(form, CASE_FIELDS);
  const outcome = await formWriteOnce(request, user.id, "case", "create", formValues(form), () => createCase(user, values));
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  // the ticket it was opened from joins it (unless it joined another case meanwhile: the case's page then lists no ticket)
  const ticket = ticketParam(String(form.get("ticket") ?? ""));
  if (ticket) await attachTicket(user, outcome.number, ticket);
  return redirect(`/case/${outcome.number}`);
}

export const meta = pageMeta("plugin_case.new.title");

export default function NewCase() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult();
  const location = useLocation();
  const navigation = useNavigation();
  return (
    <section className="stack case-page">
      <p>
        <Link to="/case">{t("plugin_case.back")}</Link>
      </p>
      <h1>{t("plugin_case.new.title")}</h1>
      <Form method="post" noValidate className="stack narrow" key={refusalKey(failed, location.key)}>
        <RequestKeyInput />
        <FormMessage result={failed} />
        {data.ticket ? (
          <p className="muted">
            <input type="hidden" name="ticket" value={data.ticket} />
            {t("plugin_case.panel.withTicket", { number: data.ticket })}
          </p>
        ) : null}
        <CaseFields options={data} initial={{}} failed={failed} withStatus={false} />
        <div>
          <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
            {t("plugin_case.new.create")}
          </button>
        </div>
      </Form>
    </section>
  );
}
