// POST /api/ticket/priority {_token, id, priority, type} -> {result: 'success'}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody, str } from "~/api.server";
import { conversationById, setPriority } from "~/conversation/model.server";
import { requireApiUser } from "~/api.server";
import { jsonErrors } from "~/conversation/api.server";
import { PRIORITIES, type Priority } from "~/conversation/constants";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await requireApiUser(request, body);
  const priority = str(body.priority) === "none" ? "" : str(body.priority);
  if (!(PRIORITIES as readonly string[]).includes(priority)) return json({ result: "failed", description: "Please check the input." }, { status: 400 });
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(body.id));
    await setPriority(ticket, priority as Priority);
    return json({ result: "success" });
  });
}
