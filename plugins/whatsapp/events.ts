// WhatsApp Cloud API webhooks (object "whatsapp_business_account"): one call may batch several
// entries, each with several changes, each with several messages and statuses. Every one becomes
// an event of its own, keyed by the provider's id, so a redelivered or re-batched call adds nothing.
import type { WebhookEvent } from "@plugins/channels/adapter";
import type { MediaRef, ParsedEvent } from "@plugins/channels/messaging.server";

interface WaContact {
  wa_id?: string;
  profile?: { name?: string };
}
interface WaMedia {
  id: string;
  mime_type?: string;
  caption?: string;
  filename?: string;
}
export interface WaMessage {
  id: string;
  from: string;
  timestamp: string;
  type: string;
  text?: { body?: string };
  image?: WaMedia;
  video?: WaMedia;
  audio?: WaMedia;
  document?: WaMedia;
  sticker?: WaMedia;
  interactive?: { type?: string; button_reply?: { id?: string; title?: string }; list_reply?: { id?: string; title?: string; description?: string } };
  button?: { text?: string; payload?: string };
  location?: { latitude?: number; longitude?: number; name?: string; address?: string };
  contacts?: { name?: { formatted_name?: string }; phones?: { phone?: string }[] }[];
}
export interface WaStatus {
  id: string;
  status: string;
  timestamp: string;
  recipient_id?: string;
  errors?: { code?: number; title?: string; message?: string; error_data?: { details?: string } }[];
}

type Payload =
  | { kind: "message"; phoneNumberId: string; message: WaMessage; contact?: WaContact }
  | { kind: "status"; phoneNumberId: string; status: WaStatus }
  | { kind: "other"; field: string; value: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Every message, status and other change of a webhook body; throws on a body that is not one. */
export function whatsappEvents(body: unknown): WebhookEvent[] {
  if (!isObject(body) || body.object !== "whatsapp_business_account" || !Array.isArray(body.entry)) throw new Error("not a WhatsApp Business Account webhook");
  const events: WebhookEvent[] = [];
  for (const entry of list(body.entry)) {
    for (const change of list(isObject(entry) ? entry.changes : [])) {
      if (!isObject(change)) continue;
      const value = isObject(change.value) ? change.value : {};
      const phoneNumberId = String((isObject(value.metadata) && value.metadata.phone_number_id) || "");
      if (change.field !== "messages") {
        events.push({
          key: `other:${String(change.field)}:${JSON.stringify(value).length}:${hashOf(value)}`,
          payload: { kind: "other", field: String(change.field), value },
        });
        continue;
      }
      const contacts = list(value.contacts) as WaContact[];
      for (const m of list(value.messages) as WaMessage[]) {
        if (!m?.id) continue;
        events.push({
          key: `msg:${m.id}`,
          lane: m.from ? `${phoneNumberId}:${m.from}` : undefined,
          payload: { kind: "message", phoneNumberId, message: m, contact: contacts.find((c) => c.wa_id === m.from) } satisfies Payload,
        });
      }
      // one event per step of a message: a repeated "delivered" is the same event, "read" after it is another
      for (const s of list(value.statuses) as WaStatus[]) {
        if (!s?.id || !s.status) continue;
        events.push({ key: `status:${s.id}:${s.status}`, payload: { kind: "status", phoneNumberId, status: s } satisfies Payload });
      }
    }
  }
  return events;
}

function hashOf(value: unknown) {
  // a short stable tag for changes without an id of their own (kept for inspection only)
  let h = 0;
  for (const ch of JSON.stringify(value)) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return (h >>> 0).toString(36);
}

const MEDIA_TYPES = ["image", "video", "audio", "document", "sticker"] as const;
const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "audio/ogg": "ogg",
  "audio/mpeg": "mp3",
  "audio/aac": "aac",
  "application/pdf": "pdf",
};

/** What one stored event says. */
export function parseWhatsappEvent(payload: unknown, phoneNumberId: string): ParsedEvent {
  const p = payload as Payload;
  if (p?.kind === "other") return { type: "ignored", reason: `WhatsApp change "${p.field}" is not handled` };
  if (p?.kind !== "message" && p?.kind !== "status") throw new Error("not a WhatsApp event");
  if (p.phoneNumberId && phoneNumberId && p.phoneNumberId !== phoneNumberId)
    return { type: "ignored", reason: `for another phone number (${p.phoneNumberId})` };
  if (p.kind === "status") {
    const s = p.status;
    const at = Number(s.timestamp) * 1000 || Date.now();
    if (s.status === "delivered" || s.status === "read" || s.status === "sent") return { type: "receipt", providerMessageId: s.id, state: s.status, at };
    if (s.status === "failed") {
      const e = s.errors?.[0];
      const error = e ? `(#${e.code}) ${[e.title || e.message, e.error_data?.details].filter(Boolean).join(": ")}` : "failed";
      return { type: "receipt", providerMessageId: s.id, state: "failed", error, at };
    }
    return { type: "ignored", reason: `WhatsApp status "${s.status}" is not handled` };
  }
  const m = p.message;
  const at = Number(m.timestamp) * 1000 || Date.now();
  const customer = { id: m.from, name: p.contact?.profile?.name ?? "", phone: m.from };
  const base = { type: "message" as const, providerMessageId: m.id, customer, at };
  switch (m.type) {
    case "text":
      return { ...base, text: m.text?.body ?? "", media: [] };
    case "interactive": {
      const reply = m.interactive?.button_reply ?? m.interactive?.list_reply;
      return { ...base, text: reply?.title ?? "", media: [] };
    }
    case "button":
      return { ...base, text: m.button?.text ?? "", media: [] };
    case "location": {
      const l = m.location ?? {};
      return { ...base, text: [l.name, l.address, `https://maps.google.com/?q=${l.latitude},${l.longitude}`].filter(Boolean).join("\n"), media: [] };
    }
    case "contacts":
      return {
        ...base,
        text: (m.contacts ?? []).map((c) => [c.name?.formatted_name, ...(c.phones ?? []).map((ph) => ph.phone)].filter(Boolean).join(" ")).join("\n"),
        media: [],
      };
  }
  if ((MEDIA_TYPES as readonly string[]).includes(m.type)) {
    const media = m[m.type as (typeof MEDIA_TYPES)[number]];
    if (!media?.id) throw new Error(`a ${m.type} without its media id`);
    const mime = media.mime_type?.split(";")[0].trim() || "application/octet-stream";
    const ref: MediaRef = { id: media.id, mime, name: media.filename || `${m.type}.${EXTENSIONS[mime] ?? "bin"}` };
    return { ...base, text: media.caption ?? "", media: [ref] };
  }
  return { type: "ignored", reason: `WhatsApp message type "${m.type}" is not handled` };
}
