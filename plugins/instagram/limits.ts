// Instagram's rules an agent meets before anything is sent (Instagram Messaging, Send API): the
// 24-hour window (after it, a human agent's message needs the HUMAN_AGENT tag, which Meta takes
// for 7 days after the customer's last message), the text length and the attachment types and sizes.
export const WINDOW_MS = 24 * 3_600_000;
export const HUMAN_AGENT_MS = 7 * 24 * 3_600_000;
/** A direct message's text: at most 1,000 bytes of UTF-8. */
export const TEXT_MAX_BYTES = 1000;

/** Delivery errors: translation keys of this plugin's texts (app/conversation/delivery.ts shows them). */
export const WINDOW_CLOSED = "plugin_instagram.delivery.windowClosed";
export const TEXT_TOO_LONG = "plugin_instagram.delivery.textTooLong";
export const FILE_TYPE = "plugin_instagram.delivery.fileType";
export const FILE_SIZE = "plugin_instagram.delivery.fileSize";
export const NO_FILES_IN_COMMENTS = "plugin_instagram.delivery.noFilesInComments";
/** The reply box's notice on a comment thread or mention: files are not sent there (comment answers take text only). */
export const FILES_NOT_SENT_IN_COMMENTS = "plugin_instagram.composer.filesNotSent";

const MB = 1024 * 1024;
type Kind = "image" | "video" | "audio" | "file";
const LIMITS: { kind: Kind; types: string[]; max: number }[] = [
  { kind: "image", types: ["image/png", "image/jpeg", "image/gif"], max: 8 * MB },
  { kind: "video", types: ["video/mp4", "video/ogg", "video/x-msvideo", "video/avi", "video/quicktime", "video/webm"], max: 25 * MB },
  { kind: "audio", types: ["audio/aac", "audio/mp4", "audio/x-m4a", "audio/m4a", "audio/wav", "audio/x-wav", "audio/wave"], max: 25 * MB },
  { kind: "file", types: ["application/pdf"], max: 25 * MB },
];
const size = (bytes: number) => (bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.round(bytes / 1024)} KB`);

/** How Instagram sends a file of this type (its attachment type), or undefined when it takes none of this type. */
export const mediaKind = (mime: string): Kind | undefined => LIMITS.find((l) => l.types.includes(mime))?.kind;

/** Why Instagram would refuse this file, or null. */
export function fileProblem(file: { type: string; size: number; name: string }) {
  const limit = LIMITS.find((l) => l.types.includes(file.type));
  if (!limit) return `${FILE_TYPE}: ${file.name} (${file.type})`;
  if (file.size > limit.max) return `${FILE_SIZE}: ${file.name} (${size(file.size)} > ${size(limit.max)})`;
  return null;
}

/** Whether a direct message may go out now, and how: within 24 hours as a response, within 7 days with the HUMAN_AGENT tag, else not. */
export function windowFor(lastCustomerMessageAt: number | null, now = Date.now()): "response" | "human_agent" | "closed" {
  if (!lastCustomerMessageAt) return "closed";
  const since = now - lastCustomerMessageAt;
  if (since <= WINDOW_MS) return "response";
  if (since <= HUMAN_AGENT_MS) return "human_agent";
  return "closed";
}
