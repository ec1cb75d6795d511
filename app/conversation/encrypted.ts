// What the host knows of an end-to-end encrypted message (plugins/e2ee encrypts and decrypts in the
// browser): its stored shape, checked without being able to open it. Shared by server and browser.
export { ENCRYPTED_MESSAGE_TYPE } from "./constants";

export const ENVELOPE_VERSION = 1;
/** The stored file type of an encrypted attachment (its real name and type are inside the envelope). */
export const ENCRYPTED_FILE_TYPE = "application/vnd.omnidesk.encrypted";
/** The stored file name of an encrypted attachment. */
export const ENCRYPTED_FILE_NAME = "encrypted.bin";
/** A sender's browser's id for a message (128 random bits, URL-safe base64). */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
export const MAX_ENVELOPE_LENGTH = 120_000;

/** An envelope as the server checks it: its shape and size only ({v, iv, ct}, base64 parts, a 96-bit nonce). */
export function isEnvelope(text: string): boolean {
  if (text.length > MAX_ENVELOPE_LENGTH) return false;
  try {
    const e = JSON.parse(text) as Record<string, unknown>;
    return (
      e.v === ENVELOPE_VERSION &&
      typeof e.iv === "string" &&
      typeof e.ct === "string" &&
      /^[A-Za-z0-9+/]{16}$/.test(e.iv) &&
      /^[A-Za-z0-9+/]+={0,2}$/.test(e.ct) &&
      Object.keys(e).length === 3
    );
  } catch {
    return false;
  }
}
