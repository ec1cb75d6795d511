// Agents' replies going out on a channel, on both dialects: the reply and its job are written
// together; the send job moves the messages queued -> sending -> sent through the account's adapter
// and tells the open pages (messageStateChanged); a refusal shows as failed with the provider's
// reason and Retry sends it again; with no account the reply waits as 'No mail server is
// configured' and goes out once one is. The adapter is a small one of the test's own.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq, inArray } from "drizzle-orm";
import type { Server } from "socket.io";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { DEMO_MAILBOX, seedDemo } from "~/seed/seed";
import { kindOf } from "~/conversation/channels";
import * as conversation from "~/conversation/model.server";
import { sendReply } from "~/conversation/reply.server";
import { NOT_CONFIGURED, NotRetryable, retryDelivery, SEND_JOB } from "~/conversation/delivery.server";
import { createJobWorker, PermanentFailure, WaitAndRetry } from "~/jobs/queue.server";
import { registerRealtime } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { defineOutboundJob, NOT_CONFIGURED_WAIT_MS } from "@plugins/channels/outbound.server";
import type { ChannelAccount, ChannelAdapter, OutboundMessage } from "@plugins/channels/adapter";

const NOW = Date.UTC(2026, 10, 24, 9);

describe.each(DIALECTS)("delivery of replies on %s", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let number = 100;
  let clock = 0;
  // what the browsers in each room heard
  const heard: { room: string; event: string; payload: Record<string, unknown> }[] = [];
  // the test's adapter: records what it was asked to send; `answer` decides how it goes
  const sent: { message: OutboundMessage; account: ChannelAccount }[] = [];
  let answer: () => void = () => {};
  const adapter: ChannelAdapter = {
    kind: "EMAIL",
    fields: [],
    test: async () => ({ ok: true }),
    receive: async () => ({ state: "quarantined", reason: "not in this test" }),
    async send(message, account) {
      answer();
      sent.push({ message, account });
      return { providerRef: `<ref-${message.messageIds[0]}@test>` };
    },
  };
  const worker = () => createJobWorker({ now: () => clock, log: () => undefined });

  const ticket = async (channel: string, contactEmail = "customer@example.com") => {
    const { db, schema } = t.handle;
    const [row] = await db
      .insert(schema.tickets)
      .values({ ticketNumber: ++number, title: `T${number}`, channel, kind: kindOf(channel), departmentId: 2, contactEmail, createdAt: NOW, updatedAt: NOW })
      .returning();
    return row;
  };
  const send = (row: conversation.TicketRow, fields: Record<string, string>) => sendReply(agent, row, { fields, files: [], fileErrors: [] });
  const states = async (ids: number[]) => {
    const { db, schema } = t.handle;
    const rows = await db.select().from(schema.messages).where(inArray(schema.messages.id, ids));
    return rows.map((r) => ({ state: r.deliveryState, error: r.deliveryError }));
  };
  const jobsOf = async (key: string) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.jobs).where(eq(schema.jobs.key, key));
  };
  const stateEvents = (ticketId: number) =>
    heard.filter((h) => h.event === SERVER_EVENTS.messageStateChanged && h.room === `ticket:${ticketId}`).map((h) => [h.payload.state, h.payload.error]);
  const setAccountEnabled = async (enabled: boolean) => {
    const { db, schema } = t.handle;
    await db.update(schema.channelAccounts).set({ enabled });
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: NOW });
    agent = (await findUserByUsername("agent"))!;
    // the demo seed's mailbox is the account replies go out through
    registerRealtime({
      to: (room: string) => ({ emit: (event: string, payload: Record<string, unknown>) => heard.push({ room, event, payload }) }),
    } as unknown as Server);
    defineOutboundJob({ adapterFor: async (kind) => (kind === "EMAIL" ? adapter : undefined) });
  });
  beforeEach(() => {
    clock = Date.now() + 1000;
  });
  afterEach(async () => {
    heard.length = 0;
    sent.length = 0;
    answer = () => {};
    await setAccountEnabled(true);
    // each test runs its own replies' jobs only
    await t.handle.db.delete(t.handle.schema.jobs);
  });
  afterAll(async () => {
    registerRealtime(undefined);
    await t?.cleanup();
  });

  it("queues a reply to a mail ticket with one job for its recipients, and none for a workspace chat", async () => {
    const mail = await ticket("EMAIL");
    const result = await send(mail, { message: "We are on it.", cc: "Boss@Example.com", email2: "team@example.com, other@example.com" });
    if (!result.ok) throw new Error(result.message);
    const ids = result.created.map((m) => m.id);
    expect(await states(ids)).toEqual([{ state: "queued", error: null }]);
    const [job] = await jobsOf(`send:${ids[0]}`);
    expect(job).toMatchObject({ kind: SEND_JOB, state: "queued" });
    expect(JSON.parse(job.payload)).toEqual({ ticketId: mail.id, messageIds: ids, to: ["team@example.com", "other@example.com"], cc: ["boss@example.com"] });
    // the page shows it as queued before the worker picks it up
    const page = await conversation.loadMessages(mail);
    expect(page.messages.at(-1)).toMatchObject({ id: ids[0], deliveryState: "queued", deliveryError: null });

    const chat = await ticket("chat");
    const inChat = await send(chat, { message: "Lunch?" });
    if (!inChat.ok) throw new Error(inChat.message);
    expect(await states(inChat.created.map((m) => m.id))).toEqual([{ state: "", error: null }]);
    expect(await jobsOf(`send:${inChat.created[0].id}`)).toEqual([]);
    // a manual ticket goes out only when there is someone to write to
    const manual = await ticket("MANUAL", "");
    const quiet = await send(manual, { message: "Noted." });
    const addressed = await send(manual, { message: "Copy for you.", toEmail: "walkin@example.com" });
    if (!quiet.ok || !addressed.ok) throw new Error("refused");
    expect(await states([quiet.created[0].id, addressed.created[0].id])).toEqual([
      { state: "", error: null },
      { state: "queued", error: null },
    ]);
  });

  it("refuses a bad toEmail address and writes nothing", async () => {
    const mail = await ticket("EMAIL");
    const result = await send(mail, { message: "Hello", toEmail: "not an address" });
    expect(result).toMatchObject({ ok: false, message: "conversation.badEmail" });
    expect(await conversation.loadMessages(mail)).toMatchObject({ messages: [] });
  });

  it("sends a queued reply through the account's adapter: queued, sending, sent, each told to the open page", async () => {
    const mail = await ticket("EMAIL");
    const result = await send(mail, { message: "Fixed now.", cc: "boss@example.com" });
    if (!result.ok) throw new Error(result.message);
    const ids = result.created.map((m) => m.id);
    heard.length = 0;
    expect(await worker().runOnce()).toBe(1);
    expect(sent).toHaveLength(1);
    expect(sent[0].message).toEqual({ ticketId: mail.id, messageIds: ids, to: [], cc: ["boss@example.com"] });
    expect(sent[0].account).toMatchObject({ kind: "EMAIL", address: DEMO_MAILBOX });
    expect(await states(ids)).toEqual([{ state: "sent", error: null }]);
    expect(stateEvents(mail.id)).toEqual([
      ["sending", null],
      ["sent", null],
    ]);
    expect(heard.find((h) => h.event === SERVER_EVENTS.messageStateChanged)?.payload).toMatchObject({ ticketId: mail.id, messageIds: ids });
    // done: it does not go out twice
    expect(await worker().runOnce()).toBe(0);
    expect(sent).toHaveLength(1);
  });

  it("marks a refused reply failed with the provider's reason, and Retry sends it again", async () => {
    const mail = await ticket("EMAIL");
    const result = await send(mail, { message: "Your refund is on its way." });
    if (!result.ok) throw new Error(result.message);
    const [id] = result.created.map((m) => m.id);
    answer = () => {
      throw new PermanentFailure("550 5.1.1 <customer@example.com>: Recipient address rejected");
    };
    heard.length = 0;
    await worker().runOnce();
    const reason = "550 5.1.1 <customer@example.com>: Recipient address rejected";
    expect(await states([id])).toEqual([{ state: "failed", error: reason }]);
    expect(stateEvents(mail.id)).toEqual([
      ["sending", null],
      ["failed", reason],
    ]);
    expect((await conversation.loadMessages(mail)).messages.at(-1)).toMatchObject({ deliveryState: "failed", deliveryError: reason });

    // only a message of this ticket, and only one that goes out, can be retried
    const other = await ticket("EMAIL");
    await expect(retryDelivery(other, id)).rejects.toBeInstanceOf(NotRetryable);
    const chat = await ticket("chat");
    const inChat = await send(chat, { message: "hi" });
    if (!inChat.ok) throw new Error(inChat.message);
    await expect(retryDelivery(chat, inChat.created[0].id)).rejects.toBeInstanceOf(NotRetryable);

    answer = () => {};
    expect(await retryDelivery(mail, id)).toBe(true);
    expect(await states([id])).toEqual([{ state: "queued", error: null }]);
    // a second click while it is on its way changes nothing
    expect(await retryDelivery(mail, id)).toBe(false);
    clock = Date.now() + 1000;
    expect(await worker().runOnce()).toBe(1);
    expect(await states([id])).toEqual([{ state: "sent", error: null }]);
    expect(sent.map((s) => s.message.messageIds)).toEqual([[id]]);
  });

  it("keeps a reply queued with the last error while tries remain", async () => {
    const mail = await ticket("EMAIL");
    const result = await send(mail, { message: "Try again later?" });
    if (!result.ok) throw new Error(result.message);
    const [id] = result.created.map((m) => m.id);
    answer = () => {
      throw new Error("421 4.7.0 Try again later");
    };
    const w = worker();
    expect(await w.runOnce()).toBe(0);
    expect(await states([id])).toEqual([{ state: "queued", error: "421 4.7.0 Try again later" }]);
    answer = () => {};
    clock += 60_000;
    expect(await w.runOnce()).toBe(1);
    expect(await states([id])).toEqual([{ state: "sent", error: null }]);
  });

  it("waits as 'not configured' without an account or mail server, and goes out once there is one", async () => {
    await setAccountEnabled(false);
    const mail = await ticket("EMAIL");
    const result = await send(mail, { message: "Anyone there?" });
    if (!result.ok) throw new Error(result.message);
    const [id] = result.created.map((m) => m.id);
    const w = worker();
    expect(await w.runOnce()).toBe(0);
    expect(await states([id])).toEqual([{ state: "waiting", error: NOT_CONFIGURED }]);
    expect(stateEvents(mail.id).at(-1)).toEqual(["waiting", NOT_CONFIGURED]);
    // an account, but its adapter has no mail server yet
    await setAccountEnabled(true);
    answer = () => {
      throw new WaitAndRetry(NOT_CONFIGURED);
    };
    for (let i = 0; i < 12; i++) {
      clock += NOT_CONFIGURED_WAIT_MS;
      expect(await w.runOnce()).toBe(0);
    }
    expect(await states([id])).toEqual([{ state: "waiting", error: NOT_CONFIGURED }]);
    // waiting never uses up the tries: it goes out whenever the server is configured
    const [job] = await jobsOf(`send:${id}`);
    expect(job).toMatchObject({ state: "queued", attempts: 0 });
    answer = () => {};
    clock += NOT_CONFIGURED_WAIT_MS;
    expect(await w.runOnce()).toBe(1);
    expect(await states([id])).toEqual([{ state: "sent", error: null }]);
  });
});
