// End-to-end encrypted conversations, the server's side: it keeps what the browsers make (public
// keys with their history, each key version's conversation key wrapped per participant, the
// passphrase-sealed private key backups) and never anything that opens a message. The host's
// reply path (app/conversation/reply.server.ts) takes only ciphertext of the current key version
// in an encrypted conversation; this module turns encryption on and moves the key version on.
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { getDb } from "@db/client";
import { AccessDenied, type Reader } from "~/conversation/access.server";
import { conversationById, systemMessage, touch, type TicketRow } from "~/conversation/model.server";
import { announce } from "~/conversation/events.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { randomBytes } from "node:crypto";
import { isEnvelope } from "~/conversation/encrypted";
import { audit } from "~/accounts/audit.server";
import { visitorKeyOf } from "~/conversation/visitor-e2ee.server";
import { ENCRYPTION_METHODS, fingerprintOf, importPublicKey, MIN_PBKDF2_ITERATIONS, PBKDF2_ITERATIONS, type Backup, type EncryptionMethod } from "./crypto";

/** Conversation kinds whose messages may be end-to-end encrypted (both sides are our own pages: the live chat's visitor page too). */
export const ENCRYPTABLE_KINDS = ["chat", "livechat"] as const;

export class E2eeRefused extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

type Actor = Reader & { name: string; username: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

async function isParticipant(ticketId: number, userId: number) {
  const { db, schema } = getDb();
  const p = schema.participants;
  const [row] = await db
    .select({ userId: p.userId })
    .from(p)
    .where(and(eq(p.ticketId, ticketId), eq(p.userId, userId)));
  return !!row;
}

/** The user's current public key, or null. */
export async function currentKey(userId: number) {
  const { db, schema } = getDb();
  const k = schema.e2eeUserKeys;
  const [row] = await db
    .select()
    .from(k)
    .where(and(eq(k.userId, userId), isNull(k.replacedAt)));
  return row ?? null;
}

/**
 * A browser publishes its user's public key (SPKI, base64; RSA-OAEP). A different key than the
 * current one replaces it (the old one is kept, so others see the change) and every encrypted
 * conversation of the user needs a new key version, wrapped for the new key.
 */
export async function publishKey(user: { id: number }, publicKey: string) {
  if (typeof publicKey !== "string" || publicKey.length > 2000 || !BASE64.test(publicKey)) throw new E2eeRefused("plugin_e2ee.errors.badKey");
  try {
    await importPublicKey(publicKey);
  } catch {
    throw new E2eeRefused("plugin_e2ee.errors.badKey");
  }
  const fingerprint = await fingerprintOf(publicKey);
  const handle = getDb();
  const { schema } = handle;
  const k = schema.e2eeUserKeys;
  const now = Date.now();
  return handle.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(k)
      .where(and(eq(k.userId, user.id), isNull(k.replacedAt)));
    if (current?.fingerprint === fingerprint) return { fingerprint, changed: false };
    if (current) await tx.update(k).set({ replacedAt: now }).where(eq(k.id, current.id));
    await tx.insert(k).values({ userId: user.id, publicKey, fingerprint, createdAt: now });
    const mine = await tx.select({ ticketId: schema.participants.ticketId }).from(schema.participants).where(eq(schema.participants.userId, user.id));
    if (mine.length)
      await tx
        .update(schema.tickets)
        .set({ encryptionRekey: true })
        .where(
          and(
            inArray(
              schema.tickets.id,
              mine.map((m) => m.ticketId),
            ),
            eq(schema.tickets.encryption, true),
            eq(schema.tickets.encryptionMethod, "rsa"),
          ),
        );
    return { fingerprint, changed: true };
  });
}

/**
 * What a participant's browser needs for a conversation: whether it is encrypted, its current
 * key version, the participants' current public keys (with the fingerprints they had before, so
 * a change shows) and the conversation key versions wrapped for this reader.
 */
