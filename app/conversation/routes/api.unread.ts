// GET /api/unread ?_token -> {ticket, livechat, chat}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { unreadCounts } from "~/conversation/unread.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireApiUser(request);
  return json(await unreadCounts(user.id));
}
