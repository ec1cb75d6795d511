// /livechat/{n}: an agent's live chat (the ticket conversation plus the desk's controls).
// /livechat/{token}: the visitor's page (a token is never all digits; see the plugin manifest).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { useLoaderData, useParams, useRouteError } from "@remix-run/react";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import * as livechat from "../livechat.server";
import { isValidToken } from "~/models/public-tokens.server";
import { fileStorage } from "~/storage.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { ConversationView } from "~/conversation/components/ConversationView";
import { conversationAction, conversationData, open, readConversationForm, type ActionResult } from "~/conversation/page.server";
import { idSchema } from "~/conversation/forms";
import { LiveChatControls } from "../components/LiveChatControls";
import { VisitorChat, VisitorInvalid, VisitorOffline } from "../components/VisitorChat";
import { rateVisit, sendVisitorMessage, visitorPage, type FieldErrors, type VisitorActionResult } from "../visitor.server";

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
  const { form } = parts;
  const intent = String(form.get("intent") ?? "");
  const here = new URL(request.url).pathname;
  try {
    switch (intent) {
      case "accept": {
        const accepted = await livechat.acceptLiveChat(user, ticket.id);
        return accepted ? redirect(here) : json<ActionResult>({ intent, error: "livechat.takenByOther" }, { status: 409 });
      }
      case "end":
        await livechat.endLiveChat(ticket, user);
        return redirect(here);
      case "convert":
        await livechat.convertToTicket(user, ticket);
        return redirect(`/ticket/${ticket.ticketNumber}`);
      case "merge": {
        const into = idSchema.safeParse(form.get("into"));
        if (!into.success || ticket.sessionId === null) return json<ActionResult>({ intent, error: "conversation.badInput" }, { status: 400 });
        await livechat.mergeSessions(user, ticket.sessionId, into.data);
        return redirect(here);
      }
      case "remove": {
        const keys = await livechat.removeLiveChat(user, ticket);
        await Promise.all(keys.map((k) => fileStorage().remove(k)));
        return redirect("/");
      }
      default:
        return conversationAction(request, opened, parts);
    }
  } catch (error) {
    if (error instanceof AccessDenied) throw json({ code: "denied" }, { status: 403 });
    if (error instanceof livechat.VisitConflict || error instanceof NotFound)
      return json<ActionResult>({ intent, error: "livechat.notPossible" }, { status: 409 });
    throw error;
  }
}

async function visitorAction(request: Request, context: object, token: string | undefined) {
  await guardPluginRoute(request, context);
  const visit = await livechat.findVisit(token);
  if (!visit) throw new Response("Not Found", { status: 404 });
  const form = await request.formData();
  const fail = (status: number, errors: FieldErrors, errorValues?: Record<string, string>, values?: Record<string, string>) =>
    json<VisitorActionResult>({ errors, errorValues, values }, { status });
  if (!livechat.validVisitCsrf(visit.token, form.get("_token"))) return fail(403, { form: "livechat.expired" });
  const here = new URL(request.url).pathname;
  switch (String(form.get("intent") ?? "")) {
    case "send": {
      const message = String(form.get("message") ?? "");
      const sent = await sendVisitorMessage(visit, message);
      // a refused message is kept in the box
      return sent.ok ? redirect(here) : fail(sent.status, sent.errors, sent.errorValues, { message });
    }
    case "end":
      if (visit.ticket) await livechat.endLiveChat(visit.ticket);
      return redirect(here);
    case "rate": {
      const values = { rating: String(form.get("rating") ?? ""), reason: String(form.get("reason") ?? "") };
      const rated = await rateVisit(visit, values);
      return rated.ok ? redirect(here) : fail(rated.status, rated.errors, undefined, values);
    }
    default:
      return fail(400, { form: "conversation.badInput" });
  }
}

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
