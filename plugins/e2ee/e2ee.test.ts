// End-to-end encrypted chats through the real routes and models, sealed with the browser's own
// crypto module (Node's WebCrypto): the database file and the stored files never hold the
// plaintext; a tampered ciphertext or wrapped key, a replayed message id, an old key version
// after a removal and a changed key are each refused; the lists, search and the JSON twins say
// 'Encrypted message'; a key comes back on a new browser from its passphrase backup. Private notes
// are sealed like messages (bound to their message); earlier key versions can be shared with someone
// added later; encryption_method 'aes' derives the key from a passphrase the server never sees.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import pg from "pg";
import { createTestDb, DIALECTS, type TestDb } from "../../tests/unit/harness";
import { seedDemo } from "~/seed/seed";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername } from "~/accounts/users.server";
import { addNote, addParticipant, conversationById, createConversation, EncryptionRefused, loadMessages, removeParticipant } from "~/conversation/model.server";
import { sendReply } from "~/conversation/reply.server";
import { apiMessage } from "~/conversation/api.server";
import { action as replyAction } from "~/conversation/routes/api.reply";
import { loader as ticketListLoader } from "@plugins/tickets/routes/api.load";
import { parseSearch, search } from "@plugins/tickets/search.server";
import Database from "better-sqlite3";
import { action as keyAction } from "./routes/api.key";
import { action as backupAction, loader as backupLoader } from "./routes/api.backup";
import { action as passphraseAction } from "./routes/api.backup-passphrase";
import { getDb } from "@db/client";
import { action as versionAction, loader as keysLoader } from "./routes/api.conversation";
import { action as sendAction } from "./routes/api.send";
import { action as noteAction } from "./routes/api.note";
import { action as shareAction } from "./routes/api.share";
import { action as offerAction } from "./routes/api.offer";
import { action as sharedKeyAction } from "./routes/api.shared-key";
import { action as enableAction } from "./routes/enable";
import { sessionCookie } from "~/cookies.server";
import { apiMessage as twinMessage } from "~/conversation/api.server";
import { enableEncryption } from "./e2ee.server";
import { e2eePanel } from "./panel.server";
import {
  createIdentity,
  decryptFile,
  decryptMessage,
  DecryptError,
  deriveSharedKey,
  keyCheckMatches,
  makeKeyCheck,
  rewrapConversationKey,
  encryptFile,
  encryptMessage,
  newClientId,
  newConversationKey,
  PBKDF2_ITERATIONS,
  rekeyBackup,
  restoreIdentity,
  safetyNumber,
  unwrapConversationKey,
  wrapConversationKey,
  type Identity,
} from "./crypto";
import { ENCRYPTED_FILE_NAME, ENCRYPTED_FILE_TYPE } from "~/conversation/encrypted";

const SECRET_TEXT = "narwhal-PLAINTEXT-moonbeam-42";
const SECRET_REPLY = "second-PLAINTEXT-quokka-after-removal";
const SECRET_FILE = "FILE-CONTENT-zebra-lighthouse-7 ".repeat(40);
const SECRET_NAME = "quarterly-secret-plan.txt";
const PASSPHRASE = "correct horse battery staple";
const SECRET_NOTE = "private-NOTE-PLAINTEXT-okapi-13";
const SECRET_SHARED = "aes-PLAINTEXT-pangolin-shared";
const SECRET_SHARED_NOTE = "aes-note-PLAINTEXT-axolotl";
const ROOM_PASSPHRASE = "our room passphrase, told in person";
const NEW_PASSPHRASE = "a new passphrase, walrus-PASS-77";
const OTHER_PASSPHRASE = "meanwhile on another browser, ibis-PASS-31";

const context = { cspNonce: "", clientIp: "127.0.0.1" };
type User = NonNullable<Awaited<ReturnType<typeof findUserByUsername>>>;

let t: TestDb;
let dataDir: string;
const users: Record<string, User> = {};
const tokens: Record<string, string> = {};
const ids: Record<string, Identity> = {};
let ticketId: number;

const call = async (run: () => Promise<Response>) => {
  const response = await run().catch((thrown: unknown) => {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  });
  return { status: response.status, body: (await response.json()) as { result: string; data?: any; description?: string; code?: string } };
};
const jsonRequest = (url: string, who: string, body?: unknown) =>
  new Request(`http://localhost${url}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const keysOf = (who: string) =>
  call(() => keysLoader({ request: jsonRequest(`/api/e2ee/conversation/${ticketId}`, who), params: { ticketId: String(ticketId) }, context }));
const postVersion = (who: string, body: unknown) =>
  call(() => versionAction({ request: jsonRequest(`/api/e2ee/conversation/${ticketId}`, who, body), params: { ticketId: String(ticketId) }, context }));

/** What a browser does to send: seal the text (and the file) with the current version, post it. */
async function sealAndSend(
  who: string,
  key: CryptoKey,
  version: number,
  text: string,
  file?: { name: string; type: string; bytes: Uint8Array<ArrayBuffer> },
  clientId = newClientId(),
) {
  const c = { ticketId, version, clientId };
  const form = new FormData();
  form.set("cipher", await encryptMessage(key, c, { text, ...(file ? { file: { name: file.name, type: file.type, size: file.bytes.length } } : {}) }));
  form.set("key_version", String(version));
  form.set("client_id", clientId);
  if (file) form.set("attachment", new File([await encryptFile(key, c, file.bytes)], ENCRYPTED_FILE_NAME, { type: ENCRYPTED_FILE_TYPE }));
  return { ...(await postForm(who, form)), clientId, form };
}
const postForm = (who: string, form: FormData) =>
  call(() =>
    sendAction({
      request: new Request(`http://localhost/api/e2ee/send/${ticketId}`, { method: "POST", headers: { Authorization: `Bearer ${tokens[who]}` }, body: form }),
      params: { ticketId: String(ticketId) },
      context,
    }),
  );