export async function conversationKeys(reader: Reader, ticketId: number) {
  const ticket = await conversationById(reader, ticketId);
  const { db, schema } = getDb();
  const p = schema.participants;
  const k = schema.e2eeUserKeys;
  const w = schema.e2eeWrappedKeys;
  const people = await db
    .select({ userId: p.userId, username: schema.users.username, name: schema.users.name })
    .from(p)
    .innerJoin(schema.users, eq(schema.users.id, p.userId))
    .where(eq(p.ticketId, ticket.id))
    .orderBy(asc(p.addedAt), asc(p.userId));
  const ids = people.map((x) => x.userId);
  const [keys, wrapped, held, shared] = await Promise.all([
    ids.length ? db.select().from(k).where(inArray(k.userId, ids)).orderBy(desc(k.createdAt), desc(k.id)) : Promise.resolve([]),
    db
      .select({ version: w.version, wrappedKey: w.wrappedKey, fingerprint: w.fingerprint })
      .from(w)
      .where(and(eq(w.ticketId, ticket.id), eq(w.userId, reader.id)))
      .orderBy(asc(w.version)),
    // which versions each participant holds (not the keys): what a participant may share with a newcomer
    db.select({ userId: w.userId, version: w.version }).from(w).where(eq(w.ticketId, ticket.id)).orderBy(asc(w.version)),
    sharedKeyOf(ticket.id),
  ]);
  const [mine, visitorKey, visitorVersions, offered] = await Promise.all([
    currentKey(reader.id),
    ticket.kind === "livechat" ? visitorKeyOf(ticket.id) : null,
    ticket.kind === "livechat"
      ? db
          .select({ version: schema.e2eeVisitorWrappedKeys.version })
          .from(schema.e2eeVisitorWrappedKeys)
          .where(eq(schema.e2eeVisitorWrappedKeys.ticketId, ticket.id))
      : [],
    offersFor(ticket.id, reader.id),
  ]);
  return {
    ticketId: ticket.id,
    /** The reader's own current key (a browser holding another one, replaced elsewhere, opens nothing). */
    fingerprint: mine?.fingerprint ?? null,
    encryption: ticket.encryption,
    method: ticket.encryptionMethod,
    version: ticket.encryptionVersion,
    rekey: ticket.encryptionRekey,
    participants: people.map((person) => {
      const theirs = keys.filter((x) => x.userId === person.userId);
      const current = theirs.find((x) => x.replacedAt === null);
      return {
        ...person,
        publicKey: current?.publicKey ?? null,
        fingerprint: current?.fingerprint ?? null,
        previousFingerprints: theirs.filter((x) => x.replacedAt !== null).map((x) => x.fingerprint),
        versions: held.filter((x) => x.userId === person.userId).map((x) => x.version),
      };
    }),
    keys: wrapped,
    /** Earlier versions others shared with the reader, not yet taken: the browser keeps the one that opens that version's messages. */
    offered,
    /** A live chat's visitor (no account): the public key their browser made, and the versions wrapped for it. */
    visitor: visitorKey
      ? { name: ticket.contactName, publicKey: visitorKey.publicKey, fingerprint: visitorKey.fingerprint, versions: visitorVersions.map((x) => x.version) }
      : null,
    /** encryption_method 'aes': the salt and key-check value of the passphrase-derived key (null for 'rsa'). */
    shared: ticket.encryptionMethod === "aes" && shared ? { salt: shared.salt, iterations: shared.iterations, check: shared.keyCheck } : null,
  };
}

/**
 * A participant's browser made the next key version: the conversation key wrapped for every
 * participant who has a public key, each for their current one, and for nobody else. Taken only
 * as the very next version, so two browsers making one at once cannot both win.
 */
