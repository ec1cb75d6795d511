// The conversation an AI page or form is about (/ai/language, /ai/label, the Dismiss form): the
// signed-in reader's, by kind and number, or the answer the conversation's own page gives
// (404 for no such conversation, 403 for one the reader may not open).
import { redirect } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import * as conversation from "~/conversation/model.server";
import type { Kind } from "~/conversation/channels";

type Reader = Parameters<typeof conversation.findConversation>[0];

export const CONVERSATION_KINDS: Kind[] = ["ticket", "livechat", "call"];

export function isConversationKind(kind: unknown): kind is Kind {
  return CONVERSATION_KINDS.includes(kind as Kind);
}

/** The signed-in reader of a plugin route, or the way to sign in. */
export async function signedInReader(request: Request, context: object) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  return ctx.user;
}

export async function conversationFor(user: Reader, kind: unknown, number: number) {
  if (!isConversationKind(kind) || !Number.isInteger(number) || number <= 0) throw new Response("Not Found", { status: 404 });
  try {
    return { ticket: await conversation.findConversation(user, number, kind), kind };
  } catch (error) {
    if (error instanceof AccessDenied) throw new Response("Access denied", { status: 403 });
    if (error instanceof conversation.NotFound) throw new Response("Not Found", { status: 404 });
    throw error;
  }
}

/** A page's conversation from its route params (kind, number), with the reader. */
export async function openConversation(request: Request, context: object, params: Record<string, string | undefined>) {
  const user = await signedInReader(request, context);
  return { user, ...(await conversationFor(user, params.kind, Number(params.number))) };
}
