// POST /ai/recommendation/dismiss: the Recommendations panel's Dismiss form (no JavaScript needed).
// Checks the agent may read the conversation, keeps "dismissed" for that recommendation
// (feedback.server.ts) and goes back to the conversation, where the panel leaves it out.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import * as conversation from "~/conversation/model.server";
import { conversationPath, type Kind } from "~/conversation/channels";
import { dismiss, isKind } from "../feedback.server";

const KINDS: Kind[] = ["ticket", "livechat", "call"];

export async function loader() {
  throw new Response("Not Found", { status: 404 });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  const form = await request.formData();
  const kind = String(form.get("kind") ?? "") as Kind;
  const number = Number(form.get("number"));
  const messageId = Number(form.get("message"));
  const recommendation = form.get("recommendation");
  if (!KINDS.includes(kind) || !Number.isInteger(number) || number <= 0 || !Number.isInteger(messageId) || !isKind(recommendation))
    throw new Response("Bad Request", { status: 400 });
  try {
    const ticket = await conversation.findConversation(ctx.user, number, kind);
    await dismiss({ ticketId: ticket.id, messageId, kind: recommendation, userId: ctx.user.id });
    return redirect(`${conversationPath(kind, ticket.ticketNumber)}#panel-ai-recommend`);
  } catch (error) {
    if (error instanceof AccessDenied) throw new Response("Access denied", { status: 403 });
    if (error instanceof conversation.NotFound) throw new Response("Not Found", { status: 404 });
    throw error;
  }
}