export async function addKeyVersion(
  actor: Actor,
  ticketId: number,
  input: {
    version: number;
    wrapped: { userId: number; wrappedKey: string; fingerprint: string }[];
    /** A live chat: the version wrapped for the visitor's key too (required once the visitor has one). */
    visitor?: { wrappedKey: string; fingerprint: string } | null;
  },
) {
  const ticket = await conversationById(actor, ticketId);
  if (!ticket.encryption) throw new E2eeRefused("conversation.encryption.notEncrypted");
  if (ticket.encryptionMethod !== "rsa") throw new E2eeRefused("plugin_e2ee.errors.method");
  if (!(await isParticipant(ticket.id, actor.id))) throw new AccessDenied();
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  await handle.transaction(async (tx) => {
    const [row] = await tx
      .select({ version: schema.tickets.encryptionVersion, encryption: schema.tickets.encryption })
      .from(schema.tickets)
      .where(eq(schema.tickets.id, ticket.id));
    if (!row?.encryption) throw new E2eeRefused("conversation.encryption.notEncrypted");
    if (input.version !== row.version + 1) throw new E2eeRefused("plugin_e2ee.errors.versionTaken", 409);
    const people = await tx.select({ userId: schema.participants.userId }).from(schema.participants).where(eq(schema.participants.ticketId, ticket.id));
    const keys = people.length
      ? await tx
          .select({ userId: schema.e2eeUserKeys.userId, fingerprint: schema.e2eeUserKeys.fingerprint })
          .from(schema.e2eeUserKeys)
          .where(
            and(
              inArray(
                schema.e2eeUserKeys.userId,
                people.map((x) => x.userId),
              ),
              isNull(schema.e2eeUserKeys.replacedAt),
            ),
          )
      : [];
    const expected = new Map(keys.map((x) => [x.userId, x.fingerprint]));
    const given = new Map(input.wrapped.map((x) => [x.userId, x]));
    const exact =
      given.size === input.wrapped.length &&
      given.size === expected.size &&
      [...expected].every(([userId, fingerprint]) => {
        const w = given.get(userId);
        return w && w.fingerprint === fingerprint && typeof w.wrappedKey === "string" && w.wrappedKey.length <= 2000 && BASE64.test(w.wrappedKey);
      });
    const visitorKey = ticket.kind === "livechat" ? await tx.select().from(schema.e2eeVisitorKeys).where(eq(schema.e2eeVisitorKeys.ticketId, ticket.id)) : [];
    const visitor = input.visitor;
    const visitorExact = visitorKey.length
      ? !!visitor &&
        visitor.fingerprint === visitorKey[0].fingerprint &&
        typeof visitor.wrappedKey === "string" &&
        visitor.wrappedKey.length <= 2000 &&
        BASE64.test(visitor.wrappedKey)
      : !visitor;
    // the participants changed or a key was replaced meanwhile (the visitor's too): the browser fetches them again
    if (!exact || !visitorExact || !expected.has(actor.id)) throw new E2eeRefused("plugin_e2ee.errors.participantsChanged", 409);
    await tx.insert(schema.e2eeKeyVersions).values({ ticketId: ticket.id, version: input.version, createdBy: actor.id, createdAt: now });
    await tx
      .insert(schema.e2eeWrappedKeys)
      .values(
        input.wrapped.map((x) => ({ ticketId: ticket.id, version: input.version, userId: x.userId, wrappedKey: x.wrappedKey, fingerprint: x.fingerprint })),
      );
    if (visitor && visitorKey.length)
      await tx
        .insert(schema.e2eeVisitorWrappedKeys)
        .values({ ticketId: ticket.id, version: input.version, wrappedKey: visitor.wrappedKey, fingerprint: visitor.fingerprint });
    await tx.update(schema.tickets).set({ encryptionVersion: input.version, encryptionRekey: false }).where(eq(schema.tickets.id, ticket.id));
  });
  await announce(ticket, SERVER_EVENTS.updateTicket, { encryptionVersion: input.version });
  return { version: input.version };
}

/**
 * A participant turns end-to-end encryption on (it stays on). 'rsa': the first sender's browser
 * makes key version 1, wrapped for each participant's public key. 'aes': the one key (version 1)
 * is derived in each browser from a passphrase the participants share out of band, with the salt
 * made here; the first browser to enter it stores the key-check value.
 */
