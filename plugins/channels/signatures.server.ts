// Webhook signatures: an HMAC over the exact bytes, compared in constant time.
import { createHmac, timingSafeEqual } from "node:crypto";

export function hmac(algorithm: "sha1" | "sha256", secret: string, data: Buffer | string, encoding: "hex" | "base64" = "hex") {
  return createHmac(algorithm, secret).update(data).digest(encoding);
}

/** Whether two signatures are the same, without telling how much of them is. */
export function sameSignature(given: string | null | undefined, expected: string) {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
