// /meeting/{token}: the meeting overlay (spec section 2: it starts only once the socket and the
// meeting script have loaded). Who gets in: agents of the meeting (signed in), and guests whose
// browser used their one-time link (?k=..., "Join as <name>" binds the link to this browser).
// Everyone else gets a page that says why: the meeting ended, the link was used, not invited.
// Without JavaScript the page still ends the meeting and makes guest links (plain forms).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, publicOrigin } from "~/context.server";
import { formError, readFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { pageMeta } from "~/meta";
import { useHydrated } from "~/hooks";
import {
  agentMayJoin,
  claimGuestLink,
  endMeeting,
  guestForm,
  guestInvite,
  guestOf,
  inviteGuest,
  meetingByToken,
  ticketNumberOf,
  type GuestRefusal,
  type MeetingRow,
} from "../meeting.server";
import { guestCookie } from "../guest-cookie.server";
import { closeMeetingRoom } from "../socket.server";
import { MeetingRoom } from "../components/MeetingRoom";
import { turnConfigured } from "../turn.server";

type Refusal = GuestRefusal | "notFound";
const STATUS: Record<Refusal, number> = { notFound: 404, ended: 410, notInvited: 403, used: 403 };

async function guestFromCookie(request: Request, meeting: MeetingRow) {
  const cookie = (await guestCookie().parse(request.headers.get("Cookie"))) as { t?: string; i?: number; s?: string } | null;
  if (!cookie || cookie.t !== meeting.token || !cookie.s) return undefined;
  return guestOf(meeting, Number(cookie.i), cookie.s);
}

/** Who this request is in the meeting: an agent, a guest, one about to use their link, or refused. */
async function whoIs(request: Request, context: object | undefined, token: string) {
  const { ctx } = await guardPluginRoute(request, context);
  const meeting = await meetingByToken(token);
  if (!meeting) return { refused: "notFound" as const, signedIn: Boolean(ctx.user) };
  if (ctx.user) {
    if (meeting.endedAt) return { refused: "ended" as const, signedIn: true };
    if (!(await agentMayJoin(meeting, ctx.user))) return { refused: "notInvited" as const, signedIn: true };
    return { meeting, agent: ctx.user };
  }
  const guest = await guestFromCookie(request, meeting);
  if (guest) return { meeting, guest };
  if (meeting.endedAt) return { refused: "ended" as const, signedIn: false };
  const key = new URL(request.url).searchParams.get("k");
  if (!key) return { refused: "notInvited" as const, signedIn: false };
  const invite = await guestInvite(meeting, key);
  if (!invite.ok) return { refused: invite.reason, signedIn: false };
  return { meeting, invited: { name: invite.name, key } };
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const who = await whoIs(request, context, params.token ?? "");
  const headers = { "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" };
  if ("refused" in who) return json({ state: "refused" as const, reason: who.refused, signedIn: who.signedIn }, { status: STATUS[who.refused!], headers });
  const base = { token: who.meeting.token, title: who.meeting.title, turn: turnConfigured() };
  if ("invited" in who && who.invited) return json({ state: "invited" as const, ...base, name: who.invited.name, key: who.invited.key }, { headers });
  if ("agent" in who && who.agent) {
    const ticketNumber = await ticketNumberOf(who.meeting);
    return json({ state: "in" as const, ...base, ticketNumber, role: "agent" as const, name: who.agent.name }, { headers });
  }
  return json(
    { state: "in" as const, ...base, ticketNumber: null, role: "guest" as const, name: (who as { guest: { name: string } }).guest.name },
    { headers },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const token = params.token ?? "";
  if (intent === "claim") {
    const { ctx } = await guardPluginRoute(request, context);
    const meeting = await meetingByToken(token);
    if (!meeting) throw new Response("Not Found", { status: 404 });
    if (ctx.user) return redirect(`/meeting/${token}`);
    const claimed = await claimGuestLink(meeting, String(form.get("k") ?? ""));
    // refused: the page answers why (the loader sees the used or ended link)
    if (!claimed.ok) return redirect(`/meeting/${token}?k=${encodeURIComponent(String(form.get("k") ?? ""))}`);
    return redirect(`/meeting/${token}`, {
      headers: { "Set-Cookie": await guestCookie().serialize({ t: token, i: claimed.inviteId, s: claimed.secret }) },
    });
  }
  const who = await whoIs(request, context, token);
  if (!("agent" in who) || !who.agent || !who.meeting) throw new Response("Forbidden", { status: 403 });
  if (intent === "end") {
    await endMeeting(who.meeting.id, who.agent);
    await closeMeetingRoom(who.meeting.id);
    return redirect(`/meeting/${token}`);
  }
  if (intent === "invite") {
    const values = { name: String(form.get("name") ?? "") };
    const parsed = guestForm.safeParse(values);
    if (!parsed.success) return refuse(formError(parsed.error, values, "invite"));
    const key = await inviteGuest(who.meeting, parsed.data.name);
    return json({ guestLink: key ? `${publicOrigin(request)}/meeting/${token}?k=${key}` : null });
  }
  throw new Response("Bad Request", { status: 400 });
}

export const meta = pageMeta("plugin_meeting.title");

export default function MeetingPage() {
  const data = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  const hydrated = useHydrated();
  if (data.state === "refused")
    return (
      <main className="meeting-page stack" data-testid="meeting-refused">
        <h1>{t(`plugin_meeting.refused.${data.reason}.title`)}</h1>
        <p>{t(`plugin_meeting.refused.${data.reason}.text`)}</p>
        {!data.signedIn && data.reason === "notInvited" ? (
          <p>
            <Link to="/">{t("plugin_meeting.refused.signIn")}</Link>
          </p>
        ) : null}
      </main>
    );
  if (data.state === "invited")
    return (
      <main className="meeting-page stack">
        <h1>{data.title || t("plugin_meeting.untitled")}</h1>
        <Form method="post" className="stack narrow">
          <input type="hidden" name="intent" value="claim" />
          <input type="hidden" name="k" value={data.key} />
          <p>{t("plugin_meeting.invited.text")}</p>
          <div>
            <button type="submit" className="button primary">
              {t("plugin_meeting.invited.join", { name: data.name })}
            </button>
          </div>
        </Form>
      </main>
    );
  const failed = readFormResult(answer);
  const guestLink = answer && "guestLink" in answer ? answer.guestLink : null;
  return (
    <main className="meeting-page stack" aria-labelledby="meeting-title">
      <h1 id="meeting-title">{data.title || t("plugin_meeting.untitled")}</h1>
      {data.ticketNumber ? (
        <p>
          <Link to={`/ticket/${data.ticketNumber}`}>{t("plugin_meeting.room.conversation", { number: data.ticketNumber })}</Link>
        </p>
      ) : null}
      {hydrated ? (
        <MeetingRoom token={data.token} guest={data.role === "guest"} turn={data.turn} name={data.name} />
      ) : (
        <p role="status">{t("plugin_meeting.room.needsJs")}</p>
      )}
      {data.role === "agent" ? (
        <div className="stack meeting-admin">
          <Form method="post" className="stack narrow" aria-label={t("plugin_meeting.room.inviteTitle")}>
            <input type="hidden" name="intent" value="invite" />
            <FormMessage result={failed} />
            <p className="stack">
              <label htmlFor="guest-name">{t("plugin_meeting.room.guestName")}</label>
              <input
                id="guest-name"
                name="name"
                maxLength={80}
                defaultValue={failed?.values.name ?? ""}
                aria-invalid={failed?.errors.name ? true : undefined}
              />
              {failed?.errors.name ? <span className="field-error">{t(failed.errors.name)}</span> : null}
            </p>
            <div>
              <button type="submit" className="button">
                {t("plugin_meeting.room.invite")}
              </button>
            </div>
            {guestLink ? (
              <p className="stack">
                <label htmlFor="new-guest-link">{t("plugin_meeting.start.guestLink")}</label>
                <input id="new-guest-link" readOnly value={guestLink} data-testid="meeting-guest-link" />
              </p>
            ) : null}
          </Form>
          <Form method="post">
            <input type="hidden" name="intent" value="end" />
            <button type="submit" className="button danger">
              {t("plugin_meeting.room.end")}
            </button>
          </Form>
        </div>
      ) : null}
    </main>
  );
}
