// The WAUCHAT chat bot, on both dialects, with customers writing through the Telegram stand-in
// (tests/support/telegram-standin.ts) and the bot's answers going out through the outbound queue
// to it: the menu in each language and the keypress map, keyword rules, handover words, three
// wrong answers, an agent's reply ending the bot, a job run twice answering once, an account
// without the bot staying a plain conversation, the admin page's forms, and GET /api/wauchat.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { startTelegramStandin, type TelegramStandin, type TgUser } from "../support/telegram-standin";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import * as conversation from "~/conversation/model.server";
import { decorateMessages } from "~/conversation/message-view.server";
import { canRead } from "~/conversation/access.server";
import { createJobWorker, isWaitAndRetry } from "~/jobs/queue.server";
import { loadAccount, saveAccount } from "@plugins/channels/accounts.server";
import { webhookCall } from "@plugins/channels/webhook.server";
import { processInboundEvent } from "@plugins/channels/inbound.server";
import { defineOutboundJob } from "@plugins/channels/outbound.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { start } from "@plugins/wauchat/start.server";
import { answer, ANSWER_JOB } from "@plugins/wauchat/bot.server";
import { setBotForAccount } from "@plugins/wauchat/config.server";
import { DEFAULT_TEXTS } from "@plugins/wauchat/flow";
import { action as settingsAction, loader as settingsLoader } from "@plugins/wauchat/routes/settings.wauchat";
import { loader as apiLoader } from "@plugins/wauchat/routes/api.wauchat";
import { channelGroup } from "@plugins/reports/reports.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-wauchat-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const SECRET = "wauchat_secret-token";
const context = { cspNonce: "", clientIp: "203.0.113.7" };
let userSeq = 0;
const customer = (name: string): TgUser => ({ id: 6_660_000_000 + ++userSeq, first_name: name });

const settle = async (run: () => Promise<unknown>) => {
  try {
    return (await run()) as Response;
  } catch (thrown) {
    return thrown as Response;
  }
};