/** A browser's next key version: a new conversation key wrapped for every participant's current key. */
async function newVersion(who: string, forUsers?: string[]) {
  const { body } = await keysOf(who);
  const key = await newConversationKey();
  const people = body.data.participants.filter((p: any) => p.publicKey && (!forUsers || forUsers.includes(p.username)));
  const wrapped = [];
  for (const p of people) wrapped.push({ userId: p.userId, wrappedKey: await wrapConversationKey(key, p.publicKey), fingerprint: p.fingerprint });
  return { key, answer: await postVersion(who, { version: body.data.version + 1, wrapped }), version: body.data.version + 1 };
}

/** The conversation key a participant's browser gets from the server for a version. */
async function keyFor(who: string, version: number, privateKey = ids[who].privateKey) {
  const { body } = await keysOf(who);
  const wrapped = body.data.keys.find((k: any) => k.version === version);
  if (!wrapped) return null;
  return unwrapConversationKey(wrapped.wrappedKey, privateKey);
}

describe.each(DIALECTS)("an encrypted workspace chat on %s", (dialect) => {
  beforeAll(async () => {
    // one folder for the file: the file storage is made once per process
    dataDir ??= fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2ee-"));
    process.env.DATA_DIR = dataDir;
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: Date.now() });
    for (const name of ["admin", "agent", "agent2"]) {
      users[name] = (await findUserByUsername(name))!;
      tokens[name] = (await createSession(users[name].id)).token;
    }
    const chat = await createConversation(users.admin, { channel: "chat", title: "Project room", body: "", usernames: ["agent", "agent2"] });
    ticketId = chat.id;
    // each browser makes its key pair and publishes the public key; the admin's backup is stored
    for (const name of ["admin", "agent", "agent2"]) {
      ids[name] = await createIdentity(PASSPHRASE);
      const { body } = await call(() => keyAction({ request: jsonRequest("/api/e2ee/key", name, { publicKey: ids[name].publicKey }), params: {}, context }));
      expect(body.data).toEqual({ fingerprint: ids[name].fingerprint, changed: true });
    }
    expect((await call(() => backupAction({ request: jsonRequest("/api/e2ee/backup", "admin", ids.admin.backup), params: {}, context }))).body.result).toBe(
      "success",
    );
  }, 120_000);
  afterAll(async () => t?.cleanup());

  let v1: CryptoKey;
  let first: { clientId: string; form: FormData };

  it("takes only ciphertext once encryption is on, sealed with a key version made by a participant's browser", async () => {
    const ticket = await conversationById(users.admin, ticketId);
    // before: a ciphertext is refused in a plain conversation
    const early = await sealAndSend("admin", await newConversationKey(), 0, "x");
    expect(early.status).toBe(400);
    expect(await enableEncryption(users.admin, ticket)).toBe(true);
    const on = await conversationById(users.admin, ticketId);
    expect([on.encryption, on.encryptionMethod, on.encryptionRekey]).toEqual([true, "rsa", true]);
    // plain text is refused, on the page's path and on the JSON twin
    const plain = await sendReply(users.admin, on, { fields: { message: SECRET_TEXT }, files: [], fileErrors: [] });
    expect(plain).toEqual({ ok: false, message: "conversation.encryption.plaintext" });
    // a plain private note would be stored as written: refused (the page's path)
    const { messages } = await loadMessages(on);
    await expect(addNote(users.admin, on, messages[0].id, SECRET_NOTE)).rejects.toBeInstanceOf(EncryptionRefused);
    const twin = new FormData();
    twin.set("_token", tokens.admin);
    twin.set("ticket_id", String(ticketId));
    twin.set("message", SECRET_TEXT);
    const viaTwin = await call(() =>
      replyAction({ request: new Request("http://localhost/api/ticket/message/reply", { method: "POST", body: twin }), params: {}, context }),
    );
    expect(viaTwin.status).toBe(400);
    // a version that leaves out a participant with a key is refused
    const partial = await newVersion("admin", ["admin", "agent"]);
    expect(partial.answer.status).toBe(409);
    const made = await newVersion("admin");
    expect(made.answer.body.data).toEqual({ version: 1 });
    v1 = made.key;
    // the same version twice: someone else was first
    expect((await newVersion("agent")).answer.status).toBe(200); // version 2, fine
    const stale = await postVersion("agent2", { version: 2, wrapped: [] });
    expect(stale.status).toBe(409);
    v1 = (await keyFor("admin", 2))!;
    const sent = await sealAndSend("admin", v1, 2, SECRET_TEXT, { name: SECRET_NAME, type: "text/plain", bytes: new TextEncoder().encode(SECRET_FILE) });
    expect(sent.status).toBe(200);
    first = sent;
    // the spec's POST /api/upload takes the same, the key version in its field `encryption`
    const c = { ticketId, version: 2, clientId: newClientId() };
    const upload = new FormData();
    upload.set("_token", tokens.agent);
    upload.set("ticket_id", String(ticketId));
    upload.set("encryption", "2");
    upload.set("client_id", c.clientId);
    upload.set("cipher", await encryptMessage(v1, c, { text: "", file: { name: SECRET_NAME, type: "text/plain", size: 5 } }));
    upload.set(
      "attachment",
      new File([await encryptFile(v1, c, new TextEncoder().encode("zebra-lighthouse"))], ENCRYPTED_FILE_NAME, { type: ENCRYPTED_FILE_TYPE }),
    );
    const uploaded = await call(() =>
      replyAction({ request: new Request("http://localhost/api/upload", { method: "POST", body: upload }), params: {}, context }),
    );
    expect(uploaded.body).toMatchObject({ result: "success", fileName: ENCRYPTED_FILE_NAME, fileType: ENCRYPTED_FILE_TYPE });
    // an encrypted file's type is taken only inside an encrypted message
    const sneaky = new FormData();
    sneaky.set("_token", tokens.agent);
    sneaky.set("ticket_id", String(ticketId));
    sneaky.set("attachment", new File([new Uint8Array(40)], "x.bin", { type: ENCRYPTED_FILE_TYPE }));
    expect(
      (await call(() => replyAction({ request: new Request("http://localhost/api/upload", { method: "POST", body: sneaky }), params: {}, context }))).status,
    ).toBe(400);
  });

  it("is read by the other participants' browsers: text and file", async () => {
    const key = (await keyFor("agent", 2))!;
    const ticket = await conversationById(users.agent, ticketId);
    const { messages } = await loadMessages(ticket);
    const m = messages.find((x) => x.encrypted)!;
    expect(m.body).toBe("");
    expect(m.file).toMatchObject({ name: ENCRYPTED_FILE_NAME, type: ENCRYPTED_FILE_TYPE });
    const c = { ticketId, version: m.encrypted!.version, clientId: m.encrypted!.clientId };
    const payload = await decryptMessage(key, c, m.encrypted!.cipher);
    expect(payload).toEqual({ text: SECRET_TEXT, file: { name: SECRET_NAME, type: "text/plain", size: SECRET_FILE.length } });
    const [row] = await t.handle.db.select().from(t.handle.schema.messages).where(eq(t.handle.schema.messages.id, m.id));
    const sealed = fs.readFileSync(path.join(dataDir, "files", row.fileKey!.slice(0, 2), row.fileKey!));
    expect(new TextDecoder().decode(await decryptFile(key, c, sealed))).toBe(SECRET_FILE);
    // the JSON twin and the list say 'Encrypted message'; search finds nothing of it
    expect(apiMessage(m).message).toBe("Encrypted message");
    const list = await call(() =>
      ticketListLoader({
        request: new Request("http://localhost/api/ticket/load"),
        params: { token: tokens.agent, status: "all", type: "chat", offset: "0" },
        context,
      }),
    );
    const item = (list.body as any).data.find((x: any) => x.id === ticketId);
    expect(item.newMessage).toBe("Encrypted message");
    // search finds the word in a plain chat, never in the encrypted one
    const plainChat = await createConversation(users.agent, { channel: "chat", title: "Plain room", body: "a narwhal in plain text", usernames: [] });
    const found = await search(users.agent, parseSearch("narwhal"));
    expect(found.messageCount).toBe(1);
    expect(JSON.stringify(found.message)).toContain(String(plainChat.ticketNumber));
    expect(JSON.stringify(found.message)).not.toContain("PLAINTEXT");
  });

  it("refuses a tampered ciphertext or wrapped key in the browser", async () => {
    const key = (await keyFor("agent", 2))!;
    const ticket = await conversationById(users.agent, ticketId);
    const m = (await loadMessages(ticket)).messages.find((x) => x.encrypted)!;
    const c = { ticketId, version: 2, clientId: m.encrypted!.clientId };
    const envelope = JSON.parse(m.encrypted!.cipher);
    const ct = Buffer.from(envelope.ct, "base64");
    ct[3] ^= 1;
    await expect(decryptMessage(key, c, JSON.stringify({ ...envelope, ct: ct.toString("base64") }))).rejects.toBeInstanceOf(DecryptError);
    // moved to another message id or version: the additional data no longer matches
    await expect(decryptMessage(key, { ...c, clientId: newClientId() }, m.encrypted!.cipher)).rejects.toBeInstanceOf(DecryptError);
    await expect(decryptMessage(key, { ...c, version: 1 }, m.encrypted!.cipher)).rejects.toBeInstanceOf(DecryptError);
    const { body } = await keysOf("agent");
    const wrapped = Buffer.from(body.data.keys.find((k: any) => k.version === 2).wrappedKey, "base64");
    wrapped[10] ^= 1;
    await expect(unwrapConversationKey(wrapped.toString("base64"), ids.agent.privateKey)).rejects.toThrow();
    // someone else's private key opens nothing
    await expect(keyFor("agent", 2, ids.agent2.privateKey)).rejects.toThrow();
  });

  it("refuses a replayed message id", async () => {
    const again = await postForm("admin", first.form);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("conversation.encryption.replayed");
  });

  it("takes a private note only sealed, bound to its message: read by participants, never as a message", async () => {
    const ticket = await conversationById(users.agent, ticketId);
    const m = (await loadMessages(ticket)).messages.find((x) => x.encrypted)!;
    const c = { ticketId, version: 2, clientId: newClientId() };
    const cipher = await encryptMessage(v1, c, { text: SECRET_NOTE }, { note: m.id });
    const body = { message_id: m.id, cipher, key_version: 2, client_id: c.clientId };
    const post = (b: unknown) =>
      call(() => noteAction({ request: jsonRequest(`/api/e2ee/note/${ticketId}`, "agent", b), params: { ticketId: String(ticketId) }, context }));
    expect((await post(body)).body).toEqual({ result: "success", data: { saved: true } });
    // the same note again: a replay
    expect((await post(body)).body.code).toBe("conversation.encryption.replayed");
    // not an envelope, or another version than the current one
    expect((await post({ ...body, cipher: SECRET_NOTE, client_id: newClientId() })).body.code).toBe("conversation.encryption.malformed");
    expect((await post({ ...body, key_version: 1, client_id: newClientId() })).status).toBe(409);
    const after = (await loadMessages(ticket)).messages.find((x) => x.id === m.id)!;
    const note = after.notes[0];
    expect(note.body).toBe("");
    expect(note.encrypted).toEqual({ cipher, version: 2, clientId: c.clientId });
    // the other participant opens it as a note on this message only
    const key = (await keyFor("admin", 2))!;
    expect((await decryptMessage(key, { ticketId, version: 2, clientId: note.encrypted!.clientId }, note.encrypted!.cipher, { note: m.id })).text).toBe(
      SECRET_NOTE,
    );
    const nc = { ticketId, version: 2, clientId: note.encrypted!.clientId };
    await expect(decryptMessage(key, nc, note.encrypted!.cipher)).rejects.toBeInstanceOf(DecryptError);
    await expect(decryptMessage(key, nc, note.encrypted!.cipher, { note: m.id + 1 })).rejects.toBeInstanceOf(DecryptError);
    // and a message's envelope does not pass for a note
    const mc = { ticketId, version: 2, clientId: m.encrypted!.clientId };
    await expect(decryptMessage(key, mc, m.encrypted!.cipher, { note: m.id })).rejects.toBeInstanceOf(DecryptError);
    // the JSON twin says 'Encrypted message' for it
    expect(twinMessage(after).notes[0].text).toBe("Encrypted message");
  });

  it("makes a removed participant unable to read what comes after, and refuses the old key version", async () => {
    const admin = await conversationById(users.admin, ticketId);
    await removeParticipant(users.admin, admin, users.agent2.id);
    expect((await conversationById(users.admin, ticketId)).encryptionRekey).toBe(true);
    // the old key version is refused now, even before the new one exists
    const old = await sealAndSend("admin", v1, 2, "old key after removal");
    expect(old.status).toBe(409);
    expect(old.body.code).toBe("conversation.encryption.oldKey");
    // a version wrapped for the removed participant too is refused
    const stale = await newVersion("admin");
    expect(stale.answer.status).toBe(200);
    const v3 = stale.key;
    const keys = await t.handle.db.select().from(t.handle.schema.e2eeWrappedKeys).where(eq(t.handle.schema.e2eeWrappedKeys.version, 3));
    expect(keys.map((k) => k.userId).sort()).toEqual([users.admin.id, users.agent.id].sort());
    expect((await sealAndSend("admin", v1, 2, "still old")).status).toBe(409);
    expect((await sealAndSend("admin", v3, 3, SECRET_REPLY)).status).toBe(200);
    // the removed agent cannot fetch the conversation's keys any more, and none was ever wrapped for them at 3
    expect((await keysOf("agent2")).status).toBe(403);
    // the remaining participant reads it
    const agentKey = (await keyFor("agent", 3))!;
    const ticket = await conversationById(users.agent, ticketId);
    const last = (await loadMessages(ticket)).messages.filter((x) => x.encrypted).at(-1)!;
    expect((await decryptMessage(agentKey, { ticketId, version: 3, clientId: last.encrypted!.clientId }, last.encrypted!.cipher)).text).toBe(SECRET_REPLY);
    // adding someone back also calls for a new version (they do not get the old ones)
    await addParticipant(users.admin, admin, "agent2", false);
    expect((await conversationById(users.admin, ticketId)).encryptionRekey).toBe(true);
    expect((await newVersion("agent")).version).toBe(4);
    const agent2Keys = (await keysOf("agent2")).body.data.keys.map((k: any) => k.version);
    expect(agent2Keys).toEqual([1, 2, 4]);
  });

  it("lets a newcomer read earlier messages only once a participant shares those key versions", async () => {
    const { db, schema } = t.handle;
    const [row] = await db
      .insert(schema.users)
      .values({ username: "newcomer", name: "Nia Newcomer", type: "agent", passwordHash: "x", createdAt: Date.now() })
      .returning();
    users.newcomer = (await findUserByUsername("newcomer"))!;
    tokens.newcomer = (await createSession(row.id)).token;
    ids.newcomer = await createIdentity(PASSPHRASE, 310_000);
    await call(() => keyAction({ request: jsonRequest("/api/e2ee/key", "newcomer", { publicKey: ids.newcomer.publicKey }), params: {}, context }));
    await addParticipant(users.admin, await conversationById(users.admin, ticketId), "newcomer", false);
    const made = await newVersion("admin");
    expect(made.answer.status).toBe(200);
    const firstMessage = (await loadMessages(await conversationById(users.newcomer, ticketId))).messages.find((x) => x.encrypted)!;
    const c = { ticketId, version: firstMessage.encrypted!.version, clientId: firstMessage.encrypted!.clientId };
    // before: only the version made after they came
    const before = (await keysOf("newcomer")).body.data;
    expect(before.keys.map((k: any) => k.version)).toEqual([made.version]);
    expect(await keyFor("newcomer", c.version)).toBeNull();
    const mine = (await keysOf("admin")).body.data;
    const them = mine.participants.find((p: any) => p.username === "newcomer");
    expect(them.versions).toEqual([made.version]);
    const share = (who: string, body: unknown) =>
      call(() => shareAction({ request: jsonRequest(`/api/e2ee/share/${ticketId}`, who, body), params: { ticketId: String(ticketId) }, context }));
    const wrappedFor = async (fingerprint: string) =>
      Promise.all(
        mine.keys
          .filter((k: any) => !them.versions.includes(k.version))
          .map(async (k: any) => ({
            version: k.version,
            wrappedKey: await rewrapConversationKey(k.wrappedKey, ids.admin.privateKey, them.publicKey),
            fingerprint,
          })),
      );
    // refused: for another key than theirs, a version the sharer never held, by someone outside, with oneself
    expect((await share("admin", { userId: them.userId, keys: await wrappedFor(ids.agent.fingerprint) })).status).toBe(409);
    const good = await wrappedFor(them.fingerprint);
    expect((await share("admin", { userId: them.userId, keys: [{ ...good[0], version: 99 }] })).status).toBe(409);
    expect((await share("agent2", { userId: them.userId, keys: good })).status).toBe(409); // agent2 was removed before version 3: never held it
    expect((await share("admin", { userId: users.admin.id, keys: good })).status).toBe(400);
    // garbage from another member: not a wrapped key for the newcomer's key at all (wrong size): refused, saying so
    const garbage = await share("agent", { userId: them.userId, keys: [{ version: c.version, wrappedKey: "AAAA", fingerprint: them.fingerprint }] });
    expect(garbage).toMatchObject({ status: 400, body: { code: "plugin_e2ee.errors.badWrap" } });
    // a forged one (well-formed: some other key wrapped for the newcomer's public key) is kept only as that member's offer
    const forged = await share("agent", {
      userId: them.userId,
      keys: [{ version: c.version, wrappedKey: await wrapConversationKey(await newConversationKey(), them.publicKey), fingerprint: them.fingerprint }],
    });
    expect(forged.body.data.shared).toEqual([c.version]);
    // ... and does not block the honest share
    const shared = await share("admin", { userId: them.userId, keys: good });
    expect(shared.body.data.shared.sort()).toEqual(good.map((k: any) => k.version).sort());
    // everyone sees it was shared
    const system = (await loadMessages(await conversationById(users.admin, ticketId))).messages.filter((m) => m.type === "system").at(-1);
    expect(JSON.parse(system!.body)).toMatchObject({ text: "plugin_e2ee.system.shared", values: { name: "Nia Newcomer" } });
    // the newcomer's browser tries each offer on that version's message: the forged one opens nothing and is refused, the honest one is taken
    const offered = (await keysOf("newcomer")).body.data.offered.filter((o: any) => o.version === c.version);
    expect(offered.map((o: any) => o.sharedBy).sort()).toEqual([users.admin.id, users.agent.id].sort());
    const verdict = (body: unknown) =>
      call(() => offerAction({ request: jsonRequest(`/api/e2ee/offer/${ticketId}`, "newcomer", body), params: { ticketId: String(ticketId) }, context }));
    for (const offer of offered) {
      const key = await unwrapConversationKey(offer.wrappedKey, ids.newcomer.privateKey);
      const opens = await decryptMessage(key, c, firstMessage.encrypted!.cipher).then(
        () => true,
        (error) => (expect(error).toBeInstanceOf(DecryptError), false),
      );
      expect(opens).toBe(offer.sharedBy === users.admin.id);
      expect((await verdict({ version: c.version, sharedBy: offer.sharedBy, opens })).status).toBe(200);
    }
    const refusedLine = (await loadMessages(await conversationById(users.admin, ticketId))).messages.filter((m) => m.type === "system").at(-1);
    expect(JSON.parse(refusedLine!.body)).toMatchObject({
      text: "plugin_e2ee.system.shareRefused",
      values: { name: "Alya Agent", version: String(c.version) },
    });
    // now the newcomer holds it and opens the first message; no offer of it is left, and a verdict on a gone one is refused
    const key = (await keyFor("newcomer", c.version))!;
    expect((await decryptMessage(key, c, firstMessage.encrypted!.cipher)).text).toBe(SECRET_TEXT);
    expect((await keysOf("newcomer")).body.data.offered.some((o: any) => o.version === c.version)).toBe(false);
    expect((await verdict({ version: c.version, sharedBy: users.agent.id, opens: true })).status).toBe(404);
    // sharing again adds nothing
    expect((await share("admin", { userId: them.userId, keys: good.filter((k: any) => k.version === c.version) })).body.data.shared).toEqual([]);
  });

  it("shows a key change: history kept, a new version due; the panel leaves the safety numbers to the browser", async () => {
    const before = await e2eePanel({ ticket: await conversationById(users.admin, ticketId), reader: users.admin, viewer: undefined as never });
    const oldNumber = await safetyNumber(ids.admin.fingerprint, ids.agent.fingerprint);
    expect(oldNumber).toMatch(/^(\d{5} ){11}\d{5}$/);
    expect(oldNumber).toBe(await safetyNumber(ids.agent.fingerprint, ids.admin.fingerprint));
    // the server's page shows no number of its own (one it computed could hide a swapped key)
    expect(JSON.stringify(before)).not.toMatch(/\d{5} \d{5}/);
    expect(JSON.stringify(before)).toContain("plugin_e2ee.panel.safetyInBrowser");
    const replaced = ids.agent;
    ids.agent = await createIdentity(PASSPHRASE);
    const { body } = await call(() => keyAction({ request: jsonRequest("/api/e2ee/key", "agent", { publicKey: ids.agent.publicKey }), params: {}, context }));
    expect(body.data.changed).toBe(true);
    const keys = (await keysOf("admin")).body.data;
    const agent = keys.participants.find((p: any) => p.username === "agent");
    expect(agent.fingerprint).toBe(ids.agent.fingerprint);
    expect(agent.previousFingerprints).toEqual([replaced.fingerprint]);
    expect(keys.rekey).toBe(true);
    // the browser's number changes with the key
    expect(await safetyNumber(ids.admin.fingerprint, ids.agent.fingerprint)).not.toBe(oldNumber);
    // a version wrapped for the replaced key is refused
    const stale = await postVersion("admin", {
      version: keys.version + 1,
      wrapped: await Promise.all(
        keys.participants.map(async (p: any) => ({
          userId: p.userId,
          wrappedKey: await wrapConversationKey(await newConversationKey(), p.publicKey),
          fingerprint: p.username === "agent" ? replaced.fingerprint : p.fingerprint,
        })),
      ),
    });
    expect(stale.status).toBe(409);
  });

  it("restores a private key on a new browser from the passphrase backup only", async () => {
    const { body } = await call(() => backupLoader({ request: jsonRequest("/api/e2ee/backup", "admin"), params: {}, context }));
    expect(body.data.iterations).toBeGreaterThanOrEqual(310_000);
    await expect(restoreIdentity(body.data, "wrong passphrase!!")).rejects.toThrow();
    const restored = await restoreIdentity(body.data, PASSPHRASE);
    // non-extractable, and it opens the conversation key
    expect(restored.extractable).toBe(false);
    const key = (await keyFor("admin", 3, restored))!;
    const ticket = await conversationById(users.admin, ticketId);
    const last = (await loadMessages(ticket)).messages.filter((x) => x.encrypted).at(-1)!;
    expect((await decryptMessage(key, { ticketId, version: 3, clientId: last.encrypted!.clientId }, last.encrypted!.cipher)).text).toBe(SECRET_REPLY);
    // a weak backup is refused
    const weak = await call(() =>
      backupAction({ request: jsonRequest("/api/e2ee/backup", "admin", { ...ids.admin.backup, iterations: 1000 }), params: {}, context }),
    );
    expect(weak.status).toBe(400);
  });

  it("changes the backup's passphrase: the same key sealed again in the browser, checked like a new backup, replaced atomically and audited", async () => {
    const getStored = async () => (await call(() => backupLoader({ request: jsonRequest("/api/e2ee/backup", "admin"), params: {}, context }))).body.data;
    const change = (body: unknown) => call(() => passphraseAction({ request: jsonRequest("/api/e2ee/backup/passphrase", "admin", body), params: {}, context }));
    const { db, schema } = getDb();
    const audited = () => db.select().from(schema.auditLog).where(eq(schema.auditLog.action, "e2ee.backup_passphrase_changed"));
    const old = await getStored();
    const { updatedAt: _, ...oldBackup } = old;
    // a wrong current passphrase opens nothing in the browser: nothing is made or sent
    await expect(rekeyBackup(oldBackup, "not the passphrase!!", NEW_PASSPHRASE)).rejects.toThrow();
    const next = await rekeyBackup(oldBackup, PASSPHRASE, NEW_PASSPHRASE);
    // the iterations of a new backup, a new salt and nonce, the same key
    expect(next.iterations).toBe(PBKDF2_ITERATIONS);
    expect(next.fingerprint).toBe(ids.admin.fingerprint);
    expect(next.salt).not.toBe(old.salt);
    expect(next.iv).not.toBe(old.iv);
    const bytes = (n: number) => Buffer.alloc(n, 7).toString("base64");
    // each refused with its reason, the stored backup untouched and nothing audited
    const refused: [unknown, number, string][] = [
      [{ ...next, replaces: old.salt, iterations: 1000 }, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: old.salt, iterations: 20_000_000 }, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: old.salt, iv: bytes(16) }, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: old.salt, salt: bytes(8) }, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: old.salt, blob: "A".repeat(8004) }, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: old.salt, blob: bytes(32) }, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: old.salt, blob: "not base64!" }, 400, "plugin_e2ee.errors.badBackup"],
      [next, 400, "plugin_e2ee.errors.badBackup"],
      [{ ...next, replaces: next.salt }, 400, "plugin_e2ee.errors.sameSalt"],
      [{ ...next, replaces: old.salt, fingerprint: ids.agent.fingerprint }, 409, "plugin_e2ee.errors.backupKey"],
      [{ ...next, replaces: bytes(16) }, 409, "plugin_e2ee.errors.backupChanged"],
    ];
    for (const [body, status, code] of refused) {
      const answer = await change(body);
      expect([answer.status, answer.body.code], JSON.stringify(body).slice(0, 120)).toEqual([status, code]);
    }
    // the plain store of a new key's backup cannot overwrite this key's backup unaudited either
    const plain = await call(() => backupAction({ request: jsonRequest("/api/e2ee/backup", "admin", next), params: {}, context }));
    expect([plain.status, plain.body.code]).toEqual([409, "plugin_e2ee.errors.backupExists"]);
    expect(await getStored()).toEqual(old);
    expect(await audited()).toHaveLength(0);
    // a new key's backup still replaces the backup of the key it replaces (not a passphrase change)
    const storeFor = (who: string, backup: unknown) => call(() => backupAction({ request: jsonRequest("/api/e2ee/backup", who, backup), params: {}, context }));
    expect((await storeFor("agent", ids.agent.backup)).status).toBe(200);
    ids.agent = await createIdentity(PASSPHRASE);
    expect(
      (await call(() => keyAction({ request: jsonRequest("/api/e2ee/key", "agent", { publicKey: ids.agent.publicKey }), params: {}, context }))).status,
    ).toBe(200);
    expect((await storeFor("agent", ids.agent.backup)).status).toBe(200);
    expect((await storeFor("agent", ids.agent.backup)).body.code).toBe("plugin_e2ee.errors.backupExists");
    const agentBackup = (await call(() => backupLoader({ request: jsonRequest("/api/e2ee/backup", "agent"), params: {}, context }))).body.data;
    expect([agentBackup.fingerprint, agentBackup.salt]).toEqual([ids.agent.fingerprint, ids.agent.backup.salt]);
    expect(await audited()).toHaveLength(0);

    // two browsers change it at once from the same backup: exactly one wins, the other is told
    const other = await rekeyBackup(oldBackup, PASSPHRASE, OTHER_PASSPHRASE);
    const answers = await Promise.all([change({ ...next, replaces: old.salt }), change({ ...other, replaces: old.salt })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const lost = answers.find((a) => a.status === 409)!;
    expect(lost.body.code).toBe("plugin_e2ee.errors.backupChanged");
    const [winner, loser] = answers[0].status === 200 ? [NEW_PASSPHRASE, OTHER_PASSPHRASE] : [OTHER_PASSPHRASE, NEW_PASSPHRASE];
    expect(answers.find((a) => a.status === 200)!.body.data).toEqual({ changed: true, iterations: PBKDF2_ITERATIONS });

    // the stored backup: whole (all of one sealing), opened by the winner's passphrase only, the same key
    const stored = await getStored();
    expect(stored.salt).toBe((winner === NEW_PASSPHRASE ? next : other).salt);
    expect(stored.blob).toBe((winner === NEW_PASSPHRASE ? next : other).blob);
    expect(stored.updatedAt).toBeGreaterThanOrEqual(old.updatedAt);
    await expect(restoreIdentity(stored, PASSPHRASE)).rejects.toThrow();
    await expect(restoreIdentity(stored, loser)).rejects.toThrow();
    const restored = await restoreIdentity(stored, winner);
    expect(restored.extractable).toBe(false);
    const key = (await keyFor("admin", 3, restored))!;
    const ticket = await conversationById(users.admin, ticketId);
    const last = (await loadMessages(ticket)).messages.filter((x) => x.encrypted).at(-1)!;
    expect((await decryptMessage(key, { ticketId, version: 3, clientId: last.encrypted!.clientId }, last.encrypted!.cipher)).text).toBe(SECRET_REPLY);
    // the published key did not change: nobody is warned, no new key version is due
    expect((await keysOf("agent")).body.data.participants.find((p: any) => p.username === "admin").previousFingerprints).toEqual([]);

    // audited once, with who and from where, and no secret
    const entries = await audited();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: users.admin.id, targetType: "user", targetId: String(users.admin.id), ip: "127.0.0.1" });
    expect(JSON.parse(entries[0].detail)).toEqual({ iterations: PBKDF2_ITERATIONS });
    // a later change from the backup now stored works again (the old salt no longer does)
    const again = await rekeyBackup(stored, winner, PASSPHRASE);
    expect((await change({ ...again, replaces: old.salt })).status).toBe(409);
    expect((await change({ ...again, replaces: stored.salt })).status).toBe(200);
    expect(await audited()).toHaveLength(2);
    await restoreIdentity(await getStored(), PASSPHRASE);
  }, 120_000);

  it("encryption_method 'aes': a key from the participants' shared passphrase, the server keeping only a salt and a key-check value", async () => {
    const room = await createConversation(users.admin, { channel: "chat", title: "Shared room", body: "", usernames: ["agent", "agent2"] });
    const cookie = await sessionCookie().serialize(tokens.admin);
    const enable = await call(async () => {
      const r = await enableAction({
        request: new Request(`http://localhost/e2ee/enable/${room.ticketNumber}`, {
          method: "POST",
          body: new URLSearchParams({ method: "aes" }),
          headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        }),
        params: { number: String(room.ticketNumber) },
        context,
      });
      return new Response(JSON.stringify({ result: r.status === 302 ? "redirect" : "failed" }), { status: r.status });
    });
    expect(enable.status).toBe(302);
    const on = await conversationById(users.admin, room.id);
    expect([on.encryption, on.encryptionMethod, on.encryptionVersion, on.encryptionRekey]).toEqual([true, "aes", 1, false]);
    // the helpers below work on the module's conversation: point them at this one for this test
    const rsaTicket = ticketId;
    ticketId = room.id;
    try {
      const { body } = await keysOf("agent");
      expect(body.data).toMatchObject({ method: "aes", version: 1, shared: { iterations: 600_000, check: null } });
      // no wrapped key versions with a shared passphrase
      expect((await newVersion("admin")).answer.body.code).toBe("plugin_e2ee.errors.method");
      // the first browser to enter the passphrase stores the key-check value; a second one is refused
      const adminKey = await deriveSharedKey(ROOM_PASSPHRASE, body.data.shared.salt, body.data.shared.iterations);
      const setCheck = async (who: string, check: string) =>
        call(() =>
          sharedKeyAction({ request: jsonRequest(`/api/e2ee/shared-key/${room.id}`, who, { check }), params: { ticketId: String(room.id) }, context }),
        );
      expect((await setCheck("admin", "not an envelope")).status).toBe(400);
      expect((await setCheck("admin", await makeKeyCheck(adminKey, room.id))).status).toBe(200);
      const wrongKey = await deriveSharedKey("a wrong passphrase!", body.data.shared.salt, body.data.shared.iterations);
      expect((await setCheck("agent", await makeKeyCheck(wrongKey, room.id))).status).toBe(409);
      const check = (await keysOf("agent")).body.data.shared.check;
      expect(await keyCheckMatches(wrongKey, room.id, check)).toBe(false);
      // a key-check value is bound to its conversation
      expect(await keyCheckMatches(adminKey, rsaTicket, check)).toBe(false);
      const agentKey = await deriveSharedKey(ROOM_PASSPHRASE, body.data.shared.salt, body.data.shared.iterations);
      expect(await keyCheckMatches(agentKey, room.id, check)).toBe(true);
      // messages and notes take the same path as with 'rsa'
      const sent = await sealAndSend("admin", adminKey, 1, SECRET_SHARED);
      expect(sent.status).toBe(200);
      expect((await sealAndSend("admin", adminKey, 2, "not this version")).status).toBe(409);
      const plain = await sendReply(users.admin, on, { fields: { message: SECRET_SHARED }, files: [], fileErrors: [] });
      expect(plain).toEqual({ ok: false, message: "conversation.encryption.plaintext" });
      const m = (await loadMessages(on)).messages.find((x) => x.encrypted)!;
      const c = { ticketId: room.id, version: 1, clientId: m.encrypted!.clientId };
      expect((await decryptMessage(agentKey, c, m.encrypted!.cipher)).text).toBe(SECRET_SHARED);
      await expect(decryptMessage(wrongKey, c, m.encrypted!.cipher)).rejects.toBeInstanceOf(DecryptError);
      const nc = { ticketId: room.id, version: 1, clientId: newClientId() };
      const noteCipher = await encryptMessage(agentKey, nc, { text: SECRET_SHARED_NOTE }, { note: m.id });
      const note = await call(() =>
        noteAction({
          request: jsonRequest(`/api/e2ee/note/${room.id}`, "agent", { message_id: m.id, cipher: noteCipher, key_version: 1, client_id: nc.clientId }),
          params: { ticketId: String(room.id) },
          context,
        }),
      );
      expect(note.status).toBe(200);
      // a participant removed: no new key (they may know the passphrase; the panel says so), sending goes on
      await removeParticipant(users.admin, on, users.agent2.id);
      expect((await conversationById(users.admin, room.id)).encryptionRekey).toBe(false);
      expect((await sealAndSend("admin", adminKey, 1, SECRET_SHARED)).status).toBe(200);
      expect(JSON.stringify(await e2eePanel({ ticket: on, reader: users.admin, viewer: undefined as never }))).toContain("plugin_e2ee.panel.onShared");
      // an 'rsa' conversation takes no key-check value
      expect((await setCheck("admin", check)).status).toBe(409);
      const rsaCheck = await call(() =>
        sharedKeyAction({ request: jsonRequest(`/api/e2ee/shared-key/${rsaTicket}`, "admin", { check }), params: { ticketId: String(rsaTicket) }, context }),
      );
      expect(rsaCheck.body.code).toBe("plugin_e2ee.errors.method");
    } finally {
      ticketId = rsaTicket;
    }
  }, 60_000);

  it("leaves none of the plaintext in the database (its file on SQLite, every table's rows on PostgreSQL) or the stored files", async () => {
    const parts: Buffer[] = [];
    if (dialect === "sqlite") {
      // everything written reaches the main file (WAL checkpoint); the WAL is read too, if any
      const other = new Database(t.url);
      other.pragma("wal_checkpoint(TRUNCATE)");
      other.close();
      for (const f of [t.url, `${t.url}-wal`, `${t.url}-journal`]) if (fs.existsSync(f)) parts.push(fs.readFileSync(f));
    } else {
      const client = new pg.Client({ connectionString: t.url });
      await client.connect();
      const tables = await client.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public'");
      for (const { name } of tables.rows) {
        const rows = await client.query(`select t::text as row from "${name}" t`);
        parts.push(Buffer.from(rows.rows.map((r) => r.row).join("\n")));
      }
      await client.end();
    }
    const stored: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) e.isDirectory() ? walk(path.join(dir, e.name)) : stored.push(path.join(dir, e.name));
    };
    walk(dataDir);
    expect(stored.length).toBeGreaterThan(0);
    const dump = Buffer.concat([...parts, ...stored.map((f) => fs.readFileSync(f))]);
    // the dump is real: it holds what is stored in the clear (the chat's title, a plain chat's text)
    expect(dump.includes(Buffer.from("Project room"))).toBe(true);
    expect(dump.includes(Buffer.from("Shared room"))).toBe(true);
    expect(dump.includes(Buffer.from("a narwhal in plain text"))).toBe(true);
    for (const secret of [
      SECRET_TEXT,
      SECRET_REPLY,
      "zebra-lighthouse",
      SECRET_NAME,
      "PLAINTEXT",
      PASSPHRASE,
      NEW_PASSPHRASE,
      OTHER_PASSPHRASE,
      "-PASS-",
      SECRET_NOTE,
      SECRET_SHARED,
      SECRET_SHARED_NOTE,
      ROOM_PASSPHRASE,
    ])
      for (const encoding of ["utf8", "utf16le"] as const) expect(dump.includes(Buffer.from(secret, encoding)), `${secret} (${encoding})`).toBe(false);
  });
});