export async function enableEncryption(actor: Actor, ticket: TicketRow, method: EncryptionMethod = "rsa") {
  if (!(ENCRYPTABLE_KINDS as readonly string[]).includes(ticket.kind)) throw new E2eeRefused("plugin_e2ee.errors.kind");
  if (!ENCRYPTION_METHODS.includes(method)) throw new E2eeRefused("plugin_e2ee.errors.method");
  if (!(await isParticipant(ticket.id, actor.id))) throw new E2eeRefused("plugin_e2ee.errors.participantOnly", 403);
  if (ticket.encryption) return false;
  if (ticket.kind === "livechat") {
    // the visitor cannot share a passphrase out of band with someone they do not know
    if (method !== "rsa") throw new E2eeRefused("plugin_e2ee.errors.livechatMethod");
    // a visitor's browser without JavaScript made no key: the chat stays readable (decision 048)
    if (!(await visitorKeyOf(ticket.id))) throw new E2eeRefused("plugin_e2ee.errors.visitorNoKey", 409);
  }
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  const changed = await handle.transaction(async (tx) => {
    const moved = await tx
      .update(schema.tickets)
      .set(
        method === "aes"
          ? { encryption: true, encryptionMethod: "aes", encryptionVersion: 1, encryptionRekey: false }
          : { encryption: true, encryptionMethod: "rsa", encryptionVersion: 0, encryptionRekey: true },
      )
      .where(and(eq(schema.tickets.id, ticket.id), eq(schema.tickets.encryption, false)))
      .returning({ id: schema.tickets.id });
    if (!moved.length) return false;
    if (method === "aes")
      await tx
        .insert(schema.e2eeSharedKeys)
        .values({ ticketId: ticket.id, salt: randomBytes(16).toString("base64"), iterations: PBKDF2_ITERATIONS, createdAt: now });
    await systemMessage(
      tx,
      ticket.id,
      { event: "plugin", by: actor.name, text: method === "aes" ? "plugin_e2ee.system.enabledShared" : "plugin_e2ee.system.enabled", values: {} },
      now,
    );
    // the list's preview of the last (plain) message goes: from now on it says 'Encrypted message'
    await touch(tx, ticket.id, actor.id, now, { lastMessage: "" });
    return true;
  });
  if (changed) await announce(ticket, SERVER_EVENTS.updateTicket, { encryption: true });
  return changed;
}

export async function getBackup(userId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.e2eeKeyBackups).where(eq(schema.e2eeKeyBackups.userId, userId));
  return row ? { blob: row.blob, salt: row.salt, iv: row.iv, iterations: row.iterations, fingerprint: row.fingerprint, updatedAt: row.updatedAt } : null;
}

/** Bytes a base64 text stands for. */
const decodedLength = (base64: string) => Buffer.from(base64, "base64").length;

/**
 * What any stored backup must be, new or re-sealed under a new passphrase (the server cannot open
 * one, so it checks its shape): base64 parts of the sizes the browser's crypto makes (a 12-byte
 * nonce, a salt of 16 to 64 bytes, a sealed PKCS#8 key of at most 8000 characters) and PBKDF2 at
 * least MIN_PBKDF2_ITERATIONS (and not absurdly many, which would hang every restoring browser).
 */
function validBackup(backup: Backup | null | undefined): backup is Backup {
  return (
    !!backup &&
    [backup.blob, backup.salt, backup.iv].every((x) => typeof x === "string" && x.length <= 8000 && BASE64.test(x)) &&
    decodedLength(backup.iv) === 12 &&
    decodedLength(backup.salt) >= 16 &&
    decodedLength(backup.salt) <= 64 &&
    decodedLength(backup.blob) >= 256 &&
    Number.isSafeInteger(backup.iterations) &&
    backup.iterations >= MIN_PBKDF2_ITERATIONS &&
    backup.iterations <= 10_000_000 &&
    typeof backup.fingerprint === "string"
  );
}

const backupValues = (backup: Backup, now: number) => ({
  blob: backup.blob,
  salt: backup.salt,
  iv: backup.iv,
  iterations: backup.iterations,
  fingerprint: backup.fingerprint,
  updatedAt: now,
});

/**
 * Stores the backup of a new key (the server cannot open it): only for the user's current public
 * key, and only once per key. Sealing the same key under another passphrase is a change of
 * passphrase (changeBackupPassphrase: checked against the backup it replaces, and audited).
 */
