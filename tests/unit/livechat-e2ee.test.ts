// An end-to-end encrypted live chat on both dialects (decision 048), through the real routes and
// models, sealed and opened with the browsers' own crypto module (Node's WebCrypto): the visitor's
// browser publishes a key of its own; an agent turns encryption on only once it has one (a visitor
// without JavaScript keeps a readable chat); each key version is wrapped for the visitor too; the
// visitor's plain text is then refused with the text kept; the database holds no plaintext and
// search finds none.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import pg from "pg";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import * as livechat from "@plugins/livechat/livechat.server";
import { sendVisitorMessage, sealedFields, visitorPage } from "@plugins/livechat/visitor.server";
import { action as visitorKeyAction, loader as visitorKeyLoader } from "@plugins/livechat/routes/visitor-e2ee";
import { action as keyAction } from "@plugins/e2ee/routes/api.key";
import { action as versionAction, loader as keysLoader } from "@plugins/e2ee/routes/api.conversation";
import { action as sendAction } from "@plugins/e2ee/routes/api.send";
import { enableEncryption, E2eeRefused } from "@plugins/e2ee/e2ee.server";
import { conversationById } from "~/conversation/model.server";
import { parseSearch, search } from "@plugins/tickets/search.server";
import {
  createIdentity,
  decryptMessage,
  encryptMessage,
  fingerprintOf,
  newClientId,
  newConversationKey,
  RSA_PARAMS,
  toBase64,
  unwrapConversationKey,
  wrapConversationKey,
  type Identity,
} from "~/conversation/e2ee-crypto";

const VISITOR_SECRET = "visitor-PLAINTEXT-capybara-77";
const AGENT_SECRET = "agent-PLAINTEXT-manatee-31";
const context = { cspNonce: "", clientIp: "127.0.0.1" };

const call = async (run: () => Promise<Response>) => {
  const response = await run().catch((thrown: unknown) => {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  });
  return { status: response.status, body: (await response.json()) as { result: string; data?: any; description?: string; code?: string } };
};

