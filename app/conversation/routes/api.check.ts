// POST /api/ticket/data/check/{ticketId}/{lastMessageId} {_token, ts} -> the messages after
// lastMessageId that the caller may read, oldest first, at most REPLAY_LIMIT (more: ask again from
// the last one). An open page asks it after its socket came back (with its session cookie instead
// of a _token, and view=page for the messages as the page shows them), so nothing written while
// it was offline is missing.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById } from "~/conversation/model.server";
import { messagesAfter, shownMessages } from "~/conversation/message-view.server";
import { readBody, requireApiUser, str } from "~/api.server";
import { currentAuth } from "~/context.server";
import { apiMessage, jsonErrors } from "~/conversation/api.server";
import { getWorkspace } from "~/models/settings.server";

export async function action({ request, params }: ActionFunctionArgs) {
  const body = await readBody(request);
  // a page of ours has no _token: its session cookie (server.ts refuses cross-origin posts)
  const user = str(body._token) ? await requireApiUser(request, body) : ((await currentAuth(request))?.user ?? (await requireApiUser(request, body)));
  const after = Number(params.lastMessageId);
  if (!Number.isSafeInteger(after) || after < 0) return json({ result: "failed", description: "Invalid message id." }, { status: 400 });
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(params.ticketId));
    const { messages, more } = await messagesAfter(ticket, after);
    const ts = Math.floor(Date.now() / 1000);
    if (str(body.view) === "page") return json({ result: "success", ts, more, messages: shownMessages(messages, (await getWorkspace()).timeZone) });
    return json({
      result: "success",
      ts,
      more,
      data: messages.map(apiMessage),
    });
  });
}

/** The answer is for POST only (spec section 7). */
export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });
