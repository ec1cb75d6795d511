// POST /api/livechat/register {_token, title, email, phone, name, des, token, ic}: the visitor's
// form as JSON (spec section 7). `des` is the message; title and ic are accepted and not needed.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import * as livechat from "~/models/livechat.server";
import { registerVisitor } from "../visitor.server";
import { readBody } from "~/api.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const raw = await readBody(request);
  // strings, or numbers sent as JSON
  const body = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === "string" || typeof v === "number" ? String(v) : undefined]));
  const visit = await livechat.findVisit(body.token);
  if (!visit) return json({ result: "invalid" }, { status: 404 });
  if (!livechat.validVisitCsrf(visit.token, body._token)) return json({ result: "error", errors: { form: "livechat.expired" } }, { status: 403 });
  const outcome = await registerVisitor(visit, { name: body.name ?? "", phone: body.phone ?? "", email: body.email ?? "", message: body.des ?? "" }, (context as { clientIp?: string }).clientIp ?? "unknown");
  if (!outcome.ok) return json({ result: "error", errors: outcome.errors }, { status: outcome.status });
  const after = await livechat.findVisit(visit.token);
  return json({ result: "success", ticket_id: after?.ticket?.id ?? null, state: after?.state });
}

export const loader = () => new Response("Method Not Allowed", { status: 405 });
