// The visitor's side of an end-to-end encrypted live chat (decision 048), in the visitor's browser:
// - a key pair of its own (RSA-OAEP, the private key non-extractable), made here and kept in this
//   browser's IndexedDB per visit, its public key published to the chat (/livechat/{token}/e2ee);
// - the conversation key of each version, wrapped for that key by an agent's browser, opened
//   here; each message opened with it, and the visitor's messages sealed with the current one.
// A visitor without JavaScript makes no key: an agent cannot turn encryption on for that chat.
import { decryptMessage, encryptMessage, fingerprintOf, newClientId, RSA_PARAMS, toBase64, unwrapConversationKey } from "~/conversation/e2ee-crypto";
import type { VisitorKeys } from "~/conversation/visitor-e2ee.server";

const DB_NAME = "omnidesk-livechat-e2ee";
const KEYS = "keys";

interface VisitorIdentity {
  privateKey: CryptoKey;
  publicKey: string;
  fingerprint: string;
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(KEYS);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function store<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(KEYS, mode);
      const request = fn(tx.objectStore(KEYS));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** This browser's key for the visit: the stored one, or a new one stored now. */
async function identityOf(token: string): Promise<VisitorIdentity> {
  const stored = await store<VisitorIdentity | undefined>("readonly", (s) => s.get(`visit:${token}`));
  if (stored) return stored;
  // the private key is made non-extractable: script on the page cannot read it out
  const pair = (await crypto.subtle.generateKey(RSA_PARAMS, false, ["wrapKey", "unwrapKey"])) as CryptoKeyPair;
  const publicKey = toBase64(await crypto.subtle.exportKey("spki", pair.publicKey));
  const identity = { privateKey: pair.privateKey, publicKey, fingerprint: await fingerprintOf(publicKey) };
  await store("readwrite", (s) => s.put(identity, `visit:${token}`));
  return identity;
}

export class VisitorE2eeError extends Error {}

/** One visit's encryption in this browser (one per page). */
export class VisitorE2ee {
  private identity: Promise<VisitorIdentity> | null = null;
  private keys: Promise<VisitorKeys> | null = null;
  private opened = new Map<number, Promise<CryptoKey | null>>();

  constructor(
    private token: string,
    private csrf: string,
  ) {}

  private me() {
    return (this.identity ??= identityOf(this.token));
  }

  /** Publishes this browser's key when the chat has another one (or none). */
  async publish(serverFingerprint: string | null) {
    const me = await this.me();
    if (serverFingerprint === me.fingerprint) return;
    const answer = await fetch(`/livechat/${encodeURIComponent(this.token)}/e2ee`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ _token: this.csrf, publicKey: me.publicKey }),
    });
    if (!answer.ok) throw new VisitorE2eeError(`key ${answer.status}`);
    this.keys = null;
  }

  /** The chat's encryption state and the key versions wrapped for this visitor (`fresh`: asked again). */
  state(fresh = false): Promise<VisitorKeys> {
    if (fresh || !this.keys) {
      this.keys = fetch(`/livechat/${encodeURIComponent(this.token)}/e2ee`, { cache: "no-store" }).then(async (r) => {
        if (!r.ok) throw new VisitorE2eeError(`keys ${r.status}`);
        return ((await r.json()) as { data: VisitorKeys }).data;
      });
      this.keys.catch(() => (this.keys = null));
    }
    return this.keys;
  }

  private async keyOf(version: number, fresh = false): Promise<CryptoKey | null> {
    let state = await this.state(fresh);
    if (!state.keys.some((k) => k.version === version) && !fresh) state = await this.state(true);
    const wrapped = state.keys.find((k) => k.version === version);
    const me = await this.me();
    // wrapped for another key than this browser's (the visit opened in another browser): closed
    if (!wrapped || wrapped.fingerprint !== me.fingerprint) return null;
    let key = this.opened.get(version);
    if (!key) {
      key = unwrapConversationKey(wrapped.wrappedKey, me.privateKey).catch(() => null);
      this.opened.set(version, key);
    }
    return key;
  }

  /** A message's text, or null when it cannot be opened here (no key, tampered, moved). */
  async open(ticketId: number, sealed: { cipher: string; version: number; clientId: string }): Promise<string | null> {
    const key = await this.keyOf(sealed.version);
    if (!key) return null;
    try {
      return (await decryptMessage(key, { ticketId, version: sealed.version, clientId: sealed.clientId }, sealed.cipher)).text;
    } catch {
      return null;
    }
  }

  /**
   * The visitor's text sealed with the chat's current key version: the fields the send form posts
   * instead of the text. Null when the chat is not encrypted (the text goes as it is).
   */
  async seal(text: string): Promise<{ cipher: string; key_version: string; client_id: string } | null> {
    const state = await this.state(true);
    if (!state.encryption) return null;
    // a new version is due (someone's key changed): the agent's browser makes it
    if (state.rekey || state.version === 0) throw new VisitorE2eeError("livechat.e2eeWaiting");
    const key = await this.keyOf(state.version, true);
    if (!key) throw new VisitorE2eeError("livechat.e2eeMissingKey");
    const context = { ticketId: state.ticketId, version: state.version, clientId: newClientId() };
    return { cipher: await encryptMessage(key, context, { text }), key_version: String(state.version), client_id: context.clientId };
  }
}
