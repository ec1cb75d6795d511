// /livechat: the agent's live chat desk: who is waiting (Accept), and the chats by session.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import { acceptLiveChat, liveChatDesk } from "../livechat.server";
import { formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { deskSchema } from "../forms";
import { DeskSessions } from "../components/DeskSessions";
import { FormMessage } from "~/components/FormMessage";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  return json({ desk: await liveChatDesk(ctx.user!) });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const form = await request.formData();
  const parsed = deskSchema.safeParse(formValues(form));
  if (!parsed.success) return refuse(formResult({ message: "conversation.badInput" }));
  try {
    const accepted = await acceptLiveChat(ctx.user!, parsed.data.ticket_id);
    if (!accepted) return refuse(formResult({ message: "livechat.takenByOther" }), 409);
    return redirect(`/livechat/${accepted.ticketNumber}`);
  } catch (error) {
    if (error instanceof AccessDenied) throw json({ code: "denied" }, { status: 403 });
    throw error;
  }
}

export default function LiveChatDesk() {
  const { t } = useTranslation();
  const { desk } = useLoaderData<typeof loader>();
  const result = useFormResult();
  return (
    <div className="page livechat-desk">
      <h1>{t("livechat.desk.title")}</h1>
      <FormMessage result={result} />
      <section aria-labelledby="queue-title">
        <h2 id="queue-title">{t("livechat.desk.queue")}</h2>
        {desk.queue.length ? (
          <ol className="queue">
            {desk.queue.map((q) => (
              <li key={q.id} data-ticket-id={q.id}>
                <Link to={`/livechat/${q.ticketNumber}`}>
                  <strong>{q.title}</strong>
                </Link>{" "}
                <span className="muted">{q.lastMessage}</span>
                <Form method="post" action="/livechat" className="inline">
                  <input type="hidden" name="intent" value="accept" />
                  <input type="hidden" name="ticket_id" value={q.id} />
                  <button type="submit" className="button primary">
                    {t("livechat.desk.accept")}
                  </button>
                </Form>
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">{t("livechat.desk.emptyQueue")}</p>
        )}
      </section>
      <section aria-labelledby="sessions-title">
        <h2 id="sessions-title">{t("livechat.desk.sessions")}</h2>
        <DeskSessions sessions={desk.sessions} />
      </section>
    </div>
  );
}
