// Messenger's rules an agent meets before anything is sent: the messaging windows (a standard
// answer within 24 hours of the customer's last message, a human agent's answer with the
// HUMAN_AGENT tag within 7 days, nothing after that) and the 25 MB attachment limit. A comment
// thread's answer may carry a picture as a photo comment: attachment_url, a public address Facebook
// fetches (the file's signed, expiring address); other files cannot go in comments.
export const RESPONSE_WINDOW_MS = 24 * 3_600_000;
export const HUMAN_AGENT_WINDOW_MS = 7 * 24 * 3_600_000;
/** Delivery errors: translation keys of this plugin's texts (app/conversation/delivery.ts shows them). */
export const WINDOW_CLOSED = "plugin_facebook.delivery.windowClosed";
export const FILE_SIZE = "plugin_facebook.delivery.fileSize";
export const COMMENT_FILE = "plugin_facebook.delivery.commentFile";

/** Characters in one Messenger text message: a longer answer goes out as several. */
export const TEXT_MAX = 2000;
const MB = 1024 * 1024;
export const ATTACHMENT_MAX = 25 * MB;
/** A photo comment's picture (attachment_url): pictures Facebook takes as photos, up to its 10 MB photo limit. */
export const COMMENT_PHOTO_TYPES = ["image/jpeg", "image/png", "image/gif"];
export const COMMENT_PHOTO_MAX = 10 * MB;

const size = (bytes: number) => (bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.round(bytes / 1024)} KB`);

/** How a Messenger message is sent now, or null when the window is closed. */
export function messagingType(lastCustomerMessageAt: number | null, now = Date.now()): { messaging_type: string; tag?: string } | null {
  if (!lastCustomerMessageAt) return null;
  const age = now - lastCustomerMessageAt;
  if (age <= RESPONSE_WINDOW_MS) return { messaging_type: "RESPONSE" };
  if (age <= HUMAN_AGENT_WINDOW_MS) return { messaging_type: "MESSAGE_TAG", tag: "HUMAN_AGENT" };
  return null;
}

/** Messenger's attachment type for a file. */
export function attachmentType(mime: string) {
  const kind = mime.split("/")[0];
  return kind === "image" || kind === "video" || kind === "audio" ? kind : "file";
}

/** Why this file cannot go out on the conversation's channel, or null. */
export function fileProblem(file: { type: string; size: number; name: string }, channel: string) {
  if (channel === "FB_PAGE_POST") {
    if (!COMMENT_PHOTO_TYPES.includes(file.type)) return `${COMMENT_FILE}: ${file.name}`;
    if (file.size > COMMENT_PHOTO_MAX) return `${FILE_SIZE}: ${file.name} (${size(file.size)} > ${size(COMMENT_PHOTO_MAX)})`;
    return null;
  }
  if (file.size > ATTACHMENT_MAX) return `${FILE_SIZE}: ${file.name} (${size(file.size)} > ${size(ATTACHMENT_MAX)})`;
  return null;
}

/** A text as Messenger messages of at most TEXT_MAX characters. */
export function textChunks(text: string) {
  const chars = Array.from(text);
  const chunks: string[] = [];
  for (let i = 0; i < chars.length; i += TEXT_MAX) chunks.push(chars.slice(i, i + TEXT_MAX).join(""));
  return chunks.length ? chunks : [""];
}
