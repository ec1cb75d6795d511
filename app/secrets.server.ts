// Secrets the product keeps in its database (two-factor seeds, single sign-on client secrets, and
// next the channels' passwords) are sealed with AES-256-GCM under a key derived from
// SESSION_SECRET, so a copied database or backup does not give them away. Keep SESSION_SECRET:
// with another one, sealed values can no longer be opened.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const PREFIX = "sealed:v1:";

let cached: { secret: string; key: Buffer } | undefined;
function key() {
  const secret = process.env.SESSION_SECRET || "dev-only-secret";
  if (cached?.secret !== secret) cached = { secret, key: Buffer.from(hkdfSync("sha256", secret, "omnidesk", "database secrets", 32)) };
  return cached.key;
}

/** The sealed form of a secret; the empty string stays empty (no secret). */
export function seal(plain: string): string {
  if (!plain) return "";
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

/**
 * The secret behind a stored value. Values written before sealing existed are returned as they
 * are (and sealed at their next write); a value sealed under another key opens to null.
 */
export function unseal(stored: string | null | undefined): string | null {
  if (!stored) return stored === "" ? "" : null;
  if (!stored.startsWith(PREFIX)) return stored;
  try {
    const raw = Buffer.from(stored.slice(PREFIX.length), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
