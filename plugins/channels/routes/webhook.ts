// /hooks/channels/:accountId: providers' servers call here (cross-origin by nature: the signature
// is the only credential; server.ts exempts webhook routes from the same-origin check). Express
// serves the path itself (plugin.json `direct`: serveWebhook, ADR 050); this route is the same door
// for whatever reaches Remix.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { webhookCall, webhookHandshake } from "../webhook.server";

export const loader = ({ request, params }: LoaderFunctionArgs) => webhookHandshake(request, params.accountId);

export const action = ({ request, params }: ActionFunctionArgs) => webhookCall(request, params.accountId);
