// Profile JSON twins (spec section 7), all reads:
//   GET /api/user/profile/data/info ?_token&username -> {result, data: {name, username, photo, type[, email]}}
//   GET /api/user/profile2/info ?token&username -> the same; `token` is a session token (the same
//       value as _token, under the name this call's clients send)
//   GET /api/user/profile/{offset} ?_token&mode=quick&(email|phone|id)[&type] -> {result, mode, data, activity, more}
//       a customer by email or phone (in any form: the contacts plugin knows them across channels
//       and merges), or the customer of conversation `id`; `activity` is a page from `offset` of
//       the customer's conversations the caller may read, newest first: all of them, 5 a page
//       (type=activity, the default), or one kind, 10 a page (type=ticket or livechat: the card's
//       tabs). None readable: 404, nothing is revealed.
// The email of a user goes only to that user and to admins.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requestContext } from "~/context.server";
import { contactActivity, conversationCustomer, customerPage, personByUsername, type CardItem, type Person } from "../profile.server";
import { failed, readerSession } from "../api-auth.server";
import { CUSTOMER_LISTS, profileScopeOf } from "../customer-profile.server";

export const action = () => failed("Method not allowed", 405);

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const q = url.searchParams;
  const profile2 = url.pathname.startsWith("/api/user/profile2/");
  const { user: viewer } = await readerSession(request, profile2 ? "token" : undefined);
  if (params.offset === undefined) {
    const person = await personByUsername(viewer, q.get("username") ?? "");
    if (!person || (person.kind !== "user" && person.kind !== "bot")) return failed("User not found.", 404);
    return json({
      result: "success",
      data: {
        name: person.name,
        username: person.username,
        photo: person.photo,
        type: person.kind === "bot" ? "bot" : person.type,
        ...(person.kind === "user" && person.email !== undefined ? { email: person.email } : {}),
      },
    });
  }
  if (!/^\d{1,7}$/.test(params.offset)) return failed("The offset must be a whole number from 0.", 400);
  const offset = Number(params.offset);
  const list = CUSTOMER_LISTS.find((l) => l === (q.get("type") || "activity"));
  if (!list) return failed("The type must be activity, ticket or livechat.", 400);
  const mode = q.get("mode") || "quick";
  const email = q.get("email") ?? "";
  const phone = q.get("phone") ?? "";
  const scope = profileScopeOf(await requestContext(request, context), viewer);
  const limit = customerPage(list);
  let found: { person: Person; items: CardItem[]; more: boolean } | undefined;
  if (email || phone) found = await contactActivity(viewer, { email, phone }, offset, limit, list, scope);
  else if (q.get("id")) {
    if (!/^\d{1,12}$/.test(q.get("id")!)) return failed("The id must be a conversation's id.", 400);
    found = await conversationCustomer(viewer, { id: Number(q.get("id")) }, offset, limit, list, scope);
  } else return failed("Give an email, a phone or a conversation id.", 400);
  if (!found) return failed("Not found.", 404);
  const p = found.person;
  return json({
    result: "success",
    mode,
    type: list,
    data: {
      name: p.name,
      type: p.kind,
      uid: p.uid,
      email: p.kind === "contact" ? p.email : "",
      phone: p.kind === "contact" ? p.phone : "",
    },
    activity: found.items.map((i) => ({
      id: i.id,
      ticket_number: i.ticketNumber,
      title: i.title,
      channel: i.channel,
      type: i.kind,
      closed: i.status,
      ts: Math.floor(i.updatedAt / 1000),
    })),
    more: found.more,
  });
}
