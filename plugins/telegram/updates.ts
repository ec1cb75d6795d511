// Telegram Bot API updates (the Update object, the same JSON whether Telegram posts it to the
// webhook or getUpdates hands it out): each is one event keyed by the bot and its update_id, so an
// update fetched by polling and delivered to the webhook too, or delivered twice, is one message.
// A customer is the chat (its id is where replies go); Telegram gives no phone number unless the
// customer shares their own contact.
import type { Message, Update } from "grammy/types";
import type { WebhookEvent } from "@plugins/channels/adapter";
import type { MediaRef, ParsedEvent } from "@plugins/channels/messaging.server";
import { DOWNLOAD_MAX, sizeText } from "./limits";

/** The update types the bot asks for (setWebhook and getUpdates allowed_updates): customers' messages only. */
export const ALLOWED_UPDATES = ["message"] as const;

/** The bot's own id: the part of its token before the colon ("123456789:AA..."). */
export const botIdOf = (token: string | undefined) => /^(\d+):/.exec(token ?? "")?.[1] ?? "";

/** The event key of an update: update_id is only unique per bot. */
export const updateKey = (botId: string, updateId: number) => `${botId}:${updateId}`;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** The events of updates (a webhook call carries one, getUpdates a list); throws on JSON that is not what Telegram sends. */
export function telegramEvents(body: unknown, botId: string, options: { single?: boolean } = {}): WebhookEvent[] {
  if (options.single && Array.isArray(body)) throw new Error("a webhook call carries one update, not a list");
  const updates = Array.isArray(body) ? body : [body];
  return updates.map((u) => {
    if (!isObject(u) || !Number.isSafeInteger(u.update_id)) throw new Error("not a Telegram update");
    // a chat's messages in turn (edits and channel posts of it too)
    const m = (u.message ?? u.edited_message ?? u.channel_post ?? u.business_message) as { chat?: { id?: unknown } } | undefined;
    return { key: updateKey(botId, u.update_id as number), lane: m?.chat?.id != null ? String(m.chat.id) : undefined, payload: u };
  });
}

/** The customer's name as Telegram shows it: first and last name, else @username; a group's title. */
function chatName(message: Message) {
  const c = message.chat as { type: string; first_name?: string; last_name?: string; username?: string; title?: string };
  if (c.type !== "private" && c.title) return c.title;
  const full = [c.first_name, c.last_name].filter(Boolean).join(" ").trim();
  if (full) return full;
  const from = message.from;
  const fromName = [from?.first_name, from?.last_name].filter(Boolean).join(" ").trim();
  return fromName || (c.username ? `@${c.username}` : from?.username ? `@${from.username}` : "");
}

/** A file of the message and how it is named and typed (Telegram keeps no name for photos and voice notes). */
function fileOf(m: Message): { id: string; size?: number; mime: string; name: string } | null {
  if (m.photo?.length) {
    // sizes come smallest first: the largest one that may be downloaded
    const fits = m.photo.filter((p) => !p.file_size || p.file_size <= DOWNLOAD_MAX);
    const p = (fits.length ? fits : m.photo).at(-1)!;
    return { id: p.file_id, size: p.file_size, mime: "image/jpeg", name: "photo.jpg" };
  }
  if (m.document)
    return {
      id: m.document.file_id,
      size: m.document.file_size,
      mime: m.document.mime_type || "application/octet-stream",
      name: m.document.file_name || "file",
    };
  if (m.video) return { id: m.video.file_id, size: m.video.file_size, mime: m.video.mime_type || "video/mp4", name: m.video.file_name || "video.mp4" };
  if (m.animation)
    return { id: m.animation.file_id, size: m.animation.file_size, mime: m.animation.mime_type || "video/mp4", name: m.animation.file_name || "animation.mp4" };
  if (m.audio) return { id: m.audio.file_id, size: m.audio.file_size, mime: m.audio.mime_type || "audio/mpeg", name: m.audio.file_name || "audio.mp3" };
  if (m.voice) return { id: m.voice.file_id, size: m.voice.file_size, mime: m.voice.mime_type || "audio/ogg", name: "voice.ogg" };
  if (m.video_note) return { id: m.video_note.file_id, size: m.video_note.file_size, mime: "video/mp4", name: "video-note.mp4" };
  if (m.sticker) {
    const s = m.sticker;
    const [mime, ext] = s.is_animated ? ["application/x-tgsticker", "tgs"] : s.is_video ? ["video/webm", "webm"] : ["image/webp", "webp"];
    return { id: s.file_id, size: s.file_size, mime, name: `sticker.${ext}` };
  }
  return null;
}

/** What a message says beside its file: text, caption, a place, a contact. */
function textOf(m: Message) {
  if (m.text !== undefined) return m.text;
  if (m.venue) {
    const v = m.venue;
    return [v.title, v.address, `https://maps.google.com/?q=${v.location.latitude},${v.location.longitude}`].filter(Boolean).join("\n");
  }
  if (m.location) return `https://maps.google.com/?q=${m.location.latitude},${m.location.longitude}`;
  if (m.contact) return [[m.contact.first_name, m.contact.last_name].filter(Boolean).join(" "), m.contact.phone_number].join(" ");
  if (m.sticker && !m.caption) return m.sticker.emoji ?? "";
  return m.caption ?? "";
}

/** What one stored update says. Telegram has no delivery or read receipts for bots: nothing here moves a sent message's state. */
export function parseTelegramUpdate(payload: unknown): ParsedEvent {
  if (!isObject(payload) || !Number.isSafeInteger(payload.update_id)) throw new Error("not a Telegram update");
  const update = payload as unknown as Update;
  const m = update.message;
  if (!m) {
    const kind = Object.keys(update).find((k) => k !== "update_id") ?? "empty";
    return { type: "ignored", reason: `Telegram update "${kind}" is not handled` };
  }
  if (typeof m.chat !== "object" || m.chat?.id === undefined || !Number.isSafeInteger(m.message_id)) throw new Error("a message without its chat or id");
  const file = fileOf(m);
  let text = textOf(m);
  const media: MediaRef[] = [];
  if (file && file.size && file.size > DOWNLOAD_MAX) {
    // Telegram will not hand a bot a file this large: the message is kept, the file named
    text = [text, `📎 ${file.name} (${sizeText(file.size)})`].filter(Boolean).join("\n");
  } else if (file) media.push({ id: file.id, mime: file.mime, name: file.name });
  if (!text && !media.length) {
    const kind = Object.keys(m).find((k) => !["message_id", "from", "chat", "date", "sender_chat", "entities", "message_thread_id"].includes(k)) ?? "empty";
    return { type: "ignored", reason: `Telegram message type "${kind}" is not handled` };
  }
  const chatId = String(m.chat.id);
  // a customer who shares their own contact has told us their number
  const ownPhone = m.contact && m.from && m.contact.user_id === m.from.id ? m.contact.phone_number : undefined;
  return {
    type: "message",
    providerMessageId: `${chatId}:${m.message_id}`,
    customer: { id: chatId, name: chatName(m), phone: ownPhone },
    text,
    media,
    at: Number(m.date) * 1000 || Date.now(),
  };
}
