// POST /api/ticket/message/delete {_token, message_id, ticket_id} -> {result}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody } from "~/api.server";
import { conversationById, deleteMessage } from "~/conversation/model.server";
import { requireApiUser } from "~/api.server";
import { jsonErrors } from "~/conversation/api.server";
import { fileStorage } from "~/storage.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await requireApiUser(request, body);
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(body.ticket_id));
    const key = await deleteMessage(user, ticket, Number(body.message_id));
    if (key) await fileStorage().remove(key);
    return json({ result: "success" });
  });
}
