// A conversation: /ticket/{n} and /chat/{n}. Messages by date, the reply form and the ticket's
// properties; every control is a plain form and works without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { deniedBoundary } from "~/components/AdminOnly";
import { ConversationView } from "~/conversation/components/ConversationView";
import { retryingClientLoader } from "~/lazy-load";
import { keepSendOnLostAnswer } from "~/conversation/send-retry";
import { conversationAction, conversationData, open, readConversationForm } from "~/conversation/page.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  return json(await conversationData(request, await open(request, context, params.id)));
}

// a navigation here (older messages, another conversation) retries a failed load (spec section 2)
export const clientLoader = retryingClientLoader;
// a send whose answer was lost comes back as a failed send, kept for its retry
export const clientAction = keepSendOnLostAnswer;

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const shell = matches.find((m) => m.id === "shell")?.data as { tabTitle?: string } | undefined;
  return [{ title: data ? `#${data.ticket.number} ${data.ticket.title} - ${shell?.tabTitle ?? data.productTitle}` : (shell?.tabTitle ?? "") }];
};

export async function action({ request, params, context }: ActionFunctionArgs) {
  const opened = await open(request, context, params.id);
  const parts = await readConversationForm(request);
  return parts instanceof Response ? parts : conversationAction(request, opened, parts);
}

export default function Conversation() {
  const data = useLoaderData<typeof loader>();
  return <ConversationView data={data} />;
}
export const ErrorBoundary = deniedBoundary("conversation.denied");
