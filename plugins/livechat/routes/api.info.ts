// GET /api/livechat/info?token: where a visit stands (spec section 7). With a widget key instead of
// a visit token it starts a visit, as /start/livechat/{key} does, and answers for that visit.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import * as livechat from "../livechat.server";
import { allowVisit, clientIpOf } from "../visitor.server";
import { keyHeaders, visitorKey } from "../visitor-key.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const token = new URL(request.url).searchParams.get("token") ?? "";
  let visit = await livechat.findVisit(token);
  if (!visit) {
    const clientIp = clientIpOf(context);
    const started = (await allowVisit(clientIp)) ? await livechat.startVisit(token) : undefined;
    visit = started ? await livechat.findVisit(started) : undefined;
  }
  if (!visit) return json({ result: "invalid" }, { status: 404 });
  const [online, identity, key] = await Promise.all([livechat.agentsOnline(), livechat.widgetIdentity(ctx.edition.title), visitorKey(request)]);
  return json(
    {
      result: livechat.infoResult(visit, online),
      token: visit.token,
      ticket_id: visit.ticket?.id ?? null,
      csrf: livechat.visitCsrf(visit.token),
      name: identity.name,
      photo: identity.photo,
    },
    { headers: keyHeaders(key) },
  );
}
