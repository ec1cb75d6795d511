// X Account Activity API webhooks: one POST {for_user_id, direct_message_events: [...], users: {...}}
// or {for_user_id, tweet_create_events: [...]} may carry several events. Each is stored on its own
// under X's id (a DM event's id, a post's id_str), so a redelivery adds nothing. Typing indicators
// are dropped unstored (one per keystroke, nothing to keep); read receipts name the last DM read.
import { createHash } from "node:crypto";
import type { WebhookEvent } from "@plugins/channels/adapter";
import type { MediaRef } from "@plugins/channels/messaging.server";

/** A user as the payload's users map and a post's user give it. */
export interface XUser {
  id?: string;
  id_str?: string;
  name?: string;
  screen_name?: string;
}

interface XMedia {
  type?: string;
  url?: string;
  media_url_https?: string;
  video_info?: { variants?: { bitrate?: number; content_type?: string; url?: string }[] };
}

export interface XDirectMessage {
  type: string;
  id: string;
  created_timestamp?: string;
  message_create?: {
    sender_id?: string;
    target?: { recipient_id?: string };
    message_data?: { text?: string; attachment?: { type?: string; media?: XMedia } };
  };
}

export interface XPost {
  id_str: string;
  text?: string;
  full_text?: string;
  truncated?: boolean;
  timestamp_ms?: string;
  created_at?: string;
  user?: XUser;
  in_reply_to_status_id_str?: string | null;
  in_reply_to_user_id_str?: string | null;
  retweeted_status?: unknown;
  entities?: { user_mentions?: { id_str?: string }[] };
  extended_entities?: { media?: XMedia[] };
  extended_tweet?: { full_text?: string; entities?: { user_mentions?: { id_str?: string }[] }; extended_entities?: { media?: XMedia[] } };
}

export interface XReadEvent {
  created_timestamp?: string;
  sender_id?: string;
  target?: { recipient_id?: string };
  last_read_event_id?: string;
}

/** One stored event: the account it was for, what it is, X's event itself (and a DM sender from the users map). */
export type XPayload = { forUserId: string } & (
  | { kind: "dm"; event: XDirectMessage; sender?: XUser }
  | { kind: "post"; event: XPost }
  | { kind: "read"; event: XReadEvent }
  | { kind: "other"; name: string; event: unknown }
);

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const list = (v: unknown) => (Array.isArray(v) ? v.filter(isObject) : []);
const hashOf = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");
const idOf = (v: unknown) => (typeof v === "string" && v ? v : typeof v === "number" ? String(v) : "");

/** Sent while someone types: nothing to keep. */
const DROPPED = new Set(["direct_message_indicate_typing_events"]);

/** Every event of a webhook body; throws on a body that is not one. */
export function xEvents(body: unknown): WebhookEvent[] {
  if (!isObject(body) || !idOf(body.for_user_id)) throw new Error("not an Account Activity API body (no for_user_id)");
  const forUserId = idOf(body.for_user_id);
  const users = isObject(body.users) ? body.users : {};
  const events: WebhookEvent[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (name === "for_user_id" || name === "users" || name === "is_blocked_by" || name === "source" || DROPPED.has(name)) continue;
    for (const event of Array.isArray(value) ? list(value) : isObject(value) ? [value] : []) {
      if (name === "direct_message_events") {
        const sender = idOf((event.message_create as XDirectMessage["message_create"])?.sender_id);
        const payload: XPayload = { forUserId, kind: "dm", event: event as unknown as XDirectMessage, sender: (users[sender] as XUser) ?? undefined };
        events.push({ key: `dm:${idOf(event.id) || `hash:${hashOf(event)}`}`, lane: sender ? `dm:${sender}` : undefined, payload });
      } else if (name === "tweet_create_events") {
        const author = idOf((event as unknown as XPost).user?.id_str);
        events.push({
          key: `post:${idOf(event.id_str) || `hash:${hashOf(event)}`}`,
          lane: author ? `post:${author}` : undefined,
          payload: { forUserId, kind: "post", event: event as unknown as XPost },
        });
      } else if (name === "direct_message_mark_read_events") {
        const r = event as XReadEvent;
        events.push({ key: `read:${idOf(r.sender_id)}:${idOf(r.last_read_event_id) || hashOf(event)}`, payload: { forUserId, kind: "read", event: r } });
      } else {
        // likes, follows, blocks, deletes...: kept for inspection, not made messages
        events.push({ key: `${name}:${hashOf(event)}`, payload: { forUserId, kind: "other", name, event } });
      }
    }
  }
  return events;
}

/** A post's whole text: extended_tweet.full_text when X truncated it. */
export const postText = (post: XPost) => (post.truncated && post.extended_tweet?.full_text) || post.full_text || post.text || "";

/** Whether a post @mentions the account. */
export const mentions = (post: XPost, userId: string) =>
  [...(post.entities?.user_mentions ?? []), ...(post.extended_tweet?.entities?.user_mentions ?? [])].some((m) => m.id_str === userId);

const EXTENSIONS: Record<string, string> = { "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp", "video/mp4": "mp4" };

/** A media object's file: a video's (or GIF's) best MP4 variant, else the picture. */
export function mediaRef(media: XMedia | undefined, name: string): MediaRef | null {
  if (!media) return null;
  const mp4 = (media.video_info?.variants ?? []).filter((v) => v.content_type === "video/mp4" && v.url).sort((a, b) => (b.bitrate ?? 0) - (a.bitrate ?? 0))[0];
  const url = mp4?.url ?? media.media_url_https;
  if (!url) return null;
  const mime = mp4 ? "video/mp4" : /\.png(\?|$)/.test(url) ? "image/png" : "image/jpeg";
  return { id: url, mime, name: `${name}.${EXTENSIONS[mime]}` };
}

/** A DM's text without the t.co link X appends for its attachment. */
export function dmText(dm: XDirectMessage) {
  const data = dm.message_create?.message_data;
  const link = data?.attachment?.media?.url;
  const text = data?.text ?? "";
  return (link ? text.replace(link, "") : text).trim();
}

export const timeOf = (ms: string | undefined, fallback?: string) => Number(ms) || Date.parse(fallback ?? "") || Date.now();
