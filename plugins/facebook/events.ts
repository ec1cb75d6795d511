// Facebook Page webhooks (object "page"): one call may batch entries of several Pages (one Meta app
// serves them all), each with Messenger events (entry[].messaging[]) and feed changes
// (entry[].changes[], field "feed"). Every one becomes an event of its own, keyed by the provider's
// id (a message's mid, a comment's id; a receipt by its Page, customer and watermark), so a
// redelivered or re-batched call adds nothing. The Page's own echoes and comments are not events.
import type { WebhookEvent } from "@plugins/channels/adapter";
import type { MediaRef, ParsedEvent } from "@plugins/channels/messaging.server";

interface FbAttachment {
  type?: string;
  title?: string;
  payload?: { url?: string; title?: string; sticker_id?: number } | null;
}
export interface FbMessaging {
  sender?: { id?: string };
  recipient?: { id?: string };
  timestamp?: number;
  message?: { mid?: string; text?: string; is_echo?: boolean; quick_reply?: { payload?: string }; attachments?: FbAttachment[] };
  postback?: { mid?: string; title?: string; payload?: string };
  delivery?: { mids?: string[]; watermark?: number };
  read?: { watermark?: number };
}
export interface FbComment {
  item?: string;
  verb?: string;
  comment_id?: string;
  post_id?: string;
  parent_id?: string;
  from?: { id?: string; name?: string };
  message?: string;
  photo?: string;
  created_time?: number;
}

export type FbPayload =
  | { kind: "messaging"; pageId: string; event: FbMessaging }
  | { kind: "comment"; pageId: string; value: FbComment }
  | { kind: "other"; pageId: string; field: string; value: unknown };

/** A receipt says "every message sent before this moment": handled by watermark, not by message id. */
export interface Watermark {
  customerId: string;
  state: "delivered" | "read";
  watermark: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function hashOf(value: unknown) {
  // a short stable tag for events without an id of their own
  let h = 0;
  for (const ch of JSON.stringify(value) ?? "") h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return (h >>> 0).toString(36);
}

function messagingKey(pageId: string, m: FbMessaging): string {
  const who = `${pageId}:${m.sender?.id ?? ""}`;
  if (m.message?.mid) return `mid:${m.message.mid}`;
  if (m.postback) return `postback:${m.postback.mid || `${who}:${m.timestamp ?? hashOf(m.postback)}`}`;
  if (m.delivery?.watermark) return `delivery:${who}:${m.delivery.watermark}`;
  if (m.read?.watermark) return `read:${who}:${m.read.watermark}`;
  return `other:${who}:${m.timestamp ?? ""}:${hashOf(m)}`;
}

/** Every Messenger event and feed change of a webhook body; throws on a body that is not one. */
export function facebookEvents(body: unknown): WebhookEvent[] {
  if (!isObject(body) || body.object !== "page" || !Array.isArray(body.entry)) throw new Error("not a Facebook Page webhook");
  const events: WebhookEvent[] = [];
  for (const entry of list(body.entry)) {
    if (!isObject(entry)) continue;
    const pageId = String(entry.id ?? "");
    for (const item of list(entry.messaging)) {
      if (!isObject(item)) continue;
      const m = item as FbMessaging;
      // what the Page sent (agents' answers from here or from the Page's inbox) comes back as an echo
      if (m.message?.is_echo) continue;
      const lane = m.message || m.postback ? m.sender?.id : undefined;
      events.push({ key: messagingKey(pageId, m), lane, payload: { kind: "messaging", pageId, event: m } satisfies FbPayload });
    }
    for (const change of list(entry.changes)) {
      if (!isObject(change)) continue;
      const value = isObject(change.value) ? (change.value as FbComment) : {};
      if (change.field === "feed" && value.item === "comment" && value.comment_id) {
        // the Page's own comments: our agents' answers coming back
        if (value.from?.id && value.from.id === pageId) continue;
        const verb = value.verb ?? "add";
        const key = verb === "add" ? `comment:${value.comment_id}` : `comment:${value.comment_id}:${verb}:${value.created_time ?? ""}:${hashOf(value.message)}`;
        // a thread's comments, in turn (its top-level comment names it)
        const top = value.parent_id && value.parent_id !== value.post_id ? value.parent_id : value.comment_id;
        events.push({ key, lane: `comment:${top}`, payload: { kind: "comment", pageId, value } satisfies FbPayload });
        continue;
      }
      events.push({
        key: `other:${pageId}:${String(change.field)}:${hashOf(value)}`,
        payload: { kind: "other", pageId, field: `${String(change.field)}${value.item ? `/${value.item}` : ""}`, value } satisfies FbPayload,
      });
    }
  }
  return events;
}

/** The Page an event was sent for. */
export const pageOf = (payload: unknown) => String((payload as FbPayload | null)?.pageId ?? "");

/** A delivery or read receipt, or null when the event is something else. */
export function watermarkOf(payload: unknown): Watermark | null {
  const p = payload as FbPayload;
  if (p?.kind !== "messaging") return null;
  const customerId = p.event.sender?.id ?? "";
  if (p.event.delivery?.watermark) return { customerId, state: "delivered", watermark: Number(p.event.delivery.watermark) };
  if (p.event.read?.watermark) return { customerId, state: "read", watermark: Number(p.event.read.watermark) };
  return null;
}

const EXTENSIONS: Record<string, string> = { image: "jpg", video: "mp4", audio: "mp4", file: "bin" };

/** A file's name from its CDN address (Messenger keeps the customer's file name there), else one by its type. */
function mediaName(url: string, type: string) {
  try {
    const last = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "");
    if (/^[^/\\]{1,120}\.[A-Za-z0-9]{1,8}$/.test(last)) return last;
  } catch {
    // not an address: named by its type
  }
  return `${type}.${EXTENSIONS[type] ?? "bin"}`;
}

