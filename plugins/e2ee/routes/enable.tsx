// /e2ee/enable/{number}: turning end-to-end encryption on for a workspace chat, a real form (works
// without JavaScript); participants only. From then on the chat takes only ciphertext, and the
// first sender's browser makes key version 1.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import { findConversation, NotFound } from "~/conversation/model.server";
import { conversationPath } from "~/conversation/channels";
import { formResult, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { E2eeRefused, enableEncryption } from "../e2ee.server";
import { ENCRYPTION_METHODS, type EncryptionMethod } from "../crypto";

async function open(request: Request, context: object | undefined, number: string | undefined) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  try {
    // a live chat's panel links here with ?kind=livechat (ticket numbers are one sequence, kinds apart)
    const kind = new URL(request.url).searchParams.get("kind") === "livechat" ? "livechat" : "chat";
    return { user: ctx.user, ticket: await findConversation(ctx.user, Number(number), kind) };
  } catch (error) {
    if (error instanceof NotFound) throw new Response("Not Found", { status: 404 });
    if (error instanceof AccessDenied) throw new Response("Forbidden", { status: 403 });
    throw error;
  }
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ticket } = await open(request, context, params.number);
  return json(
    {
      number: ticket.ticketNumber,
      title: ticket.title,
      on: ticket.encryption,
      back: conversationPath(ticket.kind, ticket.ticketNumber),
      // a live chat's visitor shares no passphrase: keys only
      methods: ticket.kind === "livechat" ? (["rsa"] as const) : ENCRYPTION_METHODS,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user, ticket } = await open(request, context, params.number);
  const method = String((await request.formData()).get("method") ?? "rsa");
  try {
    await enableEncryption(user, ticket, method as EncryptionMethod);
  } catch (error) {
    if (error instanceof E2eeRefused) return refuse(formResult({ message: error.message }), error.status);
    throw error;
  }
  return redirect(conversationPath(ticket.kind, ticket.ticketNumber));
}

export const meta = pageMeta("plugin_e2ee.enable.title");

export default function EnableEncryption() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="stack narrow">
      <p>
        <Link to={data.back}>{t("plugin_e2ee.enable.back")}</Link>
      </p>
      <h1>{t("plugin_e2ee.enable.title")}</h1>
      <p>
        <span className="muted">#{data.number}</span> {data.title}
      </p>
      {data.on ? (
        <p role="status">{t("plugin_e2ee.enable.already")}</p>
      ) : (
        <Form method="post" className="stack">
          <FormMessage result={failed} />
          <p>{t("plugin_e2ee.enable.intro", { number: data.number })}</p>
          <fieldset className="stack">
            <legend>{t("plugin_e2ee.enable.method")}</legend>
            {data.methods.map((method) => (
              <label key={method} className="inline">
                <input type="radio" name="method" value={method} defaultChecked={method === "rsa"} /> {t(`plugin_e2ee.enable.${method}`)}
              </label>
            ))}
          </fieldset>
          <div>
            <button type="submit" className="button primary" disabled={busy}>
              {t("plugin_e2ee.enable.submit")}
            </button>
          </div>
        </Form>
      )}
    </section>
  );
}
