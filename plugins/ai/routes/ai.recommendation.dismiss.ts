// POST /ai/recommendation/dismiss: the Recommendations panel's Dismiss form (no JavaScript needed).
// Checks the agent may read the conversation, keeps "dismissed" for that recommendation
// (feedback.server.ts) and goes back to the conversation, where the panel leaves it out.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { conversationPath } from "~/conversation/channels";
import { dismiss, isKind } from "../feedback.server";
import { conversationFor, isConversationKind, signedInReader } from "../conversation-route.server";

export async function loader() {
  throw new Response("Not Found", { status: 404 });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await signedInReader(request, context);
  const form = await request.formData();
  const kind = String(form.get("kind") ?? "");
  const number = Number(form.get("number"));
  const messageId = Number(form.get("message"));
  const recommendation = form.get("recommendation");
  if (!isConversationKind(kind) || !Number.isInteger(number) || number <= 0 || !Number.isInteger(messageId) || !isKind(recommendation))
    throw new Response("Bad Request", { status: 400 });
  const { ticket } = await conversationFor(user, kind, number);
  await dismiss({ ticketId: ticket.id, messageId, kind: recommendation, userId: user.id });
  return redirect(`${conversationPath(kind, ticket.ticketNumber)}#panel-ai-recommend`);
}
