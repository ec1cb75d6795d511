// /whatsapp/template/{ticket number}: outside WhatsApp's 24-hour window an agent answers with an
// approved template. Step one chooses the template (a GET form: its values' fields follow from
// it), step two fills its values, shows what the customer will read and sends it. Plain forms:
// both work without JavaScript; a refusal keeps what was typed, and the request key makes a double
// submit send once.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { conversationPath } from "~/conversation/channels";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { pageMeta } from "~/meta";
import { sendTemplate, templateConversation } from "../templates.server";
import { renderTemplate, templateId, valueField } from "../templates";

async function conversationOf(reader: Parameters<typeof templateConversation>[0], number: string | undefined) {
  try {
    return await templateConversation(reader, Number(number));
  } catch (error) {
    if (error instanceof AccessDenied) throw json({ code: "denied" }, { status: 403 });
    if (error instanceof NotFound) throw new Response("Not Found", { status: 404 });
    throw error;
  }
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const found = await conversationOf(ctx.user!, params.number);
  const chosen = new URL(request.url).searchParams.get("template") ?? "";
  return json(
    {
      ticket: { number: found.ticket.ticketNumber, title: found.ticket.title, contactName: found.ticket.contactName },
      templates: found.templates,
      chosen: found.templates.some((t) => templateId(t) === chosen) ? chosen : "",
      error: found.error,
      detail: "detail" in found ? (found.detail ?? "") : "",
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = ctx.user!;
  const number = Number(params.number);
  const form = await request.formData();
  const values = formValues(form);
  const key = requestKeyOfRequest(request, `user:${user.id}`, "whatsapp.template", values);
  try {
    const outcome = await once(
      key,
      () => conversationOf(user, params.number).then(() => sendTemplate(user, number, values)),
      () => ({ ok: true as const, messageIds: [] }),
    );
    if (!outcome.ok) return refuse(formResult({ errors: outcome.errors, values, message: outcome.message, messageValues: outcome.messageValues }));
  } catch (error) {
    if (error instanceof KeyReused) return refuse(formResult({ message: "conversation.sentBefore", values }), 422);
    throw error;
  }
  return redirect(conversationPath("ticket", number));
}

export const meta = pageMeta("plugin_whatsapp.template.title");

export default function TemplatePage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult();
  const location = useLocation();
  const busy = useNavigation().state === "submitting";
  const chosenId = failed?.values.template ?? data.chosen;
  const chosen = data.templates.find((x) => templateId(x) === chosenId);
  const back = conversationPath("ticket", data.ticket.number);
  const errors = failed?.errors ?? {};
  const typed = (n: number) => failed?.values[valueField(n)] ?? "";
  return (
    <section className="stack narrow whatsapp-template">
      <h1>{t("plugin_whatsapp.template.title")}</h1>
      <p>
        <Link to={back}>{t("plugin_whatsapp.template.back", { number: data.ticket.number, title: data.ticket.title })}</Link>
      </p>
      <p className="muted">{t("plugin_whatsapp.template.intro")}</p>
      {data.error ? (
        <p className="form-error" role="alert">
          {t(data.error, { error: data.detail })}
        </p>
      ) : !data.templates.length ? (
        <p className="notice" role="status">
          {t("plugin_whatsapp.template.none")}
        </p>
      ) : (
        <>
          <Form method="get" className="stack" aria-labelledby="template-choose">
            <h2 id="template-choose">{t("plugin_whatsapp.template.chooseTitle")}</h2>
            <label htmlFor="template-pick">{t("plugin_whatsapp.template.template")}</label>
            <select id="template-pick" name="template" defaultValue={chosenId}>
              {data.templates.map((x) => (
                <option key={templateId(x)} value={templateId(x)}>
                  {`${x.name} (${x.language})`}
                </option>
              ))}
            </select>
            <div>
              <button type="submit" className="button">
                {t("plugin_whatsapp.template.use")}
              </button>
            </div>
          </Form>
          {chosen ? (
            <Form method="post" noValidate className="stack card" aria-labelledby="template-fill" key={refusalKey(failed, location.key)}>
              <h2 id="template-fill">{t("plugin_whatsapp.template.fillTitle", { name: chosen.name, language: chosen.language })}</h2>
              <RequestKeyInput />
              <input type="hidden" name="template" value={templateId(chosen)} />
              <FormMessage result={failed} />
              {errors.template ? <p className="field-error">{t(errors.template)}</p> : null}
              <figure className="template-preview">
                <figcaption>{t("plugin_whatsapp.template.preview")}</figcaption>
                {chosen.header ? <p className="strong">{chosen.header}</p> : null}
                <p className="text-body">
                  {renderTemplate(
                    chosen,
                    Array.from({ length: chosen.params }, (_, i) => typed(i + 1) || `{{${i + 1}}}`),
                  )}
                </p>
                {chosen.footer ? <p className="muted">{chosen.footer}</p> : null}
              </figure>
              {Array.from({ length: chosen.params }, (_, i) => i + 1).map((n) => {
                const id = `template-${valueField(n)}`;
                const error = errors[valueField(n)];
                return (
                  <div className="stack" key={n}>
                    <label htmlFor={id}>{t("plugin_whatsapp.template.value", { n })}</label>
                    <input
                      id={id}
                      name={valueField(n)}
                      defaultValue={typed(n)}
                      required
                      maxLength={1024}
                      aria-invalid={!!error}
                      aria-describedby={error ? `${id}-error` : undefined}
                    />
                    {error ? (
                      <p id={`${id}-error`} className="field-error">
                        {t(error)}
                      </p>
                    ) : null}
                  </div>
                );
              })}
              <div>
                <button type="submit" className="button primary" disabled={busy}>
                  {t("plugin_whatsapp.template.send")}
                </button>
              </div>
            </Form>
          ) : null}
        </>
      )}
    </section>
  );
}
