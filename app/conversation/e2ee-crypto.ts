// The end-to-end encryption's cryptography, in one module the browsers (plugins/e2ee, the live
// chat visitor's page) and the tests share (WebCrypto only: `globalThis.crypto.subtle`, the
// browser's and Node's alike). The server never runs it on
// anyone's secrets: it stores what comes out (envelopes, wrapped keys, passphrase-sealed backups).
//
// - Identity: an RSA-OAEP 3072 / SHA-256 key pair per user and browser. The private key is
//   generated, sealed once into the passphrase backup, and kept only as a non-extractable
//   CryptoKey (re-imported from the backup), so script on the page cannot read it out.
// - Conversation key: AES-256-GCM, one per key version, wrapped (RSA-OAEP) for each participant.
// - Message: AES-256-GCM with a random 96-bit nonce; the additional data binds the ciphertext to
//   its conversation, key version and client message id, so it cannot be moved or replayed as
//   another message. An attachment is sealed the same way (its nonce first, then the ciphertext).
// - Backup: PBKDF2-SHA-256 (600 000 iterations) of the passphrase and a random salt gives an
//   AES-256-GCM key that wraps the private key (PKCS#8). Changing the passphrase seals the same
//   private key again (a new salt and nonce), in the browser that opened the backup.
// - Safety number: SHA-512 over both users' fingerprints (sorted), shown as 12 groups of 5 digits.

import { ENVELOPE_VERSION } from "~/conversation/encrypted";

const subtle = () => globalThis.crypto.subtle;
const enc = new TextEncoder();
const dec = new TextDecoder();

export const RSA_PARAMS: RsaHashedKeyGenParams = { name: "RSA-OAEP", modulusLength: 3072, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };
export const PBKDF2_ITERATIONS = 600_000;
/** The spec's `encryption_method`: 'rsa' (a key per version wrapped per participant) or 'aes' (one key from a shared passphrase). */
export const ENCRYPTION_METHODS = ["rsa", "aes"] as const;
export type EncryptionMethod = (typeof ENCRYPTION_METHODS)[number];
/** The least a stored backup may claim (the server refuses fewer). */
export const MIN_PBKDF2_ITERATIONS = 310_000;

export function toBase64(bytes: ArrayBuffer | Uint8Array): string {
  const u = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = "";
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(s);
}

type Bytes = Uint8Array<ArrayBuffer>;