describe.each(DIALECTS)("an end-to-end encrypted live chat on %s", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let token: string;
  let agentIdentity: Identity;
  let visitorPair: CryptoKeyPair;
  let visitorPublic: string;
  let visit: livechat.Visit;
  let ticketId: number;
  const reload = async () => (visit = (await livechat.findVisit(visit.token))!);
  const bearer = (url: string, body?: unknown) =>
    new Request(`http://localhost${url}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const visitorRoute = (body?: unknown) => {
    const request = new Request(`http://localhost/livechat/${visit.token}/e2ee`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const args = { request, params: { token: visit.token }, context };
    return call(() => (body === undefined ? visitorKeyLoader(args) : visitorKeyAction(args)));
  };
  const agentKeys = () => call(() => keysLoader({ request: bearer(`/api/e2ee/conversation/${ticketId}`), params: { ticketId: String(ticketId) }, context }));

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: Date.now() });
    agent = (await findUserByUsername("admin"))!;
    token = (await createSession(agent.id)).token;
    visit = (await livechat.findVisit((await livechat.startVisit("demo"))!))!;
    await livechat.register(visit, { name: "Vera Visitor", phone: "1", email: "vera@example.com", message: "Hello, a plain first line" }, true, "key-vera");
    await reload();
    ticketId = visit.ticketId!;
    expect(await livechat.acceptLiveChat(agent, ticketId)).toBeTruthy();
    await reload();
    agentIdentity = await createIdentity("agent passphrase 123");
    expect((await call(() => keyAction({ request: bearer("/api/e2ee/key", { publicKey: agentIdentity.publicKey }), params: {}, context }))).status).toBe(200);
    // the visitor's browser: a key pair of its own, the private key non-extractable
    visitorPair = (await crypto.subtle.generateKey(RSA_PARAMS, false, ["wrapKey", "unwrapKey"])) as CryptoKeyPair;
    visitorPublic = toBase64(await crypto.subtle.exportKey("spki", visitorPair.publicKey));
  }, 120_000);
  afterAll(async () => t?.cleanup());

  it("stays readable while the visitor's browser has no key (no JavaScript): encryption cannot be turned on", async () => {
    const ticket = await conversationById(agent, ticketId);
    await expect(enableEncryption(agent, ticket)).rejects.toMatchObject({ message: "plugin_e2ee.errors.visitorNoKey", status: 409 });
    await expect(enableEncryption(agent, ticket, "aes")).rejects.toBeInstanceOf(E2eeRefused);
    // the visitor's plain message goes as before
    expect(await sendVisitorMessage(visit, "still plain")).toEqual({ ok: true });
  });

  it("takes the visitor's key only with the visit's form token, and only an RSA public key", async () => {
    expect((await visitorRoute({ _token: "forged", publicKey: visitorPublic })).status).toBe(403);
    const csrf = livechat.visitCsrf(visit.token);
    expect((await visitorRoute({ _token: csrf, publicKey: "not a key" })).status).toBe(400);
    const published = await visitorRoute({ _token: csrf, publicKey: visitorPublic });
    expect(published.body.data).toEqual({ fingerprint: await fingerprintOf(visitorPublic), changed: true });
    // the same key again changes nothing
    expect((await visitorRoute({ _token: csrf, publicKey: visitorPublic })).body.data.changed).toBe(false);
  });

  it("wraps each key version for the visitor too: a version without it is refused", async () => {
    const ticket = await conversationById(agent, ticketId);
    expect(await enableEncryption(agent, ticket)).toBe(true);
    const { body } = await agentKeys();
    expect(body.data.visitor).toMatchObject({ name: "Vera Visitor", publicKey: visitorPublic, versions: [] });
    const key = await newConversationKey();
    const wrapped = [{ userId: agent.id, wrappedKey: await wrapConversationKey(key, agentIdentity.publicKey), fingerprint: agentIdentity.fingerprint }];
    const post = (extra: object) =>
      call(() =>
        versionAction({
          request: bearer(`/api/e2ee/conversation/${ticketId}`, { version: 1, wrapped, ...extra }),
          params: { ticketId: String(ticketId) },
          context,
        }),
      );
    expect((await post({})).status).toBe(409);
    // wrapped for another key than the visitor's
    expect(
      (await post({ visitor: { wrappedKey: await wrapConversationKey(key, agentIdentity.publicKey), fingerprint: agentIdentity.fingerprint } })).status,
    ).toBe(409);
    const made = await post({ visitor: { wrappedKey: await wrapConversationKey(key, visitorPublic), fingerprint: await fingerprintOf(visitorPublic) } });
    expect(made.body.data).toEqual({ version: 1 });
    // the visitor's page (visit token only) gets the version wrapped for its key
    const mine = await visitorRoute();
    expect(mine.body.data).toMatchObject({ ticketId, encryption: true, version: 1, rekey: false, fingerprint: await fingerprintOf(visitorPublic) });
    expect(mine.body.data.keys).toHaveLength(1);
  });

  it("carries ciphertext both ways: the agent's message opened by the visitor, the visitor's by the agent", async () => {
    // the agent's browser seals a reply
    const agentKey = await unwrapConversationKey((await agentKeys()).body.data.keys[0].wrappedKey, agentIdentity.privateKey);
    const out = { ticketId, version: 1, clientId: newClientId() };
    const form = new FormData();
    form.set("cipher", await encryptMessage(agentKey, out, { text: AGENT_SECRET }));
    form.set("key_version", "1");
    form.set("client_id", out.clientId);
    const sent = await call(() =>
      sendAction({
        request: new Request(`http://localhost/api/e2ee/send/${ticketId}`, { method: "POST", headers: { Authorization: `Bearer ${token}` }, body: form }),
        params: { ticketId: String(ticketId) },
        context,
      }),
    );
    expect(sent.status).toBe(200);
    // the visitor's page shows it sealed; its browser opens it
    await reload();
    const page = await visitorPage(visit, "Omnidesk");
    const sealed = page.messages.find((m) => m.sealed)!;
    expect(sealed.body).toBe("");
    const visitorKey = await unwrapConversationKey(page.e2ee!.keys[0].wrappedKey, visitorPair.privateKey);
    expect((await decryptMessage(visitorKey, { ticketId, version: 1, clientId: sealed.sealed!.clientId }, sealed.sealed!.cipher)).text).toBe(AGENT_SECRET);

    // plain text from the visitor (a browser without JavaScript) is refused, the text kept
    expect(await sendVisitorMessage(visit, VISITOR_SECRET)).toMatchObject({
      ok: false,
      status: 409,
      result: { message: "livechat.encryptedNeedsScript", values: { message: VISITOR_SECRET } },
    });
    // sealed by the visitor's browser
    const c = { ticketId, version: 1, clientId: newClientId() };
    const fields = { cipher: await encryptMessage(visitorKey, c, { text: VISITOR_SECRET }), key_version: "1", client_id: c.clientId };
    expect(await sendVisitorMessage(visit, "", sealedFields(fields))).toEqual({ ok: true });
    // a replay, an old version, a malformed envelope, text beside the ciphertext: refused
    expect(await sendVisitorMessage(visit, "", sealedFields(fields))).toMatchObject({ ok: false, result: { message: "conversation.encryption.replayed" } });
    expect(await sendVisitorMessage(visit, "", sealedFields({ ...fields, client_id: newClientId(), key_version: "2" }))).toMatchObject({
      ok: false,
      result: { message: "conversation.encryption.oldKey" },
    });
    expect(sealedFields({ ...fields, cipher: "{}" })).toBeNull();
    expect(await sendVisitorMessage(visit, "also text", sealedFields({ ...fields, client_id: newClientId() }))).toMatchObject({ ok: false, status: 400 });
    // the agent's browser opens it: the desk's message carries the envelope
    const { db, schema } = t.handle;
    const rows = await db.select().from(schema.messages);
    const fromVisitor = rows.find((m) => m.clientId === c.clientId)!;
    expect(fromVisitor).toMatchObject({ type: "encrypted", body: "", senderUserId: null, keyVersion: 1 });
    expect((await decryptMessage(agentKey, c, fromVisitor.cipher!)).text).toBe(VISITOR_SECRET);
    // the list's preview says nothing of it
    const ticket = await conversationById(agent, ticketId);
    expect(ticket.lastMessage).toBe("");
  });

  it("needs a new key version when the visitor's browser changes its key", async () => {
    const other = (await crypto.subtle.generateKey(RSA_PARAMS, false, ["wrapKey", "unwrapKey"])) as CryptoKeyPair;
    const spki = toBase64(await crypto.subtle.exportKey("spki", other.publicKey));
    const csrf = livechat.visitCsrf(visit.token);
    expect((await visitorRoute({ _token: csrf, publicKey: spki })).body.data.changed).toBe(true);
    expect((await visitorRoute()).body.data).toMatchObject({ rekey: true, fingerprint: await fingerprintOf(spki) });
    // the old key again, for the rest of the test
    await visitorRoute({ _token: csrf, publicKey: visitorPublic });
  });

  it("finds none of the plaintext in search or the database", async () => {
    for (const secret of [VISITOR_SECRET, AGENT_SECRET]) {
      const found = await search(agent, parseSearch(secret.split("-")[2]));
      expect(JSON.stringify(found)).not.toContain(secret);
    }
    const parts: Buffer[] = [];
    if (dialect === "sqlite") {
      const other = new Database(t.url);
      other.pragma("wal_checkpoint(TRUNCATE)");
      other.close();
      for (const f of [t.url, `${t.url}-wal`, `${t.url}-journal`]) if (fs.existsSync(f)) parts.push(fs.readFileSync(f));
    } else {
      const client = new pg.Client({ connectionString: t.url });
      await client.connect();
      const tables = await client.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public'");
      for (const { name } of tables.rows)
        parts.push(Buffer.from((await client.query(`select t::text as row from "${name}" t`)).rows.map((r) => r.row).join("\n")));
      await client.end();
    }
    const dump = Buffer.concat(parts);
    // the dump is real: the plain lines before encryption are there
    expect(dump.includes(Buffer.from("still plain"))).toBe(true);
    for (const secret of [VISITOR_SECRET, AGENT_SECRET, "PLAINTEXT"])
      for (const encoding of ["utf8", "utf16le"] as const) expect(dump.includes(Buffer.from(secret, encoding)), `${secret} (${encoding})`).toBe(false);
  });
});
