// /register/livechat/{token}: the visitor's form. Agents online: Name, Phone, Email and Message,
// then Connect (joins the queue). Nobody online: only Message, then Submit (left for later).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import * as livechat from "../livechat.server";
import { MAX_VISITOR_MESSAGE } from "../limits";
import { getSettings } from "~/models/settings.server";
import { clientIpOf, registerVisitor } from "../visitor.server";
import { keyHeaders, visitorKey } from "../visitor-key.server";
import { REGISTRATION_FIELDS, type RegistrationField } from "../forms";
import { formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { VisitorFrame, VisitorInvalid } from "../components/VisitorChat";
import { fieldProps, PublicField } from "~/components/PublicForm";
import { FormMessage } from "~/components/FormMessage";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const visit = await livechat.findVisit(params.token);
  if (!visit) return json({ valid: false as const, productTitle: ctx.edition.title }, { status: 404 });
  if (visit.state !== "new") throw redirect(`/livechat/${visit.token}`);
  const [online, settings, key] = await Promise.all([livechat.agentsOnline(), getSettings(), visitorKey(request)]);
  return json(
    {
      valid: true as const,
      productTitle: ctx.edition.title,
      online,
      csrf: livechat.visitCsrf(visit.token),
      links: { privacy: settings.privacy_url, terms: settings.terms_url },
    },
    { headers: keyHeaders(key) },
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.productTitle ?? "" }];

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const visit = await livechat.findVisit(params.token);
  if (!visit) throw new Response("Not Found", { status: 404 });
  const form = await request.formData();
  const values = formValues(form, REGISTRATION_FIELDS);
  if (!livechat.validVisitCsrf(visit.token, form.get("_token"))) return refuse(formResult({ message: "livechat.expired", values }), 403);
  const key = await visitorKey(request);
  const outcome = await registerVisitor(visit, values, clientIpOf(context), key.hash);
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`/livechat/${visit.token}`, { headers: keyHeaders(key) });
}

export default function RegisterLiveChat() {
  const data = useLoaderData<typeof loader>();
  const result = useFormResult();
  const busy = useNavigation().state !== "idle";
  const { t } = useTranslation();
  if (!data.valid) return <VisitorInvalid />;
  const errors = result?.errors ?? {};
  const field = (name: RegistrationField, label: string, input: JSX.Element) => (
    <PublicField name={name} label={label} error={errors[name]} errorValues={result?.messageValues}>
      {input}
    </PublicField>
  );
  const common = (name: RegistrationField) => fieldProps(name, result?.values, errors[name]);
  return (
    <VisitorFrame links={data.links}>
      <h1>{t("livechat.title")}</h1>
      {data.online ? null : <p className="notice">{t("livechat.offline")}</p>}
      <Form method="post" className="stack" noValidate>
        <input type="hidden" name="_token" value={data.csrf} />
        <FormMessage result={result} />
        {data.online ? (
          <>
            {field("name", t("livechat.name"), <input {...common("name")} autoComplete="name" maxLength={120} />)}
            {field("phone", t("livechat.phone"), <input {...common("phone")} type="tel" autoComplete="tel" maxLength={40} />)}
            {field("email", t("livechat.email"), <input {...common("email")} type="email" autoComplete="email" maxLength={200} />)}
          </>
        ) : null}
        {field("message", t("livechat.message"), <textarea {...common("message")} rows={4} maxLength={MAX_VISITOR_MESSAGE} />)}
        <button type="submit" className="button primary" disabled={busy}>
          {data.online ? t("livechat.connect") : t("livechat.submit")}
        </button>
      </Form>
    </VisitorFrame>
  );
}
