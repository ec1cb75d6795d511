// GET /ticket/data/{id}/{count} ?_token&messageId -> 30 messages before messageId (or the newest).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById, loadMessages } from "~/conversation/model.server";
import { requireApiUser } from "~/api.server";
import { apiMessage, jsonErrors } from "~/conversation/api.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  const before = Number(new URL(request.url).searchParams.get("messageId")) || undefined;
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(params.id));
    const page = await loadMessages(ticket, { before });
    return json({
      result: "success",
      more: page.hasOlder,
      data: page.messages.map(apiMessage),
    });
  });
}
