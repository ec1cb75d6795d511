// POST /api/kanban/move {_token, ticket, to} (the JSON twin of the board's Move form): moves a card
// to a status ("s0".."s3"), a custom column ("c<id>") or out of the columns ("none"), through the
// same model as the page (system message, events, boards, audit). Admins without hide_kanban only.
// Answers {result: "success", moved, ticket_number} (moved false: it was there already), or
// {result: "failed", description} with the page's English text.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { englishText, readBody, requireApiUser, str } from "~/api.server";
import { guardPluginRoute, isTrial, viewerOf } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { moveCard } from "../kanban.server";

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const body = await readBody(request);
  const user = await requireApiUser(request, body);
  const viewer = viewerOf({ ...ctx, user });
  if (!viewer || isTrial(ctx) || !menuItemAllows("kanban", "kanban", viewer)) return json({ result: "failed", description: "Access denied" }, { status: 403 });
  const outcome = await moveCard(user, { ticket: str(body.ticket) || String(body.ticket ?? ""), to: str(body.to) });
  if (!outcome.ok) return json({ result: "failed", description: englishText(outcome.result.message ?? "conversation.badInput") }, { status: outcome.status });
  return json({ result: "success", moved: outcome.moved, ticket_number: outcome.ticketNumber });
}

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });
