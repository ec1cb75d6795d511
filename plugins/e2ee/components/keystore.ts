// This browser's end-to-end encryption keys, in IndexedDB: per signed-in user, the private key
// (a non-extractable CryptoKey: the browser keeps it, script cannot read its bytes) with its
// public key and fingerprint, the fingerprints of other people's keys as last seen (so a change is
// noticed before sending), and the passphrase-derived keys of 'aes' conversations. Nothing here is
// sent to the server.
import { createIdentity, fingerprintOf, rekeyBackup, restoreIdentity, type Backup } from "../crypto";

const DB_NAME = "omnidesk-e2ee";
const KEYS = "keys";
const SEEN = "seen";
/** encryption_method 'aes': each conversation's passphrase-derived key (non-extractable), per user. */
const SHARED = "shared";

export interface StoredIdentity {
  userId: number;
  privateKey: CryptoKey;
  publicKey: string;
  fingerprint: string;
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 2);
    request.onupgradeneeded = (event) => {
      if (event.oldVersion < 1) {
        request.result.createObjectStore(KEYS);
        request.result.createObjectStore(SEEN);
      }
      if (event.oldVersion < 2) request.result.createObjectStore(SHARED);
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run<T>(store: string, mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T> | void): Promise<T | undefined> {
  const db = await openDb();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const tx = db.transaction(store, mode);
      const request = fn(tx.objectStore(store));
      tx.oncomplete = () => resolve(request ? request.result : undefined);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export const loadIdentity = (userId: number) => run<StoredIdentity | undefined>(KEYS, "readonly", (s) => s.get(`user:${userId}`)).then((x) => x ?? null);

export const saveIdentity = (identity: StoredIdentity) => run(KEYS, "readwrite", (s) => s.put(identity, `user:${identity.userId}`));

/** The fingerprint of `otherId`'s key as `userId` last saw it. */
export const seenFingerprint = (userId: number, otherId: number) => run<string | undefined>(SEEN, "readonly", (s) => s.get(`${userId}:${otherId}`));

export const markSeen = (userId: number, otherId: number, fingerprint: string) => run(SEEN, "readwrite", (s) => s.put(fingerprint, `${userId}:${otherId}`));

export const loadSharedKey = (userId: number, ticketId: number) =>
  run<CryptoKey | undefined>(SHARED, "readonly", (s) => s.get(`${userId}:${ticketId}`)).then((x) => x ?? null);

export const saveSharedKey = (userId: number, ticketId: number, key: CryptoKey) => run(SHARED, "readwrite", (s) => s.put(key, `${userId}:${ticketId}`));

type Answer<T> = { result: "success"; data: T } | { result: "failed"; description: string; code?: string };

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A JSON route of the plugin, with the session cookie (same origin). */
export async function api<T>(path: string, init: { method?: string; json?: unknown; form?: FormData } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? (init.json || init.form ? "POST" : "GET"),
    headers: init.json ? { "Content-Type": "application/json" } : undefined,
    body: init.json ? JSON.stringify(init.json) : init.form,
    credentials: "same-origin",
  });
  const answer = (await response.json().catch(() => null)) as Answer<T> | null;
  if (!response.ok || !answer || answer.result !== "success")
    throw new ApiError(
      answer && answer.result === "failed" ? answer.description : `HTTP ${response.status}`,
      response.status,
      answer && answer.result === "failed" ? answer.code : undefined,
    );
  return answer.data;
}

/** A new key for this user: made here, its backup sealed with the passphrase, published, kept here. */
export async function setUpKey(userId: number, passphrase: string) {
  const identity = await createIdentity(passphrase);
  await api("/api/e2ee/key", { json: { publicKey: identity.publicKey } });
  await api("/api/e2ee/backup", { json: identity.backup });
  await saveIdentity({ userId, privateKey: identity.privateKey, publicKey: identity.publicKey, fingerprint: identity.fingerprint });
  return identity.fingerprint;
}

/** The user's key on this browser, from the stored backup and its passphrase. Throws on a wrong passphrase. */
export async function restoreKey(userId: number, passphrase: string) {
  const [backup, current] = await Promise.all([
    api<Backup | null>("/api/e2ee/backup"),
    api<{ publicKey: string; fingerprint: string } | null>("/api/e2ee/key"),
  ]);
  if (!backup || !current) throw new ApiError("no backup", 404);
  // the backup must belong to the published key (the fingerprint is bound into the sealed backup too)
  if (backup.fingerprint !== current.fingerprint || (await fingerprintOf(current.publicKey)) !== current.fingerprint)
    throw new ApiError("backup of another key", 409);
  const privateKey = await restoreIdentity(backup, passphrase);
  await saveIdentity({ userId, privateKey, publicKey: current.publicKey, fingerprint: current.fingerprint });
  return current.fingerprint;
}

/** The current passphrase did not open the backup: nothing was sent. */
export class WrongPassphrase extends Error {}

/**
 * A new passphrase for the user's backup: the stored backup is opened here with the current one
 * and the same private key sealed again with the new one (a new salt, the iterations of a new
 * backup), then stored in place of the backup it was made from. The key on this browser and the
 * published key stay as they are. Throws WrongPassphrase (nothing sent) or the server's refusal.
 */
export async function changePassphrase(currentPassphrase: string, newPassphrase: string) {
  const [backup, current] = await Promise.all([
    api<(Backup & { updatedAt?: number }) | null>("/api/e2ee/backup"),
    api<{ publicKey: string; fingerprint: string } | null>("/api/e2ee/key"),
  ]);
  if (!backup || !current) throw new ApiError("no backup", 404, "plugin_e2ee.errors.noBackup");
  if (backup.fingerprint !== current.fingerprint || (await fingerprintOf(current.publicKey)) !== current.fingerprint)
    throw new ApiError("backup of another key", 409, "plugin_e2ee.errors.backupKey");
  let next: Backup;
  try {
    next = await rekeyBackup(backup, currentPassphrase, newPassphrase);
  } catch {
    throw new WrongPassphrase();
  }
  await api("/api/e2ee/backup/passphrase", { json: { ...next, replaces: backup.salt } });
  return next;
}
