// Profile JSON twins (spec section 7), all reads:
//   GET /api/user/profile/data/info ?_token&username -> {result, data: {name, username, photo, type[, email]}}
//   GET /api/user/profile2/info ?token&username -> the same; `token` is a session token (the same
//       value as _token, under the name this call's clients send)
//   GET /api/user/profile/{offset} ?_token&mode=quick&(email|phone|id) -> {result, data, activity, more}
//       a customer by email or phone, or the customer of conversation `id`; activity is 5 a page
//       of the conversations the caller may read (none readable: 404, nothing is revealed)
// The email of a user goes only to that user and to admins.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { ACTIVITY_PAGE, contactActivity, conversationCustomer, personByUsername, type CardItem, type Person } from "../profile.server";
import { failed, readerSession } from "../api-auth.server";

export const action = () => failed("Method not allowed", 405);

export async function loader({ request, params }: LoaderFunctionArgs) {
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
  const offset = Number(params.offset);
  if (!Number.isSafeInteger(offset) || offset < 0) return failed("The offset must be a whole number.", 400);
  const email = q.get("email") ?? "";
  const phone = q.get("phone") ?? "";
  let found: { person: Person; items: CardItem[]; more: boolean } | undefined;
  if (email || phone) found = await contactActivity(viewer, { email, phone }, offset, ACTIVITY_PAGE);
  else if (q.get("id")) found = await conversationCustomer(viewer, { id: Number(q.get("id")) }, offset, ACTIVITY_PAGE);
  else return failed("Give an email, a phone or a conversation id.", 400);
  if (!found) return failed("Not found.", 404);
  const p = found.person;
  return json({
    result: "success",
    mode: q.get("mode") || "quick",
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