/** A customer's Messenger message or postback; `name` is the customer's name as known (the profile's). */
export function parseMessaging(m: FbMessaging, name: string): ParsedEvent {
  const customerId = m.sender?.id;
  if (!customerId) throw new Error("a Messenger event without its sender");
  const at = Number(m.timestamp) || Date.now();
  const customer = { id: customerId, name };
  if (m.postback) {
    const id = m.postback.mid || `postback:${customerId}:${at}`;
    return { type: "message", providerMessageId: id, customer, text: m.postback.title || m.postback.payload || "", media: [], at };
  }
  const message = m.message;
  if (!message?.mid)
    return {
      type: "ignored",
      reason: `Messenger event "${Object.keys(m)
        .filter((k) => !["sender", "recipient", "timestamp"].includes(k))
        .join(",")}" is not handled`,
    };
  const media: MediaRef[] = [];
  const lines: string[] = [message.text || message.quick_reply?.payload || ""];
  for (const a of message.attachments ?? []) {
    const url = a.payload?.url;
    if (url && ["image", "video", "audio", "file"].includes(a.type ?? "")) media.push({ id: url, name: mediaName(url, a.type!) });
    // a shared link arrives as a "fallback": its title and address are the message
    else if (url && !message.text) lines.push([a.title, url].filter(Boolean).join(" "));
  }
  const text = lines.filter(Boolean).join("\n");
  if (!text && !media.length) return { type: "ignored", reason: "a Messenger message with nothing this desk can show" };
  return { type: "message", providerMessageId: message.mid, customer, text, media, at };
}

/**
 * A comment on one of the Page's posts. Its thread (the top-level comment and the replies under it)
 * is one conversation: keyed by the top-level comment's id, whoever writes in it; ref is the post.
 */
export function parseComment(value: FbComment): ParsedEvent {
  const verb = value.verb ?? "add";
  if (verb === "remove") return { type: "ignored", reason: `comment ${value.comment_id} was removed on Facebook` };
  if (verb !== "add" && verb !== "edited") return { type: "ignored", reason: `comment verb "${verb}" is not handled` };
  if (!value.comment_id || !value.post_id) throw new Error("a comment without its ids");
  const top = value.parent_id && value.parent_id !== value.post_id ? value.parent_id : value.comment_id;
  const at = Number(value.created_time) * 1000 || Date.now();
  return {
    type: "message",
    channel: "FB_PAGE_POST",
    providerMessageId: verb === "add" ? value.comment_id : `${value.comment_id}:edited:${at}`,
    customer: { id: top, name: value.from?.name ?? "" },
    ref: value.post_id,
    text: value.message ?? "",
    media: value.photo ? [{ id: value.photo, name: mediaName(value.photo, "image") }] : [],
    at,
  };
}
