// WhatsApp's rules an agent meets before anything is sent: the 24-hour customer-service window
// and the media types and sizes the Cloud API takes (shared by the composer and the adapter).
export const WINDOW_MS = 24 * 3_600_000;
/** Delivery errors: translation keys of this plugin's texts (app/conversation/delivery.ts shows them). */
export const WINDOW_CLOSED = "plugin_whatsapp.delivery.windowClosed";
export const FILE_TYPE = "plugin_whatsapp.delivery.fileType";
export const FILE_SIZE = "plugin_whatsapp.delivery.fileSize";

const MB = 1024 * 1024;
const LIMITS: { kind: "image" | "video" | "audio" | "document" | "sticker"; types: string[]; max: number }[] = [
  { kind: "image", types: ["image/jpeg", "image/png"], max: 5 * MB },
  { kind: "sticker", types: ["image/webp"], max: 500 * 1024 },
  { kind: "video", types: ["video/mp4", "video/3gpp"], max: 16 * MB },
  { kind: "audio", types: ["audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg"], max: 16 * MB },
];
const DOCUMENT_MAX = 100 * MB;
const size = (bytes: number) => (bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.round(bytes / 1024)} KB`);

/** How WhatsApp sends a file of this type (anything else goes as a document). */
export const mediaKind = (mime: string) => LIMITS.find((l) => l.types.includes(mime))?.kind ?? "document";

/** Why WhatsApp would refuse this file, or null. */
export function fileProblem(file: { type: string; size: number; name: string }) {
  const limit = LIMITS.find((l) => l.types.includes(file.type));
  const max = limit?.max ?? DOCUMENT_MAX;
  if (file.size > max) return `${FILE_SIZE}: ${file.name} (${size(file.size)} > ${size(max)})`;
  if (!limit && (file.type.startsWith("image/") || file.type.startsWith("video/"))) return `${FILE_TYPE}: ${file.name} (${file.type})`;
  return null;
}
