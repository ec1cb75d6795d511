// The plain HTTP gateway: a protocol small enough for any SMS gateway (or a script in front of
// one) to speak, both ways signed with the account's shared secret.
//
// Every request, ours and the gateway's, carries
//   X-Timestamp: seconds since 1970
//   X-Signature: hex HMAC-SHA256, keyed with the shared secret, of "{X-Timestamp}.{raw body}"
// and is refused when the signature is wrong or the timestamp is more than 5 minutes off (a
// captured request replayed later is refused: the timestamp is inside what is signed).
//
// In (POST to the account's webhook URL, JSON: one object or an array of them):
//   {"id", "from", "to", "text", "at", "name"?, "media"?: [{"url", "type"?, "name"?}]}   a customer's SMS
//   {"type": "status", "id", "status": "sent" | "delivered" | "read" | "failed", "error"?, "at"}   a receipt
// ("at": ISO 8601 or seconds since 1970; "id" of a status is the one our send was answered with).
// Out (POST to the account's send URL, JSON):
//   {"id": "omnidesk-{n}" (the same on a retry: the gateway's idempotency key), "from", "to", "text", "at",
//    "media"?: [{"url", "type", "name", "size"}]}
// answered 2xx {"id": "<the gateway's id>"}; 429 with Retry-After to slow us down; 4xx is final; 5xx is tried again.
// The Test button posts {"type": "ping", "at"} to the send URL.
import type { ChannelAccount, WebhookEvent, WebhookRequest } from "@plugins/channels/adapter";
import { e164, providerError, type MediaRef, type ParsedEvent } from "@plugins/channels/messaging.server";
import { hmac, sameSignature } from "@plugins/channels/signatures.server";
import { gatewayTime, mediaName, reach, type OutgoingSms, type SmsDialect } from "./dialect";
import { boundedBytes } from "@plugins/channels/media.server";
import { INBOUND_MEDIA_MAX } from "./limits";

/** How far a request's timestamp may be from our clock. */
export const MAX_SKEW_SECONDS = 300;

export const gatewaySignature = (secret: string, timestamp: string, body: Buffer | string) =>
  hmac("sha256", secret, Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.isBuffer(body) ? body : Buffer.from(body)]));

/** The headers of a signed request of ours. */
export function signedHeaders(secret: string, body: string, now = Date.now()) {
  const timestamp = String(Math.floor(now / 1000));
  return { "Content-Type": "application/json", "X-Timestamp": timestamp, "X-Signature": gatewaySignature(secret, timestamp, body) };
}

function verify(request: WebhookRequest, account: ChannelAccount) {
  const secret = account.secrets.sharedSecret;
  const timestamp = request.headers.get("x-timestamp") ?? "";
  if (!secret || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) return false;
  return sameSignature(request.headers.get("x-signature")?.trim().toLowerCase(), gatewaySignature(secret, timestamp, request.rawBody));
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

interface GatewayPayload {
  gateway: "webhook";
  event: Record<string, unknown>;
  at: number;
}

function events(request: WebhookRequest, account: ChannelAccount): WebhookEvent[] {
  const body: unknown = JSON.parse(request.rawBody.toString("utf8"));
  const list = Array.isArray(body) ? body : [body];
  if (!list.length) throw new Error("an empty batch");
  const at = Date.now();
  return list.map((event, i) => {
    if (!isObject(event) || !text(event.id)) throw new Error(`entry ${i} has no id`);
    const id = text(event.id).slice(0, 200);
    const key = event.type === "status" ? `${account.id}:status:${id}:${text(event.status)}` : `${account.id}:msg:${id}`;
    const from = event.type === "status" ? "" : text(event.from);
    return { key, lane: from ? e164(from) || from : undefined, payload: { gateway: "webhook", event, at } satisfies GatewayPayload };
  });
}

function parse(payload: unknown, account: ChannelAccount): ParsedEvent {
  const p = payload as GatewayPayload;
  if (p?.gateway !== "webhook" || !isObject(p.event)) throw new Error("not a gateway event");
  const e = p.event;
  const at = gatewayTime(e.at, p.at);
  const id = text(e.id);
  if (e.type === "status") {
    const status = text(e.status);
    if (status === "sent" || status === "delivered" || status === "read") return { type: "receipt", providerMessageId: id, state: status, at };
    if (status === "failed") return { type: "receipt", providerMessageId: id, state: "failed", error: text(e.error) || "failed", at };
    return { type: "ignored", reason: `gateway status "${status}" is not handled` };
  }
  if (e.type !== undefined && e.type !== "message") return { type: "ignored", reason: `gateway event type "${text(e.type)}" is not handled` };
  const from = text(e.from);
  if (!from) throw new Error("a message without its sender");
  const ours = e164(account.address);
  if (ours && e164(text(e.to)) && e164(text(e.to)) !== ours) return { type: "ignored", reason: `for another number (${text(e.to)})` };
  const media: MediaRef[] = (Array.isArray(e.media) ? e.media : []).slice(0, 10).map((m, i) => {
    if (!isObject(m) || !text(m.url)) throw new Error(`media ${i} has no url`);
    const mime = (text(m.type) || "application/octet-stream").split(";")[0].trim();
    return { id: text(m.url), mime, name: text(m.name) || mediaName(i, mime) };
  });
  return { type: "message", providerMessageId: id, customer: { id: e164(from) || from, name: text(e.name), phone: from }, text: text(e.text), media, at };
}

/** A gateway's refusal in its own words: {"error": {"message"}}, {"error": "..."}, {"message": "..."}, or the text. */
export function gatewayErrorText(body: unknown, raw: string) {
  if (isObject(body)) {
    const error = body.error;
    if (isObject(error) && text(error.message)) return text(error.message);
    if (text(error)) return text(error);
    if (text(body.message)) return text(body.message);
  }
  return raw.slice(0, 300);
}

async function downloadMedia(_account: ChannelAccount, media: MediaRef) {
  const response = await fetch(media.id, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw await providerError(response, gatewayErrorText);
  const mime = media.mime || response.headers.get("content-type")?.split(";")[0].trim() || "application/octet-stream";
  return { bytes: await boundedBytes(response, INBOUND_MEDIA_MAX), mime, name: media.name || "file" };
}

/** A signed JSON post to the gateway's send URL. */
function post(account: ChannelAccount, body: Record<string, unknown>) {
  const json = JSON.stringify(body);
  return reach("The gateway", () =>
    fetch(account.config.sendUrl ?? "", {
      method: "POST",
      headers: signedHeaders(account.secrets.sharedSecret ?? "", json),
      body: json,
      signal: AbortSignal.timeout(30_000),
    }),
  );
}

async function send(account: ChannelAccount, sms: OutgoingSms) {
  const id = `omnidesk-${sms.messageId}`;
  const response = await post(account, {
    id,
    from: e164(account.address) || account.address,
    to: sms.to,
    text: sms.text,
    at: new Date().toISOString(),
    ...(sms.media ? { media: [sms.media] } : {}),
  });
  if (!response.ok) throw await providerError(response, gatewayErrorText);
  const answer: unknown = await response.json().catch(() => null);
  // a gateway that keeps no id of its own is sent receipts under ours
  return (isObject(answer) && text(answer.id)) || id;
}

async function test(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const response = await post(account, { type: "ping", at: new Date().toISOString() });
    if (!response.ok) return { ok: false, error: (await providerError(response, gatewayErrorText)).message };
    return { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

export const webhookGateway: SmsDialect = { verify, events, parse, downloadMedia, send, test };
