// GET /api/ticket/user/list ?_token (or token)&type=ticket|livechat&username&offset
//   -> {result, data, expLevel, exp, more}: a user's conversations of that kind that the caller
//   may read (app/conversation/access.server.ts), 10 a page (the profile card's tabs). exp counts
//   the solved ones among them; every EXP_PER_LEVEL make a level (expLevel starts at 1).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { CARD_KINDS, CARD_PAGE, experience, userConversations, type CardKind } from "../profile.server";
import { findUserByUsername } from "../users.server";
import { failed, readerSession } from "../api-auth.server";

export const action = () => failed("Method not allowed", 405);

export async function loader({ request }: LoaderFunctionArgs) {
  const { user: viewer } = await readerSession(request, "token");
  const q = new URL(request.url).searchParams;
  const type = q.get("type") || "ticket";
  if (!(CARD_KINDS as readonly string[]).includes(type)) return failed("The type must be ticket or livechat.", 400);
  const offset = Number(q.get("offset") || 0);
  if (!Number.isSafeInteger(offset) || offset < 0) return failed("The offset must be a whole number.", 400);
  const target = await findUserByUsername(q.get("username") ?? "");
  if (!target) return failed("User not found.", 404);
  const kind = type as CardKind;
  const [page, exp] = await Promise.all([userConversations(viewer, target.id, kind, offset, CARD_PAGE), experience(viewer, target.id, kind)]);
  return json({
    result: "success",
    data: page.items.map((i) => ({
      id: i.id,
      ticket_number: i.ticketNumber,
      title: i.title,
      channel: i.channel,
      closed: i.status,
      ts: Math.floor(i.updatedAt / 1000),
    })),
    more: page.more,
    ...exp,
  });
}
