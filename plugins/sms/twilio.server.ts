// Twilio Programmable Messaging, written against its documented API (no SDK: the request signature
// is a few lines of node:crypto and the REST calls are two form posts and a GET):
// - out: POST /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded To, From (or
//   MessagingServiceSid), Body, MediaUrl, StatusCallback; HTTP basic auth AccountSid:AuthToken;
//   errors {code, message, more_info, status}, 429 when over the rate.
// - in: the number's webhook, form-encoded (MessageSid, From, To, Body, NumMedia, MediaUrl0,
//   MediaContentType0, ...), answered with empty TwiML; status callbacks (MessageSid, MessageStatus,
//   ErrorCode) to the same URL become receipts.
// - X-Twilio-Signature: base64 HMAC-SHA1, keyed with the auth token, of the full URL Twilio called
//   followed by every POST parameter's name and value, sorted by name. Behind a proxy the URL Twilio
//   called is not the one this server sees: the account's public webhook URL when set, else the
//   request's own URL as X-Forwarded-Proto/Host and BASE_URL say, each with and without the default port.
import type { ChannelAccount, WebhookEvent, WebhookRequest } from "@plugins/channels/adapter";
import { e164, providerError, type MediaRef, type ParsedEvent } from "@plugins/channels/messaging.server";
import { hmac, sameSignature } from "@plugins/channels/signatures.server";
import { gatewayTime, mediaName, reach, type OutgoingSms, type SmsDialect } from "./dialect";
import { publicWebhookUrl } from "./public.server";
import { boundedBytes } from "@plugins/channels/media.server";
import { INBOUND_MEDIA_MAX } from "./limits";

export const TWILIO_API = "https://api.twilio.com";
export const API_VERSION = "2010-04-01";
export const ACCOUNT_SID = /^AC[0-9a-f]{32}$/i;
const MESSAGING_SERVICE_SID = /^MG[0-9a-f]{32}$/i;

const apiBase = (account: ChannelAccount) => (account.config.apiBase || TWILIO_API).trim().replace(/\/+$/, "");
const accountPath = (account: ChannelAccount) => `${apiBase(account)}/${API_VERSION}/Accounts/${encodeURIComponent(account.config.accountSid ?? "")}`;
const basicAuth = (account: ChannelAccount) =>
  `Basic ${Buffer.from(`${account.config.accountSid ?? ""}:${account.secrets.authToken ?? ""}`).toString("base64")}`;

/** Twilio's signature of a request: the URL, then each parameter's name and value, sorted by name (then value). */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]>) {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
  return hmac("sha1", authToken, url + sorted.map(([k, v]) => k + v).join(""), "base64");
}

/** The URL as written, and with its default port added or dropped (Twilio's own libraries try both). */
function portVariants(url: string) {
  const m = /^(https?):\/\/([^/:?#]+)(?::(\d+))?(.*)$/i.exec(url);
  if (!m) return [url];
  const [, scheme, host, port, rest] = m;
  const standard = scheme.toLowerCase() === "https" ? "443" : "80";
  if (!port) return [url, `${scheme}://${host}:${standard}${rest}`];
  return port === standard ? [url, `${scheme}://${host}${rest}`] : [url];
}

const firstValue = (header: string | null) => header?.split(",")[0].trim() || "";

/** Every URL Twilio may have signed this request with. */
export function signedUrls(request: WebhookRequest, account: ChannelAccount) {
  if (account.config.webhookUrl) return portVariants(account.config.webhookUrl.trim());
  const path = request.url.pathname + request.url.search;
  const proto = firstValue(request.headers.get("x-forwarded-proto")) || request.url.protocol.replace(/:$/, "");
  const host = firstValue(request.headers.get("x-forwarded-host")) || request.headers.get("host") || request.url.host;
  const urls = [request.url.href, `${proto}://${host}${path}`];
  if (process.env.BASE_URL) urls.push(`${process.env.BASE_URL.trim().replace(/\/+$/, "")}${path}`);
  return [...new Set(urls.flatMap(portVariants))];
}

function verify(request: WebhookRequest, account: ChannelAccount) {
  const token = account.secrets.authToken;
  const given = request.headers.get("x-twilio-signature");
  if (!token || !given) return false;
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get("content-type") ?? "")) return false;
  const params = [...new URLSearchParams(request.rawBody.toString("utf8"))];
  return signedUrls(request, account).some((url) => sameSignature(given, twilioSignature(token, url, params)));
}

/** Steps before "sent" that tell nothing the send's own answer did not: not stored. */
const PROGRESS = new Set(["accepted", "scheduled", "queued", "sending"]);

interface TwilioPayload {
  gateway: "twilio";
  kind: "message" | "status";
  params: Record<string, string>;
  at: number;
}

function events(request: WebhookRequest, account: ChannelAccount): WebhookEvent[] {
  const params = Object.fromEntries(new URLSearchParams(request.rawBody.toString("utf8")));
  const sid = params.MessageSid || params.SmsSid;
  if (!sid) throw new Error("not a Twilio Messaging webhook: no MessageSid");
  const status = params.MessageStatus || params.SmsStatus || "";
  const at = Date.now();
  // an incoming message's status is "received"; anything else is a status callback of one we sent
  if (status && status !== "received") {
    if (PROGRESS.has(status)) return [];
    return [{ key: `${account.id}:status:${sid}:${status}`, payload: { gateway: "twilio", kind: "status", params, at } satisfies TwilioPayload }];
  }
  const from = params.From ?? "";
  return [
    {
      key: `${account.id}:msg:${sid}`,
      lane: from ? e164(from) || from : undefined,
      payload: { gateway: "twilio", kind: "message", params, at } satisfies TwilioPayload,
    },
  ];
}