describe.each(DIALECTS)("WAUCHAT (%s)", (dialect) => {
  let t: TestDb;
  let tg: TelegramStandin;
  let account: ChannelAccount;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let agentToken: string;
  let stop: () => Promise<void>;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentToken = (await createSession(agent.id)).token;
    agentCookie = await sessionCookie().serialize(agentToken);
    defineOutboundJob();
    stop = await start();
  }, 60_000);
  afterAll(async () => {
    await stop?.();
    await tg?.close();
    await t?.cleanup();
  });

  const by = () => ({ actor: { id: admin.id, name: admin.username }, ip: "203.0.113.7" });
  const addAccount = async (bot: boolean) => {
    const id = await saveAccount({
      kind: "TELEGRAM",
      name: `Shop bot ${++seq}`,
      address: `@${tg.username}_${seq}`,
      departmentId: agent.departmentId,
      config: { mode: "webhook", apiBase: tg.apiRoot },
      secrets: { botToken: tg.token, secretToken: SECRET },
    });
    if (bot) expect(await setBotForAccount(id, true, by())).toEqual({ ok: true });
    return (await loadAccount(id))!;
  };
  beforeEach(async () => {
    await tg?.close();
    tg = await startTelegramStandin();
    account = await addAccount(true);
  });
  afterEach(async () => {
    await t.handle.db.delete(t.handle.schema.jobs);
  });

  const worker = () => createJobWorker({ log: () => undefined });
  /** Every job due, until none is left (an answer queues its send). */
  const drain = async () => {
    for (let pass = 0; pass < 10 && (await worker().runOnce()) > 0; pass++);
  };
  /** A customer's message through the webhook door, stored, processed, answered and sent. */
  const says = async (from: TgUser, text: string, to = account) => {
    const answer = await webhookCall(
      new Request(`http://localhost/hooks/channels/${to.id}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body: JSON.stringify(tg.update(from, { text })),
      }),
      String(to.id),
    );
    expect(answer.status).toBe(200);
    const { db, schema } = t.handle;
    const e = schema.inboundEvents;
    for (const event of await db
      .select()
      .from(e)
      .where(and(eq(e.accountId, to.id), eq(e.state, "received")))
      .orderBy(asc(e.id)))
      await processInboundEvent(event.id);
    await drain();
  };
  /** What the customer got from the bot on Telegram, in order. */
  const botSaid = (to: TgUser) => tg.sent.filter((s) => s.chatId === String(to.id)).map((s) => s.text);
  const ticketOf = async (who: TgUser) => {
    const { db, schema } = t.handle;
    const [row] = await db
      .select()
      .from(schema.tickets)
      .where(eq(schema.tickets.customerId, String(who.id)))
      .orderBy(desc(schema.tickets.id));
    return row;
  };
  const labelsOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    const rows = await db
      .select({ name: schema.labels.name })
      .from(schema.ticketLabels)
      .innerJoin(schema.labels, eq(schema.labels.id, schema.ticketLabels.labelId))
      .where(eq(schema.ticketLabels.ticketId, ticketId));
    return rows.map((r) => r.name).sort();
  };
  const messagesOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).orderBy(asc(schema.messages.id));
  };
  const stateOf = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.wauchatConversations).where(eq(schema.wauchatConversations.ticketId, ticketId)))[0];
  };

  it("greets in English, offers the products, and hands over on 13: Pending while the bot holds it, Open with its labels after", async () => {
    const siti = customer("Siti");
    await says(siti, "Hello, I need help");
    expect(botSaid(siti)).toEqual([DEFAULT_TEXTS.welcome]);
    let ticket = await ticketOf(siti);
    // the bot holds it: not on the agents' Open list, still readable by admins
    expect(ticket.status).toBe(1);
    expect(await canRead(admin, ticket.id)).toBe(true);

    await says(siti, "1");
    expect(botSaid(siti)[1]).toBe(`${DEFAULT_TEXTS["greeting.en"]}\n\n${DEFAULT_TEXTS["productMenu.en"]}`);
    expect((await ticketOf(siti)).status).toBe(1);

    await says(siti, "13");
    expect(botSaid(siti)[2]).toBe(DEFAULT_TEXTS["handover.en"]);
    ticket = await ticketOf(siti);
    expect(ticket.status).toBe(0);
    expect(await labelsOf(ticket.id)).toEqual(["English", "Refrigerator"]);
    expect(await stateOf(ticket.id)).toMatchObject({ stage: "human", language: "en", product: "refrigerator", endedBy: "menu" });

    // the bot's messages went out and are shown as the bot's; the customer's next message is the agents'
    const messages = await messagesOf(ticket.id);
    const shown = await decorateMessages(
      ticket,
      messages.filter((m) => m.type !== "system"),
    );
    expect(shown.map((m) => [m.bot, m.body.split("\n")[0]])).toEqual([
      [false, "Hello, I need help"],
      [true, DEFAULT_TEXTS.welcome.split("\n")[0]],
      [false, "1"],
      [true, DEFAULT_TEXTS["greeting.en"]],
      [false, "13"],
      [true, DEFAULT_TEXTS["handover.en"]],
    ]);
    expect(messages.filter((m) => m.senderUserId).every((m) => m.deliveryState === "sent")).toBe(true);
    await says(siti, "hello?");
    expect(botSaid(siti)).toHaveLength(3);
  });

  it("speaks Malay after 2 and Chinese after 3; a single product digit or a map code hands over in that language", async () => {
    const aminah = customer("Aminah");
    await says(aminah, "hai");
    await says(aminah, "2");
    expect(botSaid(aminah)[1]).toBe(`${DEFAULT_TEXTS["greeting.ms"]}\n\n${DEFAULT_TEXTS["productMenu.ms"]}`);
    await says(aminah, "4");
    expect(botSaid(aminah)[2]).toBe(DEFAULT_TEXTS["handover.ms"]);
    expect(await labelsOf((await ticketOf(aminah)).id)).toEqual(["Malay", "Washing Machine"]);

    const wei = customer("Wei");
    await says(wei, "你好");
    await says(wei, "３"); // a full-width digit, as a Chinese keyboard types it
    expect(botSaid(wei)[1]).toBe(`${DEFAULT_TEXTS["greeting.zh"]}\n\n${DEFAULT_TEXTS["productMenu.zh"]}`);
    await says(wei, "36");
    expect(botSaid(wei)[2]).toBe(DEFAULT_TEXTS["handover.zh"]);
    expect(await labelsOf((await ticketOf(wei)).id)).toEqual(["Chinese", "Other Enquiries"]);

    // the whole map at the language menu: 25 is Malay + Commercial Display
    const raj = customer("Raj");
    await says(raj, "hi");
    await says(raj, "25");
    expect(botSaid(raj)[1]).toBe(DEFAULT_TEXTS["handover.ms"]);
    expect(await labelsOf((await ticketOf(raj)).id)).toEqual(["Commercial Display", "Malay"]);
    expect((await ticketOf(raj)).status).toBe(0);
  });

  it("answers keyword rules before the menu, and a rule may hand over", async () => {
    const { db, schema } = t.handle;
    await db.insert(schema.wauchatRules).values([
      { keywords: "price, 价格", answer: "Our prices are on example.com/prices.", handover: false, createdAt: Date.now() },
      { keywords: "refund", answer: "Refunds are handled by our team.", handover: true, createdAt: Date.now() },
    ]);
    try {
      const lee = customer("Lee");
      await says(lee, "hi");
      await says(lee, "What is the PRICE of the TV?");
      expect(botSaid(lee)[1]).toBe("Our prices are on example.com/prices.");
      // a word inside another word is not the keyword; the menu goes on
      await says(lee, "priceless");
      expect(botSaid(lee)[2]).toBe(
        `${DEFAULT_TEXTS["notUnderstood.en"].split("\n")[0]}\n${DEFAULT_TEXTS["notUnderstood.ms"]}\n${DEFAULT_TEXTS["notUnderstood.zh"]}\n\n${DEFAULT_TEXTS.welcome}`,
      );
      await says(lee, "电视价格多少");
      expect(botSaid(lee)[3]).toBe("Our prices are on example.com/prices.");
      expect((await ticketOf(lee)).status).toBe(1);
      await says(lee, "I want a refund");
      expect(botSaid(lee)[4]).toContain("Refunds are handled by our team.");
      expect((await ticketOf(lee)).status).toBe(0);
      expect((await stateOf((await ticketOf(lee)).id)).endedBy).toBe("rule");
    } finally {
      await db.delete(schema.wauchatRules);
    }
  });

  it("hands over at once on agent / human and on the admin's handover words", async () => {
    const ali = customer("Ali");
    await says(ali, "hi");
    await says(ali, "Can I talk to a HUMAN please");
    expect((await ticketOf(ali)).status).toBe(0);
    expect((await stateOf((await ticketOf(ali)).id)).endedBy).toBe("words");
    // no language chosen yet: the handover is said in all three
    expect(botSaid(ali)[1]).toBe([DEFAULT_TEXTS["handover.en"], DEFAULT_TEXTS["handover.ms"], DEFAULT_TEXTS["handover.zh"]].join("\n"));

    const mei = customer("Mei");
    await says(mei, "hi");
    await says(mei, "3");
    await says(mei, "我要人工服务"); // 人工: a default handover word of the admin's list
    expect(botSaid(mei)[2]).toBe(DEFAULT_TEXTS["handover.zh"]);
    expect((await ticketOf(mei)).status).toBe(0);

    const first = customer("Agent Smith's fan");
    await says(first, "agent");
    expect(botSaid(first)).toHaveLength(1);
    expect((await ticketOf(first)).status).toBe(0);
  });

  it("shows the menu again on a wrong answer and hands over after the third", async () => {
    const kim = customer("Kim");
    await says(kim, "hi");
    await says(kim, "1");
    await says(kim, "9");
    expect(botSaid(kim)[2]).toBe(`${DEFAULT_TEXTS["notUnderstood.en"]}\n\n${DEFAULT_TEXTS["productMenu.en"]}`);
    await says(kim, "tv please");
    expect(botSaid(kim)[3]).toBe(`${DEFAULT_TEXTS["notUnderstood.en"]}\n\n${DEFAULT_TEXTS["productMenu.en"]}`);
    expect((await ticketOf(kim)).status).toBe(1);
    await says(kim, "???");
    expect(botSaid(kim)[4]).toBe(`${DEFAULT_TEXTS["notUnderstood.en"]}\n\n${DEFAULT_TEXTS["handover.en"]}`);
    const ticket = await ticketOf(kim);
    expect(ticket.status).toBe(0);
    expect(await stateOf(ticket.id)).toMatchObject({ stage: "human", misses: 3, endedBy: "misses" });
    expect(await labelsOf(ticket.id)).toEqual(["English"]);
  });

  it("stops once an agent replies in the conversation", async () => {
    const tan = customer("Tan");
    await says(tan, "hi");
    const ticket = await ticketOf(tan);
    await conversation.reply(admin, ticket, { body: "Hi Tan, I am here.", files: [] });
    await drain();
    await says(tan, "1");
    // the agent's reply went out; the bot said nothing after its greeting
    expect(botSaid(tan)).toEqual([DEFAULT_TEXTS.welcome, "Hi Tan, I am here."]);
    expect(await stateOf(ticket.id)).toMatchObject({ stage: "human", endedBy: "agent" });
    expect((await ticketOf(tan)).status).toBe(0);
  });

  it("judges two quick messages each against the menu the previous answer left, whichever job runs first", async () => {
    const lee = customer("Lee");
    await says(lee, "hi");
    const ticket = await ticketOf(lee);
    // "1" then "13" at once: both stored before either is answered
    for (const text of ["1", "13"])
      await webhookCall(
        new Request(`http://localhost/hooks/channels/${account.id}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
          body: JSON.stringify(tg.update(lee, { text })),
        }),
        String(account.id),
      );
    const { db, schema } = t.handle;
    const e = schema.inboundEvents;
    for (const event of await db
      .select()
      .from(e)
      .where(and(eq(e.accountId, account.id), eq(e.state, "received")))
      .orderBy(asc(e.id)))
      await processInboundEvent(event.id);
    const [one, thirteen] = (await messagesOf(ticket.id)).filter((m) => !m.senderUserId && ["1", "13"].includes(m.body));
    // the later message's answer first: it waits for the earlier one's, using no attempt
    const waited = await answer({ ticketId: ticket.id, messageId: thirteen.id, text: "13" }).catch((error) => error);
    expect(isWaitAndRetry(waited)).toBe(true);
    // both jobs side by side, then whatever is left
    await Promise.all([worker().runOnce(), worker().runOnce()]);
    for (let pass = 0; pass < 5; pass++) {
      await db.update(schema.jobs).set({ runAt: Date.now() }).where(eq(schema.jobs.state, "queued"));
      await drain();
    }
    expect(botSaid(lee)).toEqual([
      DEFAULT_TEXTS.welcome,
      `${DEFAULT_TEXTS["greeting.en"]}\n\n${DEFAULT_TEXTS["productMenu.en"]}`,
      DEFAULT_TEXTS["handover.en"],
    ]);
    expect(await stateOf(ticket.id)).toMatchObject({ stage: "human", language: "en", product: "refrigerator", misses: 0 });
  });

  it("answers a message once however often its job runs, also side by side", async () => {
    const ong = customer("Ong");
    await says(ong, "hi");
    const ticket = await ticketOf(ong);
    const { db, schema } = t.handle;
    const [message] = await db
      .insert(schema.messages)
      .values({ ticketId: ticket.id, type: "text", body: "1", senderName: "Ong", createdAt: Date.now() })
      .returning();
    const payload = { ticketId: ticket.id, messageId: message.id, text: "1" };
    const runs = await Promise.all([answer(payload), answer(payload)]);
    expect(runs.filter(Boolean)).toHaveLength(1);
    expect(await answer(payload)).toBeNull();
    // the job itself, run again after a crash, finds the answer written
    await db.insert(schema.jobs).values({ kind: ANSWER_JOB, key: "again", payload: JSON.stringify(payload), runAt: Date.now(), createdAt: Date.now() });
    await drain();
    const fromBot = (await messagesOf(ticket.id)).filter((m) => m.senderUserId);
    expect(fromBot.map((m) => m.body.split("\n")[0])).toEqual([DEFAULT_TEXTS.welcome.split("\n")[0], DEFAULT_TEXTS["greeting.en"]]);
    expect(botSaid(ong)).toHaveLength(2);
  });

  it("leaves an account without the bot a plain conversation", async () => {
    const plain = await addAccount(false);
    const rosa = customer("Rosa");
    await says(rosa, "hello", plain);
    const ticket = await ticketOf(rosa);
    expect(ticket).toMatchObject({ status: 0, channelAccountId: plain.id });
    expect(await stateOf(ticket.id)).toBeUndefined();
    expect(botSaid(rosa)).toEqual([]);
    const { db, schema } = t.handle;
    expect(await db.select().from(schema.jobs).where(eq(schema.jobs.kind, ANSWER_JOB))).toEqual([]);
    expect((await messagesOf(ticket.id)).map((m) => m.body)).toEqual(["hello"]);
  });

  describe("the admin page", () => {
    const post = (fields: Record<string, string>, cookie = adminCookie) =>
      new Request("http://localhost/settings/wauchat", {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      });
    const act = (fields: Record<string, string>, cookie = adminCookie) => settle(() => settingsAction({ request: post(fields, cookie), params: {}, context }));
    const audits = async (prefix: string) => {
      const { db, schema } = t.handle;
      return (await db.select().from(schema.auditLog).orderBy(asc(schema.auditLog.id))).filter((a) => a.action.startsWith(prefix));
    };

    it("keeps agents out", async () => {
      const page = await settle(() =>
        settingsLoader({ request: new Request("http://localhost/settings/wauchat", { headers: { Cookie: agentCookie } }), params: {}, context }),
      );
      expect(page.status).toBe(403);
      const posted = await act({ intent: "rule_add", keywords: "x", answer: "y" }, agentCookie);
      expect(posted.status).toBe(403);
      const { db, schema } = t.handle;
      expect(await db.select().from(schema.wauchatRules)).toEqual([]);
    });

    it("adds, edits and deletes a keyword rule; refuses an empty one with messages and keeps what was typed", async () => {
      const refused = await act({ intent: "rule_add", keywords: " , ", answer: "" });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        intent: "rule_add",
        errors: { keywords: "plugin_wauchat.errors.keywordsRequired", answer: "plugin_wauchat.errors.required" },
        values: { keywords: " , " },
      });
      const long = await act({ intent: "rule_add", keywords: `warranty, ${"w".repeat(61)}`, answer: "ok" });
      expect((await long.json()).errors).toEqual({ keywords: "plugin_wauchat.errors.wordTooLong" });

      const added = await act({ intent: "rule_add", keywords: "Warranty ,  guarantee", answer: "Two years.", handover: "1" });
      expect(added.status).toBe(302);
      expect(added.headers.get("Location")).toBe("/settings/wauchat?saved=rule");
      const { db, schema } = t.handle;
      const [rule] = await db.select().from(schema.wauchatRules);
      expect(rule).toMatchObject({ keywords: "warranty, guarantee", answer: "Two years.", handover: true });

      const bad = await act({ intent: "rule_save", id: String(rule.id), keywords: "warranty", answer: "" });
      expect(await bad.json()).toMatchObject({ intent: `rule_${rule.id}`, errors: { answer: "plugin_wauchat.errors.required" } });
      expect((await act({ intent: "rule_save", id: String(rule.id), keywords: "warranty", answer: "Three years." })).status).toBe(302);
      expect((await db.select().from(schema.wauchatRules))[0]).toMatchObject({ keywords: "warranty", answer: "Three years.", handover: false });

      // the edited rule answers customers
      const yap = customer("Yap");
      await says(yap, "hi");
      await says(yap, "how long is the warranty");
      expect(botSaid(yap)[1]).toBe("Three years.");

      expect((await act({ intent: "rule_delete", id: String(rule.id) })).headers.get("Location")).toBe("/settings/wauchat?saved=deleted");
      expect(await db.select().from(schema.wauchatRules)).toEqual([]);
      const gone = await act({ intent: "rule_delete", id: String(rule.id) });
      expect(gone.status).toBe(404);
      expect((await gone.json()).message).toBe("plugin_wauchat.errors.ruleGone");
      expect((await audits("wauchat.rule")).map((a) => a.action)).toEqual(["wauchat.rule_create", "wauchat.rule_update", "wauchat.rule_delete"]);
    });

    it("edits the texts and the handover words, refusing empty or overlong ones", async () => {
      const texts = Object.fromEntries(Object.entries(DEFAULT_TEXTS).map(([k, v]) => [`text.${k}`, v]));
      const refused = await act({ intent: "texts", ...texts, "text.greeting.ms": "  ", "text.handover.zh": "x".repeat(1001) });
      expect(refused.status).toBe(400);
      expect((await refused.json()).errors).toEqual({
        "text.greeting.ms": "plugin_wauchat.errors.required",
        "text.handover.zh": "plugin_wauchat.errors.tooLong",
      });
      expect((await act({ intent: "texts", ...texts, "text.welcome": "Hi! 1 English 2 Melayu 3 中文" })).status).toBe(302);
      expect((await act({ intent: "handover", handoverWords: "operator, ejen" })).status).toBe(302);
      const tooLong = await act({ intent: "handover", handoverWords: "y".repeat(61) });
      expect((await tooLong.json()).errors).toEqual({ handoverWords: "plugin_wauchat.errors.wordTooLong" });
      expect((await audits("wauchat.")).map((a) => a.action)).toEqual(expect.arrayContaining(["wauchat.texts", "wauchat.handover_words"]));
      try {
        const sam = customer("Sam");
        await says(sam, "hi");
        expect(botSaid(sam)).toEqual(["Hi! 1 English 2 Melayu 3 中文"]);
        await says(sam, "operator");
        expect((await ticketOf(sam)).status).toBe(0);
      } finally {
        await t.handle.db.delete(t.handle.schema.wauchatSettings);
      }
    });

    it("switches the bot off and on for an account", async () => {
      const off = await act({ intent: "account", id: String(account.id), on: "0" });
      expect(off.status).toBe(302);
      const lim = customer("Lim");
      await says(lim, "hello");
      expect((await ticketOf(lim)).status).toBe(0);
      expect(botSaid(lim)).toEqual([]);
      expect((await act({ intent: "account", id: "999999", on: "1" })).status).toBe(404);
      expect((await act({ intent: "account", id: String(account.id), on: "1" })).status).toBe(302);
      const page = (await settingsLoader({
        request: new Request("http://localhost/settings/wauchat", { headers: { Cookie: adminCookie } }),
        params: {},
        context,
      })) as Response;
      const data = await page.json();
      expect(data.accounts.find((a: { id: number }) => a.id === account.id)).toMatchObject({ bot: true, kind: "TELEGRAM" });
      expect((await audits("wauchat.account")).map((a) => a.action).slice(-2)).toEqual(["wauchat.account_off", "wauchat.account_on"]);
    });
  });

  describe("GET /api/wauchat", () => {
    const call = (query: Record<string, string>, token: string | null = agentToken) =>
      settle(() =>
        apiLoader({
          request: new Request(`http://localhost/api/wauchat?${new URLSearchParams({ ...query, ...(token ? { _token: token } : {}) })}`),
          params: {},
          context,
        }),
      );

    it("talks to the bot on a WAUCHAT ticket, hands over, then fetches the agent's replies", async () => {
      const first = await call({ type: "kiosk-1", message: "hello" });
      expect(first.status).toBe(200);
      const body = await first.json();
      expect(body).toMatchObject({
        result: "success",
        data: { status: 1, with: "bot", messages: [{ from: "bot", name: "Bot", text: DEFAULT_TEXTS.welcome }] },
      });
      const { db, schema } = t.handle;
      const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.ticketNumber, body.data.ticket));
      expect(ticket).toMatchObject({ channel: "WAUCHAT", status: 1, contactName: agent.name, channelAccountId: null });
      // reports count it in the spec's "chatbot" channel group
      expect(channelGroup(ticket.channel)).toBe("chatbot");

      await call({ type: "kiosk-1", message: "2" });
      const handed = await (await call({ type: "kiosk-1", message: "21" })).json();
      expect(handed.data).toMatchObject({
        ticket: body.data.ticket,
        status: 0,
        with: "agent",
        messages: [{ from: "bot", text: DEFAULT_TEXTS["handover.ms"] }],
      });
      expect(await labelsOf(ticket.id)).toEqual(["Malay", "TV"]);

      // another type is another conversation of the same caller
      const phone = await (await call({ type: "phone", message: "hi" })).json();
      expect(phone.data.ticket).not.toBe(body.data.ticket);

      const lastId = handed.data.messages.at(-1).id;
      await conversation.reply(admin, (await conversation.conversationById(admin, ticket.id))!, { body: "Selamat datang, saya Ejen Admin.", files: [] });
      const fetched = await (await call({ type: "kiosk-1", after: String(lastId) })).json();
      expect(fetched.data.messages).toMatchObject([{ from: "agent", name: admin.name, text: "Selamat datang, saya Ejen Admin." }]);
      // the customer's next message stays with the agent
      const next = await (await call({ type: "kiosk-1", message: "terima kasih" })).json();
      expect(next.data).toMatchObject({ with: "agent", messages: [] });
      expect(
        await db
          .select()
          .from(schema.messages)
          .where(and(eq(schema.messages.ticketId, ticket.id), inArray(schema.messages.body, ["terima kasih"]))),
      ).toHaveLength(1);
    });

    it("answers errors in the JSON twins' shape", async () => {
      const noToken = await call({ message: "hi" }, null);
      expect(noToken.status).toBe(403);
      expect(await noToken.json()).toEqual({ result: "failed", description: "Session expired. Please log in again." });
      const badType = await call({ type: "no spaces!", message: "hi" });
      expect(badType.status).toBe(400);
      expect((await badType.json()).result).toBe("failed");
      const tooLong = await call({ message: "x".repeat(20_001) });
      expect(await tooLong.json()).toEqual({ result: "failed", description: "The message is too long." });
      const nothing = await call({ type: "never-used" });
      expect(nothing.status).toBe(404);
    });
  });
});
