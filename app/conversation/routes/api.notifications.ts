// The notification centre's JSON twins (spec section 7):
//   GET  /notification/check ?_token -> {unread, unread_2, unread_3} (sla, system, trade)
//   GET  /notification/get ?token|_token, type (sla/system/trade), offset, lastId -> {data, more}; pages of 10
//   POST /api/notification/read {_token, lastId, category} -> {result}
//   POST /api/notification/remove {_token, id} -> {result: "success"}
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput, readBody, requireApiUser, str } from "~/api.server";
import { findSession } from "~/accounts/sessions.server";
import { CATEGORIES, markCategoryRead, notificationPage, removeNotification, unreadByCategory } from "~/conversation/notifications.server";

const getInput = z.object({
  type: z.enum(CATEGORIES).default("sla"),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
  lastId: z.coerce.number().int().min(0).default(0),
  token: z.string().optional(),
  _token: z.string().optional(),
});

/** The spec's shape of a notification. */
const shaped = (n: Awaited<ReturnType<typeof notificationPage>>["items"][number]) => ({
  id: n.id,
  body: n.body,
  title: n.title,
  type: n.type,
  channel: n.channel,
  category: n.category,
  seen: n.read ? 1 : 0,
  ts: Math.floor(n.createdAt / 1000),
  img: n.img,
  ticket_number: n.ticketNumber,
});

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const user = url.searchParams.get("token") ? (await findSession(url.searchParams.get("token")))?.user : await requireApiUser(request);
  if (!user) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  if (url.pathname.endsWith("/check")) {
    const c = await unreadByCategory(user.id);
    return json({ result: "success", unread: c.sla, unread_2: c.system, unread_3: c.trade });
  }
  const input = apiInput(request, getInput);
  const page = await notificationPage(user.id, input.type, { offset: input.offset, lastId: input.lastId });
  return json({ result: "success", data: page.items.map(shaped), more: page.more });
}

const readInput = z.object({ category: z.enum(CATEGORIES), lastId: z.coerce.number().int().min(0).default(0) });
const removeInput = z.object({ id: z.coerce.number().int().positive() });

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return json({ result: "failed", description: "Method not allowed" }, { status: 405 });
  const body = await readBody(request);
  const user = await requireApiUser(request, body);
  const refuse = (description: string) => json({ result: "failed", description }, { status: 400 });
  if (new URL(request.url).pathname.endsWith("/read")) {
    const input = readInput.safeParse({ category: str(body.category) || body.category, lastId: body.lastId ?? 0 });
    if (!input.success) return refuse("Please check the input.");
    const changed = await markCategoryRead(user.id, input.data.category, input.data.lastId);
    return json({ result: "success", changed });
  }
  const input = removeInput.safeParse({ id: body.id });
  if (!input.success) return refuse("Please check the input.");
  const removed = await removeNotification(user.id, input.data.id);
  return removed ? json({ result: "success" }) : json({ result: "failed", description: "Notification not found." }, { status: 404 });
}
