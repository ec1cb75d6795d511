// The GRAPH_EMAIL adapter against a local stand-in that speaks Graph's documented API
// (tests/support/graph-standin.ts): client-credentials token, delta paging and resume, $value,
// sendMail, throttling with Retry-After, expired tokens, wrong credentials.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { simpleParser } from "mailparser";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startGraphStandin, type GraphStandin } from "../support/graph-standin";
import { accountRow, loadAccount, saveAccount, writeCursor } from "@plugins/channels/accounts.server";
import { recordInboundEvent } from "@plugins/channels/inbound.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { MAIL_PROVIDER, mailEventKey } from "@plugins/email/event-key";
import { adapter } from "@plugins/email/graph/adapter.server";
import { forgetGraphTokens } from "@plugins/email/graph/client.server";
import { GRAPH_CURSOR, pollGraph } from "@plugins/email/graph/delta.server";
import { PermanentFailure } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-graph-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

let seq = 0;
const mail = (subject: string, messageId: string | null = `<graph-${Date.now()}-${++seq}@customer.example>`) =>
  [
    "From: Customer <customer@example.com>",
    "To: support@contoso.example",
    `Subject: ${subject}`,
    ...(messageId ? [`Message-ID: ${messageId}`] : []),
    "",
    `About ${subject}`,
    "",
  ].join("\r\n");

