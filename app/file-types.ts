// Attachments the conversation takes, shared by the server's upload check and the browser.
/** Attachments: at most 10 MB each, 5 per message, of these types. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_FILES = 5;
export const ALLOWED_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
  "text/plain",
  "text/csv",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.ms-excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/zip",
  "audio/mpeg",
  "audio/wav",
  // an end-to-end encrypted attachment (app/conversation/encrypted.ts): taken only as part of an encrypted message
  "application/vnd.omnidesk.encrypted",
];
