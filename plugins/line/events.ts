// LINE Messaging API webhooks: one POST {destination, events: [...]} may carry several events, each
// with its own webhookEventId; a redelivery (deliveryContext.isRedelivery) carries the same id, so it
// is the same event to the channel layer and adds nothing. Field names as in the SDK's webhook types
// (@line/bot-sdk webhook.*), which are generated from LINE's OpenAPI definition.
import { createHash } from "node:crypto";
import type { webhook } from "@line/bot-sdk";
import type { WebhookEvent } from "@plugins/channels/adapter";
import type { MediaRef, ParsedEvent } from "@plugins/channels/messaging.server";

/** One event as it is stored: the bot it was sent to, and LINE's event itself. */
export interface LinePayload {
  destination: string;
  event: webhook.Event;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Every event of a webhook body; throws on a body that is not one. An empty list is LINE's "Verify" button. */
export function lineEvents(body: unknown): WebhookEvent[] {
  if (!isObject(body) || !Array.isArray(body.events)) throw new Error("not a LINE webhook body");
  const destination = typeof body.destination === "string" ? body.destination : "";
  return body.events.filter(isObject).map((event) => ({
    // events without an id (none are documented so) are still kept once: by their bytes
    key: typeof event.webhookEventId === "string" && event.webhookEventId ? event.webhookEventId : `hash:${hashOf(event)}`,
    lane: event.type === "message" ? (event as unknown as webhook.MessageEvent).source?.userId : undefined,
    payload: { destination, event: event as unknown as webhook.Event } satisfies LinePayload,
  }));
}

const hashOf = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");

/** The reply token of a customer's message and when it was sent, if it has one (standby mode and redeliveries may not). */
export function replyTokenOf(payload: unknown): { userId: string; token: string; at: number } | null {
  const event = (payload as LinePayload | null)?.event;
  if (event?.type !== "message" || event.source?.type !== "user" || !event.source.userId || !event.replyToken) return null;
  return { userId: event.source.userId, token: event.replyToken, at: Number(event.timestamp) || 0 };
}

const mapLink = (latitude: number, longitude: number) => `https://maps.google.com/?q=${latitude},${longitude}`;

/** What one stored event says; the customer's name is left empty (LINE sends only the id: see the adapter). */
export function parseLineEvent(payload: unknown): ParsedEvent {
  const p = payload as LinePayload | null;
  if (!isObject(p) || !isObject(p.event) || typeof p.event.type !== "string") throw new Error("not a LINE event");
  const event = p.event;
  if (event.type !== "message") return { type: "ignored", reason: `LINE event "${event.type}" is not handled` };
  if (event.source?.type !== "user")
    return { type: "ignored", reason: `LINE ${event.source?.type ?? "unknown"} chats are not handled: LINE_DM takes one-to-one chats` };
  const userId = event.source.userId;
  if (!userId) return { type: "ignored", reason: "a LINE message without the sender's user id" };
  const m = event.message;
  if (!isObject(m) || typeof m.id !== "string") throw new Error("a LINE message event without its message");
  const base = { type: "message" as const, providerMessageId: m.id, customer: { id: userId, name: "" }, at: Number(event.timestamp) || Date.now() };
  const media = (ref: MediaRef) => ({ ...base, text: "", media: [ref] });
  switch (m.type) {
    case "text":
      return { ...base, text: m.text ?? "", media: [] };
    case "image":
    case "video":
    case "audio":
      // sent through LIFF or another app with content of its own: LINE holds no copy, only the address
      if (m.contentProvider?.type === "external") return { ...base, text: m.contentProvider.originalContentUrl ?? "", media: [] };
      return media({ id: m.id, name: m.type });
    case "file":
      return media({ id: m.id, name: m.fileName || "file" });
    case "location":
      return { ...base, text: [m.title, m.address, mapLink(m.latitude, m.longitude)].filter(Boolean).join("\n"), media: [] };
    case "sticker":
      // no content to fetch: the words LINE gives for it (a message sticker's own text), else its ids
      return { ...base, text: m.text || (m.keywords ?? []).slice(0, 5).join(", ") || `LINE sticker ${m.packageId}/${m.stickerId}`, media: [] };
  }
  return { type: "ignored", reason: `LINE message type "${(m as { type: string }).type}" is not handled` };
}