export async function putBackup(userId: number, backup: Backup) {
  if (!validBackup(backup)) throw new E2eeRefused("plugin_e2ee.errors.badBackup");
  const key = await currentKey(userId);
  if (key?.fingerprint !== backup.fingerprint) throw new E2eeRefused("plugin_e2ee.errors.backupKey", 409);
  const { db, schema } = getDb();
  const b = schema.e2eeKeyBackups;
  const values = backupValues(backup, Date.now());
  // a backup of an earlier key goes; one of this key stays as it is
  const stored = await db
    .insert(b)
    .values({ userId, ...values })
    .onConflictDoUpdate({ target: b.userId, set: values, setWhere: sql`${b.fingerprint} <> ${backup.fingerprint}` })
    .returning({ userId: b.userId });
  if (!stored.length) throw new E2eeRefused("plugin_e2ee.errors.backupExists", 409);
}

/**
 * The user's browser opened their backup with the current passphrase and sealed the same private
 * key again with a new one (a new salt): it replaces the backup it was made from (`replaces`, that
 * backup's salt) in one conditional write, so a backup changed meanwhile (another browser) is
 * never overwritten unseen, and the audit log records it in the same transaction. The server
 * checks what it checks of a new backup; it never sees either passphrase.
 */
export async function changeBackupPassphrase(actor: { id: number; name: string }, input: Backup & { replaces?: unknown }, ip = "") {
  if (!validBackup(input) || typeof input.replaces !== "string" || !BASE64.test(input.replaces)) throw new E2eeRefused("plugin_e2ee.errors.badBackup");
  // the same salt again would be no new sealing at all
  if (input.salt === input.replaces) throw new E2eeRefused("plugin_e2ee.errors.sameSalt");
  const key = await currentKey(actor.id);
  if (!key || key.fingerprint !== input.fingerprint) throw new E2eeRefused("plugin_e2ee.errors.backupKey", 409);
  const handle = getDb();
  const b = handle.schema.e2eeKeyBackups;
  const now = Date.now();
  await handle.transaction(async (tx) => {
    const replaced = await tx
      .update(b)
      .set(backupValues(input, now))
      .where(and(eq(b.userId, actor.id), eq(b.salt, input.replaces as string), eq(b.fingerprint, input.fingerprint)))
      .returning({ userId: b.userId });
    if (!replaced.length) {
      const [stored] = await tx.select({ salt: b.salt }).from(b).where(eq(b.userId, actor.id));
      throw stored ? new E2eeRefused("plugin_e2ee.errors.backupChanged", 409) : new E2eeRefused("plugin_e2ee.errors.noBackup", 404);
    }
    await audit({ action: "e2ee.backup_passphrase_changed", actor, target: { type: "user", id: actor.id }, detail: { iterations: input.iterations }, ip }, tx);
  });
  return { changed: true, iterations: input.iterations };
}

/** The safety numbers of the viewer with each other participant who has a key (same digits on both sides). */
export async function safetyNumbers(viewerId: number, ticketId: number) {
  const { db, schema } = getDb();
  const p = schema.participants;
  const k = schema.e2eeUserKeys;
  const rows = await db
    .select({ userId: p.userId, name: schema.users.name, fingerprint: k.fingerprint })
    .from(p)
    .innerJoin(schema.users, eq(schema.users.id, p.userId))
    .leftJoin(k, and(eq(k.userId, p.userId), isNull(k.replacedAt)))
    .where(eq(p.ticketId, ticketId))
    .orderBy(asc(p.addedAt), asc(p.userId));
  return rows;
}

async function sharedKeyOf(ticketId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.e2eeSharedKeys).where(eq(schema.e2eeSharedKeys.ticketId, ticketId));
  return row ?? null;
}

/**
 * The first participant's browser to enter an 'aes' conversation's passphrase stores its key-check
 * value (a known text sealed with the derived key), so the others' browsers can tell a wrong
 * passphrase. Set once: a second one is refused (409), the browser checks against the stored one.
 */
export async function setKeyCheck(actor: Actor, ticketId: number, check: string) {
  const ticket = await conversationById(actor, ticketId);
  if (!ticket.encryption || ticket.encryptionMethod !== "aes") throw new E2eeRefused("plugin_e2ee.errors.method");
  if (!(await isParticipant(ticket.id, actor.id))) throw new AccessDenied();
  if (typeof check !== "string" || !isEnvelope(check)) throw new E2eeRefused("conversation.encryption.malformed");
  const { db, schema } = getDb();
  const s = schema.e2eeSharedKeys;
  const set = await db
    .update(s)
    .set({ keyCheck: check, checkedBy: actor.id })
    .where(and(eq(s.ticketId, ticket.id), isNull(s.keyCheck)))
    .returning({ ticketId: s.ticketId });
  if (!set.length) throw new E2eeRefused("plugin_e2ee.errors.checkSet", 409);
  return { stored: true };
}

/** The size of an RSA-OAEP ciphertext for this public key (its modulus, in bytes): any wrapped key for it has exactly this length. */
async function wrappedLength(publicKey: string) {
  const key = await importPublicKey(publicKey);
  return (key.algorithm as RsaHashedKeyAlgorithm).modulusLength / 8;
}
/**
 * A participant shares earlier key versions with another participant (someone added later, who
 * otherwise reads only what comes after): those versions' conversation keys, unwrapped in the
 * sharer's browser and wrapped there for the other's current public key. Taken only for versions
 * the sharer holds, for the other's current key, each exactly an RSA-OAEP ciphertext's size for
 * it (anything else is refused with that reason). The server cannot open one, so a share is kept
 * as an offer per sharer: the recipient's browser takes the one that opens that version's
 * messages (acceptOffer) and drops one that does not (refuseOffer). A forged offer so never
 * blocks an honest one; versions the other already holds are left as they are.
 */
export async function shareHistory(
  actor: Actor,
  ticketId: number,
  input: { userId: number; keys: { version: number; wrappedKey: string; fingerprint: string }[] },
) {
  const ticket = await conversationById(actor, ticketId);
  if (!ticket.encryption || ticket.encryptionMethod !== "rsa") throw new E2eeRefused("plugin_e2ee.errors.method");
  if (!(await isParticipant(ticket.id, actor.id))) throw new AccessDenied();
  if (!(await isParticipant(ticket.id, input.userId)) || input.userId === actor.id) throw new E2eeRefused("plugin_e2ee.errors.shareWith");
  const theirs = await currentKey(input.userId);
  const handle = getDb();
  const w = handle.schema.e2eeWrappedKeys;
  const [mine, held] = await Promise.all(
    [actor.id, input.userId].map((userId) =>
      handle.db
        .select({ version: w.version })
        .from(w)
        .where(and(eq(w.ticketId, ticket.id), eq(w.userId, userId))),
    ),
  );
  const sharerHolds = new Set(mine.map((x) => x.version));
  const fine = input.keys.every((x) => sharerHolds.has(x.version) && x.fingerprint === theirs?.fingerprint);
  // a version the sharer never had, or wrapped for another key than the newcomer's current one
  if (!theirs || !input.keys.length || !fine) throw new E2eeRefused("plugin_e2ee.errors.participantsChanged", 409);
  // not an RSA-OAEP ciphertext for their key at all (garbage): refused, saying so
  const size = await wrappedLength(theirs.publicKey);
  if (!input.keys.every((x) => typeof x.wrappedKey === "string" && BASE64.test(x.wrappedKey) && decodedLength(x.wrappedKey) === size))
    throw new E2eeRefused("plugin_e2ee.errors.badWrap");
  const already = new Set(held.map((x) => x.version));
  const offered = input.keys.filter((x) => !already.has(x.version));
  const [who] = await handle.db.select({ name: handle.schema.users.name }).from(handle.schema.users).where(eq(handle.schema.users.id, input.userId));
  const o = handle.schema.e2eeKeyShares;
  const now = Date.now();
  const added = await handle.transaction(async (tx) => {
    if (!offered.length) return [];
    // the same sharer sharing again replaces their own offer (never another's)
    const rows = await tx
      .insert(o)
      .values(
        offered.map((x) => ({
          ticketId: ticket.id,
          version: x.version,
          userId: input.userId,
          sharedBy: actor.id,
          wrappedKey: x.wrappedKey,
          fingerprint: x.fingerprint,
          createdAt: now,
        })),
      )
      .onConflictDoUpdate({
        target: [o.ticketId, o.version, o.userId, o.sharedBy],
        set: { wrappedKey: sql`excluded.wrapped_key`, fingerprint: sql`excluded.fingerprint`, createdAt: now },
      })
      .returning({ version: o.version });
    // everyone sees who opened the earlier messages to whom
    await systemMessage(tx, ticket.id, { event: "plugin", by: actor.name, text: "plugin_e2ee.system.shared", values: { name: who?.name ?? "?" } }, now);
    return rows;
  });
  if (added.length) await announce(ticket, SERVER_EVENTS.updateTicket, { encryptionShared: input.userId });
  return { shared: added.map((x) => x.version) };
}

/** Earlier key versions offered to the reader (sharing history) that they do not hold yet, each with who offered it. */
async function offersFor(ticketId: number, userId: number) {
  const { db, schema } = getDb();
  const o = schema.e2eeKeyShares;
  const w = schema.e2eeWrappedKeys;
  const rows = await db
    .select({ version: o.version, sharedBy: o.sharedBy, wrappedKey: o.wrappedKey, fingerprint: o.fingerprint })
    .from(o)
    .leftJoin(w, and(eq(w.ticketId, o.ticketId), eq(w.version, o.version), eq(w.userId, o.userId)))
    .where(and(eq(o.ticketId, ticketId), eq(o.userId, userId), isNull(w.version)))
    .orderBy(asc(o.version), asc(o.createdAt));
  return rows;
}

async function offerOf(actor: Actor, ticketId: number, input: { version: number; sharedBy: number }) {
  const ticket = await conversationById(actor, ticketId);
  if (!(await isParticipant(ticket.id, actor.id))) throw new AccessDenied();
  const { db, schema } = getDb();
  const o = schema.e2eeKeyShares;
  const [offer] = await db
    .select()
    .from(o)
    .where(and(eq(o.ticketId, ticket.id), eq(o.userId, actor.id), eq(o.version, input.version), eq(o.sharedBy, input.sharedBy)));
  if (!offer) throw new E2eeRefused("plugin_e2ee.errors.noOffer", 404);
  return { ticket, offer };
}

/**
 * The recipient's browser opened that version's messages with an offered key: it becomes theirs
 * (the other offers of that version go).
 */
export async function acceptOffer(actor: Actor, ticketId: number, input: { version: number; sharedBy: number }) {
  const { ticket, offer } = await offerOf(actor, ticketId, input);
  const handle = getDb();
  const { schema } = handle;
  await handle.transaction(async (tx) => {
    await tx
      .insert(schema.e2eeWrappedKeys)
      .values({ ticketId: ticket.id, version: offer.version, userId: actor.id, wrappedKey: offer.wrappedKey, fingerprint: offer.fingerprint })
      .onConflictDoNothing();
    const o = schema.e2eeKeyShares;
    await tx.delete(o).where(and(eq(o.ticketId, ticket.id), eq(o.userId, actor.id), eq(o.version, offer.version)));
  });
  return { version: offer.version };
}

/**
 * The recipient's browser could not open that version's messages with an offered key (forged, or
 * for another key): it is dropped, and everyone sees whose share did not open them.
 */
export async function refuseOffer(actor: Actor, ticketId: number, input: { version: number; sharedBy: number }) {
  const { ticket, offer } = await offerOf(actor, ticketId, input);
  const handle = getDb();
  const { schema } = handle;
  const [by] = await handle.db.select({ name: schema.users.name }).from(schema.users).where(eq(schema.users.id, offer.sharedBy));
  await handle.transaction(async (tx) => {
    const o = schema.e2eeKeyShares;
    await tx.delete(o).where(and(eq(o.ticketId, ticket.id), eq(o.userId, actor.id), eq(o.version, offer.version), eq(o.sharedBy, offer.sharedBy)));
    await systemMessage(
      tx,
      ticket.id,
      { event: "plugin", by: actor.name, text: "plugin_e2ee.system.shareRefused", values: { name: by?.name ?? "?", version: String(offer.version) } },
      Date.now(),
    );
  });
  await announce(ticket, SERVER_EVENTS.updateTicket, { encryptionShared: actor.id });
  return { version: offer.version };
}
