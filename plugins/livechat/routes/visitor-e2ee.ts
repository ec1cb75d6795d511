// /livechat/{token}/e2ee: the visitor's end-to-end encryption key (decision 048), for the visitor
// page's script only (no page of its own). GET: the chat's encryption state and the key versions
// wrapped for the visitor's key. POST {_token, publicKey}: publishes the key this browser made.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import { readBody } from "~/api.server";
import { BadVisitorKey, publishVisitorKey, visitorKeys } from "~/conversation/visitor-e2ee.server";
import { findVisit, liveChatOf, validVisitCsrf } from "../livechat.server";

const noStore = { "Cache-Control": "private, no-store" };

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const visit = await findVisit(params.token);
  const ticketId = visit && liveChatOf(visit);
  if (!ticketId) return json({ result: "failed", description: "Chat not found." }, { status: 404, headers: noStore });
  return json({ result: "success", data: await visitorKeys(ticketId) }, { headers: noStore });
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const visit = await findVisit(params.token);
  const ticketId = visit && liveChatOf(visit);
  if (!ticketId) return json({ result: "failed", description: "Chat not found." }, { status: 404, headers: noStore });
  const body = await readBody(request);
  if (!validVisitCsrf(visit.token, body._token)) return json({ result: "failed", description: "Expired." }, { status: 403, headers: noStore });
  try {
    return json({ result: "success", data: await publishVisitorKey(ticketId, body.publicKey) }, { headers: noStore });
  } catch (error) {
    if (error instanceof BadVisitorKey) return json({ result: "failed", description: "Not an RSA-OAEP public key." }, { status: 400, headers: noStore });
    throw error;
  }
}
