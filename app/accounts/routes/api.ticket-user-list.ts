// GET /api/ticket/user/list ?_token (or token)&type=ticket|livechat&username&offset
//   -> {result, data, expLevel, exp, more}: a user's conversations of that kind that the caller
//   may read (app/conversation/access.server.ts), 10 a page (the profile card's tabs). exp counts
//   the solved ones among them; every EXP_PER_LEVEL make a level (expLevel starts at 1). The spec
//   names exp and expLevel without defining them: experience here is conversations brought to an end.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { CARD_PAGE, experience, userConversations, type CardKind } from "../profile.server";
import { findUserByUsername } from "../users.server";
import { failed, readerSession } from "../api-auth.server";

const notWhole = "The offset must be a whole number.";
const input = z.object({
  type: z.enum(["ticket", "livechat"] as const satisfies readonly CardKind[], { message: "The type must be ticket or livechat." }).default("ticket"),
  username: z.string().max(100).default(""),
  offset: z.coerce.number({ message: notWhole }).int(notWhole).min(0, notWhole).max(1_000_000, notWhole).default(0),
});

export const action = () => failed("Method not allowed", 405);

export async function loader({ request }: LoaderFunctionArgs) {
  const { user: viewer } = await readerSession(request, "token");
  const q = apiInput(request, input);
  const target = await findUserByUsername(q.username);
  if (!target) return failed("User not found.", 404);
  const kind = q.type;
  const [page, exp] = await Promise.all([userConversations(viewer, target.id, kind, q.offset, CARD_PAGE), experience(viewer, target.id, kind)]);
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