/** Twilio's words for the delivery errors a status callback names by code only (docs: Error and Warning Dictionary). */
const DELIVERY_CODES: Record<string, string> = {
  "30001": "Queue overflow",
  "30002": "Account suspended",
  "30003": "Unreachable destination handset",
  "30004": "Message blocked",
  "30005": "Unknown destination handset",
  "30006": "Landline or unreachable carrier",
  "30007": "Message filtered",
  "30008": "Unknown error",
  "30032": "Toll-free number has not been verified",
  "30034": "Message from an unregistered number",
};

function parse(payload: unknown, account: ChannelAccount): ParsedEvent {
  const p = payload as TwilioPayload;
  if (p?.gateway !== "twilio" || !p.params || (p.kind !== "message" && p.kind !== "status")) throw new Error("not a Twilio event");
  const q = p.params;
  const sid = q.MessageSid || q.SmsSid;
  if (p.kind === "status") {
    const status = q.MessageStatus || q.SmsStatus;
    if (status === "sent" || status === "delivered" || status === "read") return { type: "receipt", providerMessageId: sid, state: status, at: p.at };
    if (status === "failed" || status === "undelivered") {
      const code = q.ErrorCode ?? "";
      const words = q.ErrorMessage || DELIVERY_CODES[code] || status;
      return { type: "receipt", providerMessageId: sid, state: "failed", error: code ? `Twilio ${code}: ${words}` : words, at: p.at };
    }
    return { type: "ignored", reason: `Twilio status "${status}" is not handled` };
  }
  const ours = e164(account.address);
  if (ours && e164(q.To) && e164(q.To) !== ours) return { type: "ignored", reason: `for another number (${q.To})` };
  const media: MediaRef[] = [];
  const count = Math.min(Number(q.NumMedia) || 0, 10);
  for (let i = 0; i < count; i++) {
    const url = q[`MediaUrl${i}`];
    if (!url) throw new Error(`MediaUrl${i} is missing`);
    const mime = (q[`MediaContentType${i}`] || "application/octet-stream").split(";")[0].trim();
    media.push({ id: url, mime, name: mediaName(i, mime) });
  }
  const from = q.From ?? "";
  return {
    type: "message",
    providerMessageId: sid,
    // Twilio knows no name for an SMS sender: the number is shown
    customer: { id: e164(from) || from, name: "", phone: from },
    text: q.Body ?? "",
    media,
    at: gatewayTime(p.at, Date.now()),
  };
}

/** Twilio's error body {code, message, more_info, status} in its own words. */
export function twilioErrorText(body: unknown, text: string) {
  const e = body as { code?: number; message?: string } | null;
  if (e?.message) return e.code ? `Twilio ${e.code}: ${e.message}` : e.message;
  return text.slice(0, 300);
}

async function downloadMedia(account: ChannelAccount, media: MediaRef) {
  // the account's credentials go to Twilio's own API only (its media redirects to a CDN, which gets none)
  const sameApi = (() => {
    try {
      return new URL(media.id).origin === new URL(apiBase(account)).origin;
    } catch {
      return false;
    }
  })();
  const response = await fetch(media.id, { headers: sameApi ? { Authorization: basicAuth(account) } : {}, signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw await providerError(response, twilioErrorText);
  const mime = media.mime || response.headers.get("content-type")?.split(";")[0].trim() || "application/octet-stream";
  return { bytes: await boundedBytes(response, INBOUND_MEDIA_MAX), mime, name: media.name || "file" };
}

async function send(account: ChannelAccount, sms: OutgoingSms) {
  const form = new URLSearchParams({ To: sms.to });
  const sender = account.address.trim();
  // a Messaging Service picks the sender itself (the address was stored lower-cased)
  if (MESSAGING_SERVICE_SID.test(sender)) form.set("MessagingServiceSid", `MG${sender.slice(2).toLowerCase()}`);
  else form.set("From", e164(sender) || sender);
  if (sms.text) form.set("Body", sms.text);
  if (sms.media) form.set("MediaUrl", sms.media.url);
  const callback = publicWebhookUrl(account);
  if (callback) form.set("StatusCallback", callback);
  const response = await reach("Twilio", () =>
    fetch(`${accountPath(account)}/Messages.json`, {
      method: "POST",
      headers: { Authorization: basicAuth(account), "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: form,
      signal: AbortSignal.timeout(30_000),
    }),
  );
  if (!response.ok) throw await providerError(response, twilioErrorText);
  const answer = (await response.json()) as { sid?: string };
  if (!answer.sid) throw new Error("Twilio answered without a message sid");
  return answer.sid;
}

async function test(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const response = await reach("Twilio", () =>
      fetch(`${accountPath(account)}.json`, {
        headers: { Authorization: basicAuth(account), Accept: "application/json" },
        signal: AbortSignal.timeout(20_000),
      }),
    );
    if (!response.ok) return { ok: false, error: (await providerError(response, twilioErrorText)).message };
    const answer = (await response.json()) as { status?: string };
    return answer.status && answer.status !== "active" ? { ok: false, error: `Twilio account is ${answer.status}` } : { ok: true };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Empty TwiML: nothing to answer the customer with; the agent replies later. */
const accepted = () =>
  new Response('<?xml version="1.0" encoding="UTF-8"?><Response/>', { status: 200, headers: { "Content-Type": "text/xml; charset=utf-8" } });

export const twilio: SmsDialect = { verify, events, accepted, parse, downloadMedia, send, test };