describe.each(DIALECTS)("Microsoft Graph mail (%s)", (dialect) => {
  let t: TestDb;
  let graph: GraphStandin;
  let account: ChannelAccount;

  beforeAll(async () => {
    t = await createTestDb(dialect);
  });
  afterAll(async () => t?.cleanup());
  // a stand-in per test (fresh mailbox and counters), serving this test's account
  beforeEach(async () => {
    await graph?.close();
    const address = `support-${++seq}@contoso.example`;
    graph = await startGraphStandin({ mailbox: address });
    forgetGraphTokens();
    const id = await saveAccount({
      kind: "GRAPH_EMAIL",
      name: "M365",
      address,
      departmentId: null,
      config: { tenantId: graph.tenantId, clientId: graph.clientId, graphUrl: graph.graphUrl, loginUrl: graph.loginUrl },
      secrets: { clientSecret: graph.clientSecret },
    });
    account = (await loadAccount(id))!;
  });
  afterAll(async () => graph?.close());

  const events = async () => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.inboundEvents).orderBy(schema.inboundEvents.id)).filter((e) => e.accountId === account.id);
  };

  it("reads the inbox through delta pages, then only what is new through the delta link", async () => {
    const texts = Array.from({ length: 120 }, (_, i) => mail(`m${i}`));
    for (const text of texts) graph.addMessage(text);
    const first = await pollGraph(account);
    expect(first).toMatchObject({ pages: 3, seen: 120, stored: 120 });
    expect(graph.tokensIssued()).toBe(1);
    expect(await events()).toHaveLength(120);
    const [one] = await events();
    expect(JSON.parse(one.meta).graphId).toMatch(/^AAMk/);
    expect(one.source).toBe("graph");
    // the MIME as Graph gave it
    expect(await new Response(await fileStorage().get(one.rawKey!)).text()).toBe(texts[0]);

    graph.addMessage(mail("new one"));
    graph.addMessage(mail("new two"));
    const before = graph.requests.length;
    const second = await pollGraph(account);
    expect(second).toMatchObject({ pages: 1, seen: 2, stored: 2 });
    // one delta call and the two new mails' MIME: nothing fetched twice
    expect(graph.requests.slice(before).filter((r) => r.endsWith("/$value"))).toHaveLength(2);
    expect(await pollGraph(account)).toMatchObject({ seen: 0, stored: 0 });
    expect(await events()).toHaveLength(122);
    expect(new Set((await events()).map((e) => e.eventKey)).size).toBe(122);
  });

  it("stores the $value bytes, skips a mail stored already over SMTP, and starts over when the delta link is gone", async () => {
    const text = mail("exact bytes");
    graph.addMessage(text);
    const seen = mail("came by smtp first", "<both-ways@customer.example>");
    graph.addMessage(seen);
    await recordInboundEvent({
      accountId: account.id,
      provider: MAIL_PROVIDER,
      eventKey: mailEventKey("<both-ways@customer.example>", "x"),
      source: "smtp",
      rawKey: null,
      size: 0,
    });
    expect(await pollGraph(account)).toMatchObject({ seen: 2, stored: 1, skipped: 1 });
    const stored = (await events()).find((e) => e.source === "graph")!;
    expect(await new Response(await fileStorage().get(stored.rawKey!)).text()).toBe(text);
    expect(graph.requests.filter((r) => r.endsWith("/$value"))).toHaveLength(1);

    // a delta link Graph no longer knows (410): a full round again, nothing doubled
    await writeCursor(account.id, GRAPH_CURSOR, `${graph.graphUrl}/users/${account.address}/mailFolders/inbox/messages/delta?$deltatoken=forgotten`);
    graph.addMessage(mail("after reset"));
    expect(await pollGraph(account)).toMatchObject({ seen: 3, stored: 1, skipped: 2 });
    expect(await events()).toHaveLength(3);
  });

  it("waits as long as Retry-After says when throttled, and fetches a new token when one expired", async () => {
    graph.addMessage(mail("throttled"));
    graph.throttle(2, 1);
    const started = Date.now();
    expect(await pollGraph(account)).toMatchObject({ stored: 1 });
    // two 429s with Retry-After: 1 -> at least two seconds of waiting, then success
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(graph.requests.filter((r) => r.endsWith("/messages/delta")).length).toBe(3);

    graph.expireTokens();
    graph.addMessage(mail("after expiry"));
    expect(await pollGraph(account)).toMatchObject({ stored: 1 });
    expect(graph.tokensIssued()).toBe(2);
  });

  it("keeps going under Graph's request-rate throttling until every mail is in", async () => {
    await graph.close();
    graph = await startGraphStandin({ mailbox: account.address, requestsPerSecond: 8 });
    Object.assign(account.config, { tenantId: graph.tenantId, clientId: graph.clientId, graphUrl: graph.graphUrl, loginUrl: graph.loginUrl });
    account.secrets.clientSecret = graph.clientSecret;
    for (let i = 0; i < 20; i++) graph.addMessage(mail(`busy ${i}`));
    expect(await pollGraph(account)).toMatchObject({ stored: 20 });
    expect(graph.throttled()).toBeGreaterThan(0);
    expect(await events()).toHaveLength(20);
  }, 60_000);

  it("sends a reply as base64 MIME through sendMail; Graph's refusals are final, throttling is not", async () => {
    // an agent's reply on a Graph ticket, as the reply form writes it
    const { db, schema } = t.handle;
    const now = Date.now();
    const [ticket] = await db
      .insert(schema.tickets)
      .values({
        ticketNumber: 700000 + seq,
        title: "Help",
        channel: "GRAPH_EMAIL",
        contactEmail: "customer@example.com",
        channelAccountId: account.id,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const [reply] = await db.insert(schema.messages).values({ ticketId: ticket.id, type: "text", body: "Hello ü", createdAt: now }).returning();
    const message = { ticketId: ticket.id, messageIds: [reply.id], to: [], cc: [] };
    const { providerRef } = await adapter.send(message, account);
    expect(graph.sent).toHaveLength(1);
    const sent = await simpleParser(graph.sent[0]);
    expect(sent.messageId).toBe(providerRef);
    expect(sent.subject).toBe(`Re: [#${ticket.ticketNumber}] Help`);
    expect(sent.text?.trim()).toBe("Hello ü");
    expect(sent.to && "value" in sent.to ? sent.to.value.map((a) => a.address) : []).toEqual(["customer@example.com"]);

    graph.failNextSend(400, "ErrorInvalidRecipients", "At least one recipient is not valid.");
    const refused = await adapter.send(message, account).catch((e) => e);
    expect(refused).toBeInstanceOf(PermanentFailure);
    expect(refused.message).toContain("At least one recipient is not valid.");

    graph.throttle(10, 0);
    const throttled = await adapter.send(message, account).catch((e) => e);
    expect(throttled).toBeInstanceOf(Error);
    expect(throttled).not.toBeInstanceOf(PermanentFailure);
    expect(graph.sent).toHaveLength(1);
  });

  it("the Test button and the watcher say what is wrong with the credentials", async () => {
    expect(await adapter.test(account)).toEqual({ ok: true });
    const wrongSecret = { ...account, secrets: { clientSecret: "not-the-secret" } };
    const tested = await adapter.test(wrongSecret);
    expect(tested).toMatchObject({ ok: false, error: expect.stringContaining("AADSTS7000215: Invalid client secret provided") });
    const wrongTenant = { ...account, config: { ...account.config, tenantId: "00000000-0000-0000-0000-000000000000" } };
    expect(await adapter.test(wrongTenant)).toMatchObject({ ok: false, error: expect.stringContaining("AADSTS90002") });
    const unreachable = { ...account, config: { ...account.config, loginUrl: "http://127.0.0.1:1" } };
    expect(await adapter.test(unreachable)).toMatchObject({ ok: false, error: expect.stringContaining("could not be reached") });

    const stop = adapter.watch!(wrongSecret);
    for (let i = 0; i < 100 && (await accountRow(account.id))?.state !== "failing"; i++) await new Promise((r) => setTimeout(r, 50));
    await stop();
    expect(await accountRow(account.id)).toMatchObject({ state: "failing", lastError: expect.stringContaining("AADSTS7000215") });
  });
});
