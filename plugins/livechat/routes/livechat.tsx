// /livechat/{n}: an agent's live chat (the ticket conversation plus the desk's controls).
// /livechat/{token}: the visitor's page (a token is never all digits; see the plugin manifest).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { useLoaderData, useParams, useRouteError } from "@remix-run/react";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import * as livechat from "../livechat.server";
import { isValidToken } from "~/accounts/public-tokens.server";
import { fileStorage } from "~/storage.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { ConversationView } from "~/conversation/components/ConversationView";
import { conversationAction, conversationData, open, readConversationForm } from "~/conversation/page.server";
import { formResult, formValues } from "~/forms";
import { refuse } from "~/forms.server";
import { CONTROL_INTENTS, controlsSchema } from "../forms";
import { LiveChatControls } from "../components/LiveChatControls";
import { VisitorChat, VisitorInvalid, VisitorOffline } from "../components/VisitorChat";
import { rateVisit, sealedFields, sendVisitorMessage, visitorPage } from "../visitor.server";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { keepSendOnLostAnswer } from "~/conversation/send-retry";

const isTicketNumber = (id: string | undefined) => !!id && /^\d+$/.test(id);

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  if (!isTicketNumber(params.id)) return visitorLoader(request, context, params.id);
  const opened = await open(request, context, params.id);
  const { ticket, user } = opened;
  const [conversation, visit, mergeTargets] = await Promise.all([
    conversationData(request, opened),
    livechat.visitOfTicket(ticket.id),
    ticket.sessionId === null ? Promise.resolve([] as { id: number; name: string }[]) : livechat.mergeTargets(user, ticket.sessionId),
  ]);
  return json({
    page: "agent" as const,
    conversation,
    livechat: {
      state: visit?.state ?? null,
      rating: ticket.rating,
      ratingReason: ticket.ratingReason,
      sessionId: ticket.sessionId,
      // sessions this chat's session can be merged into
      sessions: mergeTargets,
      canRemove: user.type === "admin" || conversation.details.participants.some((p) => p.userId === user.id && p.assignee),
    },
  });
}

async function visitorLoader(request: Request, context: object, token: string | undefined) {
  const { ctx } = await guardPluginRoute(request, context);
  const visit = await livechat.findVisit(token);
  if (!visit) {
    // the widget's own link (/livechat/{key}) starts a visit
    if (await isValidToken("livechat", token)) throw redirect(`/start/livechat/${token}`);
    return json({ page: "invalid" as const, productTitle: ctx.edition.title }, { status: 404 });
  }
  const visitor = await visitorPage(visit, ctx.edition.title);
  // nobody to connect to: straight to the form that leaves a message (spec: noAgent)
  if (visitor.result === "noAgent") throw redirect(`/register/livechat/${visit.token}`);
  return json({ page: "visitor" as const, visitor, productTitle: ctx.edition.title });
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  if (data?.page === "agent") {
    const shell = matches.find((m) => m.id === "shell")?.data as { tabTitle?: string } | undefined;
    return [{ title: `#${data.conversation.ticket.number} ${data.conversation.ticket.title} - ${shell?.tabTitle ?? data.conversation.productTitle}` }];
  }
  return [{ title: data && "productTitle" in data ? data.productTitle : "" }];
};

