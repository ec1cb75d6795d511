// POST /api/fcm/token {_token, token, type, domain} (spec section 7), or a Web Push subscription
// {endpoint, keys: {p256dh, auth}} (also as `subscription`, or JSON in `token`): stored for the
// user's browser push; a plain token is a mobile app's FCM registration token (sent through
// Firebase Cloud Messaging when FCM_SERVICE_ACCOUNT is set: push.server.ts runFcmPush). DELETE with {endpoint} forgets it. GET answers the VAPID public key the
// browser subscribes with.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth, readBody, requireApiUser, str } from "~/api.server";
import { requireUser } from "~/context.server";
import { parseSubscription, removeSubscription, saveSubscription, vapidKeys } from "~/conversation/push.server";

/** A _token (query, body, Bearer) as the spec says, or the page's own session cookie. */
async function who(request: Request, body: Record<string, unknown> = {}) {
  if (await apiAuth(request, body)) return requireApiUser(request, body);
  return (await requireUser(request)).user;
}

export async function loader({ request }: LoaderFunctionArgs) {
  await who(request);
  return json({ result: "success", publicKey: (await vapidKeys()).publicKey });
}

export async function action({ request }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await who(request, body);
  if (request.method === "DELETE") {
    await removeSubscription(user.id, str(body.endpoint));
    return json({ result: "success" });
  }
  const parsed = parseSubscription(body);
  if (!parsed.success) return json({ result: "failed", description: "Please check the input." }, { status: 400 });
  const id = await saveSubscription(user.id, parsed.data);
  return json({ result: "success", id });
}
