// Instagram webhooks (object "instagram"): one call may batch several entries, each with direct
// messages (entry[].messaging[]: messages, reads, reactions, postbacks) and changes of the
// subscribed fields (entry[].changes[]: "comments", "mentions"). Every one becomes an event of its
// own, keyed by Instagram's id, so a redelivered or re-batched call adds nothing.
import type { WebhookEvent } from "@plugins/channels/adapter";
import type { MediaRef, ParsedEvent } from "@plugins/channels/messaging.server";

export interface IgAttachment {
  type?: string;
  payload?: { url?: string; title?: string };
}
export interface IgMessaging {
  sender?: { id?: string };
  recipient?: { id?: string };
  timestamp?: number;
  message?: {
    mid?: string;
    text?: string;
    attachments?: IgAttachment[];
    is_echo?: boolean;
    is_deleted?: boolean;
    is_unsupported?: boolean;
  };
  read?: { mid?: string };
  reaction?: { mid?: string; action?: string; reaction?: string; emoji?: string };
  postback?: { mid?: string; title?: string; payload?: string };
}
export interface IgComment {
  id?: string;
  text?: string;
  parent_id?: string;
  from?: { id?: string; username?: string };
  media?: { id?: string; media_product_type?: string };
}
export interface IgMention {
  media_id?: string;
  comment_id?: string;
}