export async function action({ request, params, context }: ActionFunctionArgs) {
  if (!isTicketNumber(params.id)) return visitorAction(request, context, params.id);
  const opened = await open(request, context, params.id);
  const { user, ticket } = opened;
  const parts = await readConversationForm(request);
  if (parts instanceof Response) return parts;
  const intent = String(parts.form.get("intent") ?? "");
  // the conversation's own forms (reply, status, ...)
  if (!CONTROL_INTENTS.includes(intent)) return conversationAction(request, opened, parts);
  const refused = (message: string, status = 400) => refuse(formResult({ intent, message }), status);
  const parsed = controlsSchema.safeParse(formValues(parts.form));
  if (!parsed.success) return refused("conversation.badInput");
  const input = parsed.data;
  const here = new URL(request.url).pathname;
  try {
    switch (input.intent) {
      case "accept": {
        const accepted = await livechat.acceptLiveChat(user, ticket.id);
        return accepted ? redirect(here) : refused("livechat.takenByOther", 409);
      }
      case "end":
        await livechat.endLiveChat(ticket, user);
        return redirect(here);
      case "convert":
        await livechat.convertToTicket(user, ticket);
        return redirect(`/ticket/${ticket.ticketNumber}`);
      case "merge":
        if (ticket.sessionId === null) return refused("conversation.badInput");
        await livechat.mergeSessions(user, ticket.sessionId, input.into);
        return redirect(here);
      case "remove": {
        const keys = await livechat.removeLiveChat(user, ticket);
        await Promise.all(keys.map((k) => fileStorage().remove(k)));
        return redirect("/");
      }
    }
  } catch (error) {
    if (error instanceof AccessDenied) throw json({ code: "denied" }, { status: 403 });
    if (error instanceof livechat.VisitConflict || error instanceof NotFound) return refused("livechat.notPossible", 409);
    throw error;
  }
}

/** The visitor's page: send, end, rate (each refusal keeps what was typed). */
async function visitorAction(request: Request, context: object, token: string | undefined) {
  await guardPluginRoute(request, context);
  const visit = await livechat.findVisit(token);
  if (!visit) throw new Response("Not Found", { status: 404 });
  const form = await request.formData();
  if (!livechat.validVisitCsrf(visit.token, form.get("_token"))) return refuse(formResult({ message: "livechat.expired" }), 403);
  const here = new URL(request.url).pathname;
  switch (String(form.get("intent") ?? "")) {
    case "send": {
      // sent twice with its key (a double click, a resend after a lost answer): one message
      const requestKey = requestKeyOfRequest(request, `livechat:${visit.ticket?.id ?? 0}`, "send", formValues(form));
      const text = formValues(form, ["message"]).message;
      // the visitor's script seals the message in an end-to-end encrypted chat
      const sealed = sealedFields({ cipher: form.get("cipher"), key_version: form.get("key_version"), client_id: form.get("client_id") });
      const sent = await once(
        requestKey,
        () => sendVisitorMessage(visit, text, sealed),
        () => ({ ok: true }) as const,
      ).catch((error) => {
        if (error instanceof KeyReused)
          return { ok: false, status: 422, result: formResult({ message: "conversation.sentBefore", values: { message: text } }) } as const;
        throw error;
      });
      return sent.ok ? redirect(here) : refuse(sent.result, sent.status);
    }
    case "end":
      if (visit.ticket) await livechat.endLiveChat(visit.ticket);
      return redirect(here);
    case "rate": {
      const rated = await rateVisit(visit, formValues(form, ["rating", "reason"]));
      return rated.ok ? redirect(here) : refuse(rated.result, rated.status);
    }
    default:
      return refuse(formResult({ message: "conversation.badInput" }));
  }
}

// a send whose answer was lost (the agent's reply, the visitor's message) comes back kept for its retry
export const clientAction = keepSendOnLostAnswer;

export default function LiveChatPage() {
  const data = useLoaderData<typeof loader>();
  if (data.page === "agent") return <ConversationView data={data.conversation} extra={<LiveChatControls data={data.livechat} />} />;
  if (data.page === "invalid") return <VisitorInvalid />;
  return <VisitorChat data={data.visitor} />;
}

const DeniedBoundary = deniedBoundary("conversation.denied");

export function ErrorBoundary() {
  const error = useRouteError();
  const params = useParams();
  // a visitor's page that could not reach the server (it restarts): try again every second
  if (!isTicketNumber(params.id) && error instanceof TypeError) return <VisitorOffline />;
  return <DeniedBoundary />;
}
