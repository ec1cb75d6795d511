// The two ways an SMS account talks to its gateway (the account's `gateway` setting): Twilio's
// Messages API, or the plain signed HTTP webhook any gateway can speak. The adapter
// (adapter.server.ts) hands each call to the account's dialect.
import type { ChannelAccount, WebhookEvent, WebhookRequest } from "@plugins/channels/adapter";
import type { MediaRef, ParsedEvent } from "@plugins/channels/messaging.server";

export const GATEWAYS = ["twilio", "webhook"] as const;
export type Gateway = (typeof GATEWAYS)[number];

/** One SMS (or MMS: one file) going out. */
export interface OutgoingSms {
  /** Our message's id: the plain gateway's idempotency key. */
  messageId: number;
  /** E.164 */
  to: string;
  text: string;
  /** A file the gateway fetches from a signed link of ours. */
  media?: { url: string; type: string; name: string; size: number };
}

export interface SmsDialect {
  /** The gateway's signature over the raw body (and, for the plain webhook, its timestamp). */
  verify(request: WebhookRequest, account: ChannelAccount): boolean;
  /** Every message and status of a verified call; throws when the body is not what the gateway sends. */
  events(request: WebhookRequest, account: ChannelAccount): WebhookEvent[];
  /** The answer the gateway expects (Twilio: empty TwiML). */
  accepted?(request: WebhookRequest, account: ChannelAccount): Response;
  /** One stored event. */
  parse(payload: unknown, account: ChannelAccount): ParsedEvent;
  downloadMedia(account: ChannelAccount, media: MediaRef): Promise<{ bytes: Buffer; mime: string; name: string }>;
  /** Sends one SMS; the gateway's id of it (status callbacks name it). */
  send(account: ChannelAccount, sms: OutgoingSms): Promise<string>;
  test(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }>;
}

/** A time a gateway gave (ISO 8601, or seconds or milliseconds since 1970), else `fallback`. */
export function gatewayTime(value: unknown, fallback: number) {
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return value < 1e12 ? value * 1000 : value;
  if (typeof value === "string" && value.trim()) {
    const n = Number(value);
    if (Number.isFinite(n) && n > 0) return n < 1e12 ? n * 1000 : n;
    const parsed = Date.parse(value);
    if (Number.isFinite(parsed)) return parsed;
  }
  return fallback;
}

const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "video/mp4": "mp4",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/amr": "amr",
  "text/vcard": "vcf",
  "application/pdf": "pdf",
};

/** A name for a customer's file the gateway gave none for. */
export const mediaName = (index: number, mime: string) => `media-${index + 1}.${EXTENSIONS[mime] ?? "bin"}`;

/** A call that never reached the gateway (refused, timed out, no such host), in words an agent can act on; tried again later. */
export async function reach(who: string, call: () => Promise<Response>): Promise<Response> {
  try {
    return await call();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`${who} could not be reached: ${cause?.code || cause?.message || (error as Error).message}`);
  }
}