export function fromBase64(text: string): Bytes {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const random = (n: number): Bytes => globalThis.crypto.getRandomValues(new Uint8Array(n));

/** A public key's fingerprint: SHA-256 of its SPKI, hex. */
export async function fingerprintOf(spkiBase64: string): Promise<string> {
  return hex(await subtle().digest("SHA-256", fromBase64(spkiBase64)));
}

/** The number two users compare out of band: the same for both, whatever the order. */
export async function safetyNumber(fingerprintA: string, fingerprintB: string): Promise<string> {
  const [a, b] = [fingerprintA, fingerprintB].sort();
  const digest = new Uint8Array(await subtle().digest("SHA-512", enc.encode(`omnidesk-e2ee-safety-v1|${a}|${b}`)));
  const groups: string[] = [];
  for (let g = 0; g < 12; g++) {
    let n = 0;
    for (let i = 0; i < 5; i++) n = n * 256 + digest[g * 5 + i];
    groups.push(String(n % 100000).padStart(5, "0"));
  }
  return groups.join(" ");
}

export interface Backup {
  blob: string;
  salt: string;
  iv: string;
  iterations: number;
  fingerprint: string;
}

export interface Identity {
  publicKey: string;
  fingerprint: string;
  /** Non-extractable. */
  privateKey: CryptoKey;
  backup: Backup;
}

async function passphraseKey(passphrase: string, salt: Bytes, iterations: number) {
  const material = await subtle().importKey("raw", enc.encode(passphrase.normalize("NFKC")), "PBKDF2", false, ["deriveKey"]);
  return subtle().deriveKey({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, { name: "AES-GCM", length: 256 }, false, ["wrapKey", "unwrapKey"]);
}

const backupData = (fingerprint: string) => enc.encode(`omnidesk-e2ee-backup-v1|${fingerprint}`);

/** A new identity: the key pair, its passphrase backup, and the private key as a non-extractable key. */
export async function createIdentity(passphrase: string, iterations = PBKDF2_ITERATIONS): Promise<Identity> {
  const pair = (await subtle().generateKey(RSA_PARAMS, true, ["wrapKey", "unwrapKey"])) as CryptoKeyPair;
  const publicKey = toBase64(await subtle().exportKey("spki", pair.publicKey));
  const fingerprint = await fingerprintOf(publicKey);
  const salt = random(16);
  const iv = random(12);
  const sealing = await passphraseKey(passphrase, salt, iterations);
  const blob = await subtle().wrapKey("pkcs8", pair.privateKey, sealing, { name: "AES-GCM", iv, additionalData: backupData(fingerprint) });
  const backup: Backup = { blob: toBase64(blob), salt: toBase64(salt), iv: toBase64(iv), iterations, fingerprint };
  // the extractable pair goes out of scope; what is kept is the backup opened as non-extractable
  return { publicKey, fingerprint, privateKey: await restoreIdentity(backup, passphrase), backup };
}

/** Opens a backup with its passphrase: the private key, non-extractable. Throws on a wrong passphrase or a changed backup. */
export async function restoreIdentity(backup: Backup, passphrase: string): Promise<CryptoKey> {
  if (backup.iterations < MIN_PBKDF2_ITERATIONS) throw new Error("weak backup");
  const sealing = await passphraseKey(passphrase, fromBase64(backup.salt), backup.iterations);
  return subtle().unwrapKey(
    "pkcs8",
    fromBase64(backup.blob),
    sealing,
    { name: "AES-GCM", iv: fromBase64(backup.iv), additionalData: backupData(backup.fingerprint) },
    RSA_PARAMS,
    false,
    ["unwrapKey"],
  );
}

/**
 * The same private key under a new passphrase: the backup opened with the current passphrase and
 * sealed again with the new one (a new salt and nonce, PBKDF2-SHA-256 at `iterations`, bound to the
 * same fingerprint). The extractable key lives only inside this call. Throws on a wrong current
 * passphrase or a changed backup (nothing is made then).
 */
export async function rekeyBackup(backup: Backup, currentPassphrase: string, newPassphrase: string, iterations = PBKDF2_ITERATIONS): Promise<Backup> {
  if (backup.iterations < MIN_PBKDF2_ITERATIONS) throw new Error("weak backup");
  const opening = await passphraseKey(currentPassphrase, fromBase64(backup.salt), backup.iterations);
  const privateKey = await subtle().unwrapKey(
    "pkcs8",
    fromBase64(backup.blob),
    opening,
    { name: "AES-GCM", iv: fromBase64(backup.iv), additionalData: backupData(backup.fingerprint) },
    RSA_PARAMS,
    true,
    ["unwrapKey"],
  );
  const salt = random(16);
  const iv = random(12);
  const sealing = await passphraseKey(newPassphrase, salt, iterations);
  const blob = await subtle().wrapKey("pkcs8", privateKey, sealing, { name: "AES-GCM", iv, additionalData: backupData(backup.fingerprint) });
  return { blob: toBase64(blob), salt: toBase64(salt), iv: toBase64(iv), iterations, fingerprint: backup.fingerprint };
}

export function importPublicKey(spkiBase64: string): Promise<CryptoKey> {
  return subtle().importKey("spki", fromBase64(spkiBase64), RSA_PARAMS, false, ["wrapKey"]);
}

/** A new conversation key (extractable only so that it can be wrapped for the participants). */
export function newConversationKey(): Promise<CryptoKey> {
  return subtle().generateKey({ name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]) as Promise<CryptoKey>;
}

export async function wrapConversationKey(key: CryptoKey, publicKeyBase64: string): Promise<string> {
  return toBase64(await subtle().wrapKey("raw", key, await importPublicKey(publicKeyBase64), { name: "RSA-OAEP" }));
}

/** The conversation key from its wrapped form (non-extractable). Throws when it was not wrapped for this key or was changed. */
export function unwrapConversationKey(wrapped: string, privateKey: CryptoKey): Promise<CryptoKey> {
  return subtle().unwrapKey("raw", fromBase64(wrapped), privateKey, { name: "RSA-OAEP" }, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
}

/**
 * Shares a conversation key version with someone added later: opened with this user's private key
 * and wrapped for theirs, in one step (the extractable key lives only inside this call).
 */
export async function rewrapConversationKey(wrapped: string, privateKey: CryptoKey, publicKeyBase64: string): Promise<string> {
  const key = await subtle().unwrapKey("raw", fromBase64(wrapped), privateKey, { name: "RSA-OAEP" }, { name: "AES-GCM", length: 256 }, true, [
    "encrypt",
    "decrypt",
  ]);
  return wrapConversationKey(key, publicKeyBase64);
}

/** What a message's ciphertext is bound to. */
export interface MessageContext {
  ticketId: number;
  version: number;
  clientId: string;
}

/**
 * What a ciphertext is: a message, its attachment, or a private note on one message (the note's
 * own part names that message, so neither can be replayed as the other nor moved to another message).
 */
export type Part = "message" | "file" | { note: number };

const additionalData = (c: MessageContext, part: Part) =>
  enc.encode(
    `omnidesk-e2ee-v${ENVELOPE_VERSION}|ticket:${c.ticketId}|key:${c.version}|id:${c.clientId}|${typeof part === "string" ? part : `note:${part.note}`}`,
  );

/** What an encrypted message holds: its text and, for an attachment, the file's real name, type and size. */
export interface MessagePayload {
  text: string;
  file?: { name: string; type: string; size: number };
}

/** A client message id: 128 random bits, URL-safe. */
export function newClientId(): string {
  return toBase64(random(16)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A message's (or, with `part` {note: messageId}, a note's) envelope. */
export async function encryptMessage(key: CryptoKey, c: MessageContext, payload: MessagePayload, part: Part = "message"): Promise<string> {
  const iv = random(12);
  const ct = await subtle().encrypt({ name: "AES-GCM", iv, additionalData: additionalData(c, part) }, key, enc.encode(JSON.stringify(payload)));
  return JSON.stringify({ v: ENVELOPE_VERSION, iv: toBase64(iv), ct: toBase64(ct) });
}

export class DecryptError extends Error {}

/** The envelope's payload; DecryptError when it is malformed, tampered with, or bound to another message. */
export async function decryptMessage(key: CryptoKey, c: MessageContext, envelope: string, part: Part = "message"): Promise<MessagePayload> {
  let parsed: { v?: unknown; iv?: unknown; ct?: unknown };
  try {
    parsed = JSON.parse(envelope);
  } catch {
    throw new DecryptError("malformed");
  }
  if (parsed.v !== ENVELOPE_VERSION || typeof parsed.iv !== "string" || typeof parsed.ct !== "string") throw new DecryptError("malformed");
  try {
    const iv = fromBase64(parsed.iv);
    if (iv.length !== 12) throw new DecryptError("nonce");
    const plain = await subtle().decrypt({ name: "AES-GCM", iv, additionalData: additionalData(c, part) }, key, fromBase64(parsed.ct));
    const payload = JSON.parse(dec.decode(plain)) as MessagePayload;
    if (typeof payload.text !== "string") throw new DecryptError("payload");
    return payload;
  } catch (error) {
    throw error instanceof DecryptError ? error : new DecryptError("authentication failed");
  }
}

/** An attachment's bytes sealed: nonce (12 bytes) then ciphertext and tag. */
export async function encryptFile(key: CryptoKey, c: MessageContext, bytes: ArrayBuffer | Bytes): Promise<Bytes> {
  const iv = random(12);
  const ct = new Uint8Array(await subtle().encrypt({ name: "AES-GCM", iv, additionalData: additionalData(c, "file") }, key, bytes));
  const out = new Uint8Array(12 + ct.length);
  out.set(iv);
  out.set(ct, 12);
  return out;
}

export async function decryptFile(key: CryptoKey, c: MessageContext, sealed: ArrayBuffer | Bytes): Promise<ArrayBuffer> {
  const u = sealed instanceof Uint8Array ? sealed : new Uint8Array(sealed);
  if (u.length < 28) throw new DecryptError("short");
  try {
    return await subtle().decrypt({ name: "AES-GCM", iv: u.subarray(0, 12), additionalData: additionalData(c, "file") }, key, u.subarray(12));
  } catch {
    throw new DecryptError("authentication failed");
  }
}

// encryption_method 'aes': the conversation key comes from a passphrase the participants share out
// of band, never from the server (which keeps the salt and a key-check value only).

/** The shared conversation key of an 'aes' conversation (non-extractable), from its passphrase and the conversation's salt. */
export async function deriveSharedKey(passphrase: string, saltBase64: string, iterations: number): Promise<CryptoKey> {
  if (iterations < MIN_PBKDF2_ITERATIONS) throw new Error("weak derivation");
  const material = await subtle().importKey("raw", enc.encode(passphrase.normalize("NFKC")), "PBKDF2", false, ["deriveKey"]);
  return subtle().deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: fromBase64(saltBase64), iterations }, material, { name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
}

const checkData = (ticketId: number) => enc.encode(`omnidesk-e2ee-v${ENVELOPE_VERSION}|ticket:${ticketId}|key-check`);
const CHECK_TEXT = "omnidesk-e2ee-key-check";

/** The key-check value the first browser stores: a known text sealed with the key, bound to the conversation. */
export async function makeKeyCheck(key: CryptoKey, ticketId: number): Promise<string> {
  const iv = random(12);
  const ct = await subtle().encrypt({ name: "AES-GCM", iv, additionalData: checkData(ticketId) }, key, enc.encode(CHECK_TEXT));
  return JSON.stringify({ v: ENVELOPE_VERSION, iv: toBase64(iv), ct: toBase64(ct) });
}

/** Whether a derived key is the conversation's (a wrong passphrase opens no key-check value). */
export async function keyCheckMatches(key: CryptoKey, ticketId: number, check: string): Promise<boolean> {
  try {
    const e = JSON.parse(check) as { iv: string; ct: string };
    const plain = await subtle().decrypt({ name: "AES-GCM", iv: fromBase64(e.iv), additionalData: checkData(ticketId) }, key, fromBase64(e.ct));
    return dec.decode(plain) === CHECK_TEXT;
  } catch {
    return false;
  }
}