export type Payload =
  | { kind: "messaging"; igId: string; event: IgMessaging }
  | { kind: "comment"; igId: string; at: number; value: IgComment }
  | { kind: "mention"; igId: string; at: number; value: IgMention }
  | { kind: "other"; field: string; value: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Meta's times are seconds on Instagram changes and milliseconds on messaging: either becomes milliseconds. */
const millis = (t: unknown) => {
  const n = Number(t);
  if (!Number.isFinite(n) || n <= 0) return Date.now();
  return n < 1e12 ? n * 1000 : n;
};

function hashOf(value: unknown) {
  // a short stable tag for changes without an id of their own (kept for inspection only)
  let h = 0;
  for (const ch of JSON.stringify(value) ?? "") h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return (h >>> 0).toString(36);
}

function messagingKey(m: IgMessaging) {
  if (m.message?.mid) return `msg:${m.message.mid}`;
  if (m.read?.mid) return `read:${m.read.mid}`;
  if (m.reaction?.mid) return `reaction:${m.reaction.mid}:${m.sender?.id}:${m.reaction.action}:${m.reaction.emoji ?? m.reaction.reaction}:${m.timestamp}`;
  if (m.postback?.mid) return `postback:${m.postback.mid}`;
  return `other:messaging:${hashOf(m)}`;
}

/** Every message, read, reaction, comment and mention of a webhook body; throws on a body that is not one. */
export function instagramEvents(body: unknown): WebhookEvent[] {
  if (!isObject(body) || body.object !== "instagram" || !Array.isArray(body.entry)) throw new Error("not an Instagram webhook");
  const events: WebhookEvent[] = [];
  for (const entry of list(body.entry)) {
    if (!isObject(entry)) continue;
    const igId = String(entry.id ?? "");
    const at = millis(entry.time);
    for (const m of list(entry.messaging) as IgMessaging[]) {
      if (!isObject(m)) continue;
      events.push({
        key: messagingKey(m),
        lane: m.message ? (m as IgMessaging).sender?.id : undefined,
        payload: { kind: "messaging", igId, event: m } satisfies Payload,
      });
    }
    // changes come as entry.changes[]; Meta's Business Login examples also show one as entry.field / entry.value
    const changes = [...list(entry.changes), ...(typeof entry.field === "string" ? [{ field: entry.field, value: entry.value }] : [])];
    for (const change of changes) {
      if (!isObject(change)) continue;
      const value = isObject(change.value) ? change.value : {};
      if (change.field === "comments" && value.id) {
        const c = value as IgComment;
        events.push({
          key: `comment:${String(value.id)}`,
          lane: `comment:${c.parent_id || c.id}`,
          payload: { kind: "comment", igId, at, value: value as IgComment } satisfies Payload,
        });
      } else if (change.field === "mentions" && value.media_id) {
        const v = value as IgMention;
        events.push({ key: `mention:${v.media_id}:${v.comment_id ?? ""}`, payload: { kind: "mention", igId, at, value: v } satisfies Payload });
      } else if (change.field === "messages" && isObject(value.message ?? value.read ?? value.reaction)) {
        // the dashboard's "Test" and some subscriptions send a direct message as a change
        events.push({ key: messagingKey(value as IgMessaging), payload: { kind: "messaging", igId, event: value as IgMessaging } satisfies Payload });
      } else {
        events.push({
          key: `other:${String(change.field)}:${hashOf(value)}`,
          payload: { kind: "other", field: String(change.field), value } satisfies Payload,
        });
      }
    }
  }
  return events;
}

/** A mention as the webhook gives it: the caption or comment is fetched before it becomes a message. */
export interface MentionToFetch {
  type: "mention";
  mediaId: string;
  commentId?: string;
  at: number;
}

/** Where a story mention's conversation hangs: one per customer, apart from their direct messages. */
export const STORY_REF = "story";
/** Where a caption or comment mention's conversation hangs: the mentioning media. */
export const mentionRef = (mediaId: string) => `mention:${mediaId}`;

const MEDIA_TYPES = new Set(["image", "video", "audio", "file"]);

/** What one stored event says (a mention still needs its text fetched). */
export function parseInstagramEvent(payload: unknown, igId: string, ownUsername = ""): ParsedEvent | MentionToFetch {
  const p = payload as Payload;
  if (p?.kind === "other") return { type: "ignored", reason: `Instagram change "${p.field}" is not handled` };
  if (p?.kind !== "messaging" && p?.kind !== "comment" && p?.kind !== "mention") throw new Error("not an Instagram event");
  if (p.igId && igId && p.igId !== igId) return { type: "ignored", reason: `for another Instagram account (${p.igId})` };

  if (p.kind === "comment") {
    const c = p.value;
    if (!c.id || !c.media?.id) throw new Error("a comment without its id or media");
    // our own replies come back as comments too
    const username = c.from?.username ?? "";
    const own = ownUsername.replace(/^@/, "").toLowerCase();
    if ((c.from?.id && c.from.id === igId) || (own && username.toLowerCase() === own)) return { type: "ignored", reason: "a comment of this account" };
    return {
      type: "message",
      providerMessageId: c.id,
      // a thread (the top-level comment and its replies, whoever wrote them) is one conversation
      customer: { id: c.parent_id || c.id, name: username ? `@${username}` : "" },
      text: c.text ?? "",
      media: [],
      ref: c.media.id,
      channel: "IG_POST",
      at: p.at,
    };
  }
  if (p.kind === "mention") return { type: "mention", mediaId: String(p.value.media_id), commentId: p.value.comment_id || undefined, at: p.at };

  const m = p.event;
  const from = m.sender?.id ?? "";
  const at = millis(m.timestamp);
  if (m.read?.mid) return { type: "receipt", providerMessageId: m.read.mid, state: "read", at, coversEarlier: true };
  if (!from) throw new Error("a message without its sender");
  if (from === igId || m.message?.is_echo) return { type: "ignored", reason: "an echo of a message this account sent" };
  const customer = { id: from, name: "" };
  if (m.reaction) {
    if (m.reaction.action !== "react") return { type: "ignored", reason: `Instagram reaction "${m.reaction.action}" is not handled` };
    const emoji = m.reaction.emoji || m.reaction.reaction || "";
    return { type: "message", providerMessageId: `reaction:${m.reaction.mid}:${m.timestamp}`, customer, text: emoji, media: [], at };
  }
  if (m.postback?.mid) return { type: "message", providerMessageId: m.postback.mid, customer, text: m.postback.title ?? "", media: [], at };
  const msg = m.message;
  if (!msg?.mid) return { type: "ignored", reason: "an Instagram messaging event that is not handled" };
  if (msg.is_deleted) return { type: "ignored", reason: "the customer deleted a message" };
  if (msg.is_unsupported) return { type: "ignored", reason: "a message type Instagram does not pass on" };
  const attachments = msg.attachments ?? [];
  const story = attachments.find((a) => a.type === "story_mention");
  if (story) {
    // the story's media expire after a day: its address is kept as a link, the answer is a direct message
    const text = [msg.text, story.payload?.url].filter(Boolean).join("\n");
    return { type: "message", providerMessageId: msg.mid, customer, text, media: [], ref: STORY_REF, channel: "IG_MENTION", at };
  }
  const media: MediaRef[] = [];
  const links: string[] = [];
  for (const a of attachments) {
    const url = a.payload?.url;
    if (!url) continue;
    // name: the attachment's type; the download adds the extension of the type the file has
    if (MEDIA_TYPES.has(a.type ?? "")) media.push({ id: url, name: a.type });
    else links.push(url); // a shared post, reel or link
  }
  const text = [msg.text, ...links].filter(Boolean).join("\n");
  if (!text && !media.length) return { type: "ignored", reason: "an Instagram message without text or files" };
  return { type: "message", providerMessageId: msg.mid, customer, text, media, at };
}
