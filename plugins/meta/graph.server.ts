// Meta's Graph API as WhatsApp Cloud, Messenger and Instagram share it: the X-Hub-Signature-256
// webhook signature (HMAC-SHA256 of the raw body with the app secret), the hub.challenge
// subscription handshake, bearer calls, media downloads and the Graph error shape
// {"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}.
import { PermanentFailure, WaitAndRetry } from "~/jobs/queue.server";
import type { ChannelAccount, WebhookRequest } from "@plugins/channels/adapter";
import { hmac, sameSignature } from "@plugins/channels/signatures.server";
import { boundedWait, rateLimited, retryAfterHeader } from "@plugins/channels/rate-limit.server";

export const GRAPH_URL = "https://graph.facebook.com/v21.0";
/** Where Meta's webhooks point for a customer's file: its CDNs (scontent.*.fbcdn.net, cdninstagram.com) and lookaside.fbsbx.com. */
export const META_FILE_HOSTS = ["fbcdn.net", "fbsbx.com", "cdninstagram.com"] as const;

/** Graph codes that mean "too many, slow down" for the whole app or account (app, user, page, calls, account, throughput). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80007, 130429]);
/** WhatsApp's business-consumer pair limit: too many to one customer; only that conversation's message waits. */
const PAIR_RATE_LIMIT_CODE = 131056;
/** WhatsApp: more than 24 hours since the customer last wrote; only a template may be sent. */
export const WINDOW_CLOSED_CODE = 131047;

export const graphUrl = (account: ChannelAccount) => (account.config.apiBase || GRAPH_URL).replace(/\/+$/, "");

export function verifyHubSignature(request: WebhookRequest, appSecret: string | undefined) {
  if (!appSecret) return false;
  return sameSignature(request.headers.get("x-hub-signature-256"), `sha256=${hmac("sha256", appSecret, request.rawBody)}`);
}

/** The subscription handshake: Meta's GET with hub.mode=subscribe, the verify token and a challenge to echo. */
export function hubChallenge(request: WebhookRequest, verifyToken: string | undefined) {
  const q = request.url.searchParams;
  if (q.get("hub.mode") !== "subscribe" || !verifyToken || !sameSignature(q.get("hub.verify_token"), verifyToken))
    return new Response("Forbidden", { status: 403 });
  return new Response(q.get("hub.challenge") ?? "", { status: 200, headers: { "Content-Type": "text/plain" } });
}

interface GraphErrorBody {
  error?: { message?: string; type?: string; code?: number; error_subcode?: number; error_data?: { details?: string } };
}

/** A refused Graph call as the queue needs it, in the provider's own words. */
export async function graphFailure(response: Response) {
  const text = await response.text().catch(() => "");
  let body: GraphErrorBody = {};
  try {
    body = JSON.parse(text) as GraphErrorBody;
  } catch {
    body = {};
  }
  const e = body.error;
  const words = (e ? [e.message, e.error_data?.details].filter(Boolean).join(" ") : text || `HTTP ${response.status}`).slice(0, 500);
  const code = Number(e?.code);
  if (code === PAIR_RATE_LIMIT_CODE) return new WaitAndRetry(words, boundedWait(retryAfterHeader(response.headers)));
  if (response.status === 429 || RATE_LIMIT_CODES.has(code)) return rateLimited(words, retryAfterHeader(response.headers));
  if (response.status >= 400 && response.status < 500 && response.status !== 408) return new PermanentFailure(words);
  return new Error(words);
}

/** A bearer call to Graph; throws graphFailure's error when refused. */
export async function graphCall<T>(account: ChannelAccount, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${graphUrl(account)}/${path.replace(/^\/+/, "")}`, {
    ...init,
    headers: { Authorization: `Bearer ${account.secrets.accessToken ?? ""}`, ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw await graphFailure(response);
  return (await response.json()) as T;
}

/** A customer's file: its URL from the media id, then the bytes (the URL needs the token too). */
export async function downloadGraphMedia(account: ChannelAccount, mediaId: string) {
  const info = await graphCall<{ url: string; mime_type?: string }>(account, encodeURIComponent(mediaId));
  const response = await fetch(info.url, { headers: { Authorization: `Bearer ${account.secrets.accessToken ?? ""}` }, signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw await graphFailure(response);
  return { bytes: Buffer.from(await response.arrayBuffer()), mime: info.mime_type || response.headers.get("content-type") || "application/octet-stream" };
}
