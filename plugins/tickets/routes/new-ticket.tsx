// /new_ticket/{token}: a public form that opens a ticket (name, email, subject, message, file).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { csrfToken, hasCsrfCookie, validCsrf } from "~/csrf.server";
import { receive } from "~/conversation/receive.server";
import { isValidToken } from "~/accounts/public-tokens.server";
import { getSetting } from "~/models/settings.server";
import { fileStorage } from "~/storage.server";
import { BodyTooLarge, FormRefused, readReplyForm, storeFiles, type ParsedForm } from "~/conversation/upload.server";
import { oneAddress } from "~/conversation/forms";
import { formError, formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { fieldProps, MessagePage, PublicField } from "~/components/PublicForm";
import { FormMessage } from "~/components/FormMessage";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { newTicketLimiter as limiter } from "../new-ticket.server";

const EMPTY = "newTicket.empty";
const schema = z
  .object({
    name: z.string().trim().min(1, EMPTY).max(120),
    email: z.string().trim().min(1, EMPTY).max(200),
    subject: z.string().trim().min(1, EMPTY).max(200),
    message: z.string().trim().min(1, EMPTY).max(20_000),
  })
  .transform(oneAddress);
const FIELDS = ["name", "email", "subject", "message"] as const;
type Fields = (typeof FIELDS)[number];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!(await isValidToken("new_ticket", params.token))) return json({ valid: false as const, productTitle: ctx.edition.title }, { status: 404 });
  const { token, setCookie } = await csrfToken(request);
  const sent = new URL(request.url).searchParams.has("sent");
  return json({ valid: true as const, csrf: token, sent, productTitle: ctx.edition.title }, setCookie ? { headers: { "Set-Cookie": setCookie } } : undefined);
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.productTitle ?? "" }];

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  if (!(await isValidToken("new_ticket", params.token))) throw new Response("Not Found", { status: 404 });
  // refused before the body is read: no form token cookie, a body over the limit, a wrong form
  // token before the first file (the page puts it first)
  if (!(await hasCsrfCookie(request))) return refuse(formResult({ message: "newTicket.expired" }), 403);
  let parts: ParsedForm;
  try {
    parts = await readReplyForm(request, { beforeFiles: (fields) => validCsrf(request, fields.get("_token")) });
  } catch (error) {
    if (error instanceof BodyTooLarge)
      return refuse(formResult({ message: "conversation.bodyTooLarge", messageValues: { size: String(error.limit / 1024 / 1024) } }), 413);
    if (error instanceof FormRefused) return refuse(formResult({ message: "newTicket.expired" }), 403);
    throw error;
  }
  const { form, files, fileErrors } = parts;
  const values = formValues(form, FIELDS);
  if (!(await validCsrf(request, form.get("_token")))) return refuse(formResult({ message: "newTicket.expired", values }), 403);
  const parsed = schema.safeParse(values);
  if (!parsed.success) return refuse(formError(parsed.error, values));
  if (fileErrors.length) return refuse(formResult({ message: "conversation.uploadFailed", messageValues: { error: fileErrors.join(" ") }, values }));
  const input = parsed.data;
  const done = () => redirect(`${new URL(request.url).pathname}?sent=1`);
  // the form sent twice with its key (a double click, a resend after a lost answer) makes one ticket
  const requestKey = requestKeyOfRequest(request, "new-ticket", "new_ticket", formValues(form), files);
  return once(requestKey, create, done).catch((error) => {
    if (error instanceof KeyReused) return refuse(formResult({ message: "conversation.sentBefore", values }), 422);
    throw error;
  });

  async function create() {
    // counted before creating (parallel posts cannot slip past the limit); given back on failure
    try {
      await limiter.consume(context.clientIp);
    } catch {
      return refuse(formResult({ message: "newTicket.tooMany", values }), 429);
    }
    const stored = await storeFiles(files);
    try {
      await receive({
        ticket: {
          channel: "MANUAL",
          title: input.subject,
          contactName: input.name,
          contactEmail: input.email,
          departmentId: Number(await getSetting("new_ticket_department")) || null,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body: input.message, type: "text", senderName: input.name },
        files: stored,
      });
    } catch (error) {
      await Promise.all(stored.map((f) => fileStorage().remove(f.key)));
      await limiter.reward(context.clientIp, 1);
      throw error;
    }
    return done();
  }
}

export default function NewTicket() {
  const data = useLoaderData<typeof loader>();
  const result = useFormResult();
  const busy = useNavigation().state !== "idle";
  const { t } = useTranslation();
  if (!data.valid) return <MessagePage title={t("newTicket.invalidTitle")} body={t("newTicket.invalidBody")} />;
  if (data.sent) return <MessagePage title={t("newTicket.sentTitle")} body={t("newTicket.sentBody")} status />;
  const errors = result?.errors ?? {};
  const field = (name: Fields, label: string, input: JSX.Element) => (
    <PublicField name={name} label={label} error={errors[name]} errorValues={result?.messageValues}>
      {input}
    </PublicField>
  );
  const common = (name: Fields) => fieldProps(name, result?.values, errors[name]);
  return (
    <main className="login-page">
      <section className="login-card wide">
        <h1>{t("newTicket.title")}</h1>
        <p className="muted">{data.productTitle}</p>
        <Form method="post" encType="multipart/form-data" className="stack" noValidate>
          <input type="hidden" name="_token" value={data.csrf} />
          <RequestKeyInput />
          <FormMessage result={result} />
          {field("name", t("newTicket.name"), <input {...common("name")} autoComplete="name" maxLength={120} />)}
          {field("email", t("newTicket.email"), <input {...common("email")} type="email" autoComplete="email" maxLength={200} />)}
          {field("subject", t("newTicket.subject"), <input {...common("subject")} maxLength={200} />)}
          {field("message", t("newTicket.message"), <textarea {...common("message")} rows={6} maxLength={20000} />)}
          <label>
            {t("newTicket.attachment")}
            <input type="file" name="attachment" />
          </label>
          <button type="submit" className="button primary" disabled={busy}>
            {t("newTicket.submit")}
          </button>
        </Form>
      </section>
    </main>
  );
}
