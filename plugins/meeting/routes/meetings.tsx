// /meetings: start a video meeting (from the shell, or ?ticket=N from a conversation's panel: the
// meeting belongs to that conversation, its agents may join and its customer may be invited
// through a one-time link), and the running meetings this agent may join. A plain form post.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { staffList } from "~/conversation/model.server";
import { canRead } from "~/conversation/access.server";
import { guardPluginRoute, publicOrigin } from "~/context.server";
import { formError, formResult, formValues, readFormResult, refusalKey } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formWriteOnce } from "~/request-keys.server";
import { myRunningMeetings, startForm, startMeeting } from "../meeting.server";
import { redirect } from "@remix-run/node";

async function requireAgent(request: Request, context: object | undefined) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  return { ...ctx, user: ctx.user };
}

/** The conversation a ticket number names, when this user may read it. */
async function conversationOf(user: { id: number; type: "admin" | "agent" | string; departmentId: number | null }, ticketNumber: string) {
  if (!/^\d{1,10}$/.test(ticketNumber)) return null;
  const { db, schema } = getDb();
  const [t] = await db
    .select({ id: schema.tickets.id, ticketNumber: schema.tickets.ticketNumber, title: schema.tickets.title, contactName: schema.tickets.contactName })
    .from(schema.tickets)
    .where(eq(schema.tickets.ticketNumber, Number(ticketNumber)));
  return t && (await canRead(user as Parameters<typeof canRead>[0], t.id)) ? t : null;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user } = await requireAgent(request, context);
  const ticketParam = new URL(request.url).searchParams.get("ticket") ?? "";
  const [conversation, staff, running] = await Promise.all([ticketParam ? conversationOf(user, ticketParam) : null, staffList(), myRunningMeetings(user)]);
  return json(
    {
      conversation,
      staff: staff.filter((s) => s.id !== user.id).map((s) => ({ id: s.id, name: s.name, username: s.username })),
      running: running.map((m) => ({ token: m.token, title: m.title })),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAgent(request, context);
  const form = await request.formData();
  const values = formValues(form, ["title", "ticket", "inviteCustomer"]);
  const parsed = startForm.safeParse({ ...values, agents: form.getAll("agents").map(String) });
  if (!parsed.success) return refuse(formError(parsed.error, values, "start"));
  const conversation = parsed.data.ticket ? await conversationOf(user, parsed.data.ticket) : null;
  if (parsed.data.ticket && !conversation) return refuse(formResult({ intent: "start", message: "plugin_meeting.errors.ticket", values }), 403);
  const outcome = await formWriteOnce(request, user.id, "meeting", "start", formValues(form), async () => {
    const started = await startMeeting(user, {
      ticketId: conversation?.id ?? null,
      title: parsed.data.title,
      inviteCustomer: parsed.data.inviteCustomer,
      agentIds: parsed.data.agents,
    });
    return started.ok ? started : { ok: false as const, result: formResult({ intent: "start", errors: started.errors, values }), status: 400 };
  });
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  const origin = publicOrigin(request);
  return json({
    started: {
      join: `/meeting/${outcome.token}`,
      guestLink: outcome.guestKey ? `${origin}/meeting/${outcome.token}?k=${outcome.guestKey}` : null,
    },
  });
}

export const meta = pageMeta("plugin_meeting.title");

export default function Meetings() {
  const data = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const failed = readFormResult(answer);
  const started = answer && "started" in answer ? answer.started : null;
  const location = useLocation();
  const navigation = useNavigation();
  const value = (name: string) => failed?.values?.[name] ?? "";
  return (
    <section className="stack meetings-page">
      <h1>{t("plugin_meeting.title")}</h1>
      {started ? (
        <div className="stack" role="status">
          <p>{t("plugin_meeting.start.started")}</p>
          <p>
            <Link className="button primary" to={started.join} data-testid="meeting-join-link">
              {t("plugin_meeting.start.join")}
            </Link>
          </p>
          {started.guestLink ? (
            <p className="stack">
              <label htmlFor="guest-link">{t("plugin_meeting.start.guestLink")}</label>
              <input id="guest-link" readOnly value={started.guestLink} data-testid="meeting-guest-link" />
            </p>
          ) : null}
        </div>
      ) : null}
      <h2>{data.conversation ? t("plugin_meeting.start.fromConversation", { number: data.conversation.ticketNumber }) : t("plugin_meeting.start.title")}</h2>
      <Form method="post" noValidate className="stack narrow" key={refusalKey(failed, location.key)} aria-label={t("plugin_meeting.start.title")}>
        <RequestKeyInput />
        <FormMessage result={failed} />
        {data.conversation ? (
          <p className="muted">
            <input type="hidden" name="ticket" value={data.conversation.ticketNumber} />
            <Link to={`/ticket/${data.conversation.ticketNumber}`}>
              #{data.conversation.ticketNumber} {data.conversation.title}
            </Link>
          </p>
        ) : null}
        <p className="stack">
          <label htmlFor="meeting-title">{t("plugin_meeting.start.meetingTitle")}</label>
          <input
            id="meeting-title"
            name="title"
            maxLength={120}
            defaultValue={value("title")}
            aria-invalid={failed?.errors.title ? true : undefined}
            aria-describedby={failed?.errors.title ? "meeting-title-error" : undefined}
          />
          {failed?.errors.title ? (
            <span id="meeting-title-error" className="field-error">
              {t(failed.errors.title)}
            </span>
          ) : null}
        </p>
        {data.conversation ? (
          <p>
            <label>
              <input type="checkbox" name="inviteCustomer" value="1" defaultChecked={value("inviteCustomer") === "1"} />{" "}
              {t("plugin_meeting.start.inviteCustomer", { name: data.conversation.contactName || t("plugin_meeting.guest") })}
            </label>
          </p>
        ) : null}
        {!data.conversation ? (
          <fieldset className="stack meeting-agents">
            <legend>{t("plugin_meeting.start.agents")}</legend>
            {data.staff.map((s) => (
              <label key={s.id}>
                <input type="checkbox" name="agents" value={s.id} /> {s.name} ({s.username})
              </label>
            ))}
            {failed?.errors.agents ? <span className="field-error">{t(failed.errors.agents)}</span> : null}
          </fieldset>
        ) : (
          <p className="muted">{t("plugin_meeting.start.agentsOfConversation")}</p>
        )}
        <div>
          <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
            {t("plugin_meeting.start.submit")}
          </button>
        </div>
      </Form>
      <h2>{t("plugin_meeting.running.title")}</h2>
      {data.running.length ? (
        <ul className="meeting-list">
          {data.running.map((m) => (
            <li key={m.token}>
              <Link to={`/meeting/${m.token}`}>{m.title || t("plugin_meeting.untitled")}</Link>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t("plugin_meeting.running.none")}</p>
      )}
    </section>
  );
}
