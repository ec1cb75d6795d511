// Translation (plugins/ai/translate.server.ts and its panel) on both dialects, through the
// OpenAI-compatible adapter against the local stand-in: choosing a language other than the
// customer's translates the visitor's messages (stored per language, the originals unchanged)
// and the Translation panel shows them, each linking to its original; choosing the customer's own
// language only sets it; offline, the real Apertium translates where Debian's pair is installed
// (.ci/run installs apertium-eng-spa) and translation says the pair is not available elsewhere
// (the choice is still kept); with AI off, it is not configured; a model that times out or answers garbage is "unavailable"; only the texts leave the
// machine, as data, and an answer that carries the prompt is refused.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, isNotNull } from "drizzle-orm";
import { findConversation } from "~/conversation/model.server";
import { sendReply } from "~/conversation/reply.server";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { phraseBookModel, startOpenAiStandin, type OpenAiStandin } from "../support/openai-standin";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { receive } from "~/conversation/receive.server";
import { chosenLanguage, readTranslations, setLanguage, storedTranslations, TRANSLATE_PROMPT, translateTexts } from "@plugins/ai/translate.server";
import { aiPanels } from "@plugins/ai/panel.server";
import { DEFAULTS, saveSettings } from "@plugins/ai/settings.server";
import { resetServiceState } from "@plugins/ai/service.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-ai-translate-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const MALAY = "Saya sangat marah, bungkusan saya belum sampai lagi!";
const ENGLISH = "I am very angry, my parcel has not arrived yet!";
const SPANISH = "Hola, mi pedido no ha llegado todavía. ¿Pueden revisarlo, por favor?";

let standin: OpenAiStandin;
beforeAll(async () => {
  standin = await startOpenAiStandin();
});
afterAll(async () => standin?.close());

describe("reading the model's translations", () => {
  it("takes one translation per id, and refuses a missing one or one that repeats the prompt", () => {
    const items = [{ id: 7, text: MALAY }];
    expect(readTranslations(JSON.stringify({ texts: [{ id: 7, text: ENGLISH }] }), items)).toEqual([{ id: 7, text: ENGLISH }]);
    expect(() => readTranslations(JSON.stringify({ texts: [] }), items)).toThrow(/no usable translation/);
    expect(() => readTranslations(JSON.stringify({ texts: [{ id: 7, text: TRANSLATE_PROMPT }] }), items)).toThrow(/no usable translation/);
    expect(() => readTranslations("<html>", items)).toThrow(/JSON/);
  });
});

describe.each(DIALECTS)("translation of a conversation (%s)", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let seq = 0;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
  }, 60_000);
  afterAll(async () => t?.cleanup());
  beforeEach(async () => {
    resetServiceState();
    standin.mode = "reply";
    standin.requests.length = 0;
    standin.respond = phraseBookModel({ [MALAY]: ENGLISH, "Tolong bantu saya.": "Please help me." }, "not json");
    await saveSettings({
      ...DEFAULTS,
      adapter: "openai",
      baseUrl: standin.url,
      model: "standin-chat",
      embeddingModel: "",
      apiKey: standin.key,
      timeoutMs: 1_500,
    });
  });

  const visitorWrites = async (bodies: string[]) => {
    const first = await receive({
      ticket: {
        channel: "EMAIL",
        title: `Translate ${++seq}`,
        contactName: "Aminah",
        contactEmail: `aminah${seq}@example.my`,
        contactPhone: "",
        customerId: "",
        departmentId: agent.departmentId,
        receiverEmail: "",
        channelAccountId: null,
      },
      message: { body: bodies[0], type: "text", senderName: "" },
      files: [],
    });
    return first.ticket;
  };
  const panelOf = async (ticket: { id: number; ticketNumber: number }) =>
    (await aiPanels({
      ticket: { id: ticket.id, ticketNumber: ticket.ticketNumber, kind: "ticket", channel: "EMAIL", departmentId: agent.departmentId },
      reader: agent,
      viewer: {} as never,
    }))!.find((s) => s.id === "ai-translate")!;

  it("translates a Malay visitor's message into English when the agent chooses English, keeping the original", async () => {
    const ticket = await visitorWrites([MALAY]);
    const done = await setLanguage(ticket.id, "en");
    expect(done).toMatchObject({ translate: true, answer: { state: "ok" } });
    const { db, schema } = t.handle;
    const [message] = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticket.id));
    expect(message.body).toBe(MALAY);
    expect((await storedTranslations([message.id], "en")).get(message.id)).toBe(ENGLISH);
    const panel = await panelOf(ticket);
    expect(panel.items.map((i) => i.label)).toContainEqual({ text: ENGLISH });
    const item = panel.items.find((i) => "text" in i.label && i.label.text === ENGLISH)!;
    expect(item.actions![0]).toMatchObject({ label: { key: "plugin_ai.translate.original" }, href: `?message_id=${message.id}#m-${message.id}` });
    // only the texts, as data, left the machine
    const asked = standin.requests.map((r) => r.body.messages as { role: string; content: string }[]).filter((m) => m[0].content === TRANSLATE_PROMPT);
    expect(asked).toHaveLength(1);
    const sent = asked[0];
    expect(sent[1].content).toContain("Target language: English (en)");
    expect(sent[1].content).not.toContain("aminah");
    // and back: Malay, the customer's own language, only sets it
    expect(await setLanguage(ticket.id, "ms")).toEqual({ translate: false });
    expect(await chosenLanguage(ticket.id)).toBe("ms");
    expect((await panelOf(ticket)).empty).toBe("plugin_ai.translate.none");
  });

  it("offline, says the language pair is not available where Apertium has none (Malay to English), and keeps the choice", async () => {
    await saveSettings({ ...DEFAULTS });
    const ticket = await visitorWrites(["Tolong bantu saya."]);
    expect(await setLanguage(ticket.id, "en")).toEqual({ translate: true, answer: { state: "no_pair", source: "ms", target: "en" } });
    expect(await chosenLanguage(ticket.id)).toBe("en");
    expect((await panelOf(ticket)).items[0].label).toEqual({
      key: "plugin_ai.translate.noPair",
      values: { source: "t:plugin_ai.language.ms", target: "t:plugin_ai.language.en" },
    });
    await saveSettings({ ...DEFAULTS, adapter: "off" });
    expect(await translateTexts([{ id: 1, text: "x" }], "en")).toEqual({ state: "not_configured" });
    expect((await panelOf(ticket)).items[0].label).toEqual({ key: "plugin_ai.translate.notConfigured" });
  });

  it("offline, translates through the real Apertium where Debian's pair is installed (Spanish to English), storing it as Apertium's", async () => {
    await saveSettings({ ...DEFAULTS });
    const ticket = await visitorWrites([SPANISH]);
    const done = await setLanguage(ticket.id, "en");
    expect(done).toMatchObject({ translate: true, answer: { state: "ok", translator: "apertium" } });
    const { db, schema } = t.handle;
    const [message] = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticket.id));
    expect(message.body).toBe(SPANISH);
    const english = (await storedTranslations([message.id], "en")).get(message.id)!;
    // Apertium's rule-based English, word for word enough to check
    expect(english).toMatch(/my (order|request) has not arrived/i);
    const [row] = await db.select().from(schema.aiTranslations).where(eq(schema.aiTranslations.messageId, message.id));
    expect(row.translator).toBe("apertium");
    expect((await panelOf(ticket)).items.map((i) => i.label)).toContainEqual({ text: english });
    // and out again, English to Spanish, with the source given
    expect(await translateTexts([{ id: 1, text: "Thank you, your refund is on its way." }], "es", "en")).toMatchObject({
      state: "ok",
      texts: [{ id: 1, text: expect.stringMatching(/Gracias/) }],
    });
    // nothing leaves the machine: the stand-in heard nothing
    expect(standin.requests).toHaveLength(0);
  });

  it("translates the agent's reply into the customer's language on the way out, keeping what the agent wrote one click away", async () => {
    await saveSettings({ ...DEFAULTS });
    const ticket = await visitorWrites([SPANISH]);
    await setLanguage(ticket.id, "en");
    // before sending, the panel says the replies go out translated
    expect((await panelOf(ticket)).items.map((i) => i.label)).toContainEqual({
      key: "plugin_ai.translate.replyTranslated",
      values: { language: "t:plugin_ai.language.other" },
    });
    const row = await findConversation(agent, ticket.ticketNumber, "ticket");
    const written = "Thank you, your refund is on its way.";
    const sent = await sendReply({ ...agent, name: agent.username }, row, { fields: { message: written }, files: [], fileErrors: [], enabled: ["ai"] });
    expect(sent.ok).toBe(true);
    const { db, schema } = t.handle;
    const [reply] = await db
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.ticketId, ticket.id), isNotNull(schema.messages.senderUserId)));
    // what is written and delivered is the Spanish; the English original is kept beside it
    expect(reply.body).toMatch(/^Gracias/);
    expect(reply.body).not.toBe(written);
    expect((await storedTranslations([reply.id], "en")).get(reply.id)).toBe(written);
    const panel = await panelOf(ticket);
    const original = panel.items.find((i) => "text" in i.label && i.label.text === written)!;
    expect(original.actions![0]).toMatchObject({ label: { key: "plugin_ai.translate.sentText" }, href: `?message_id=${reply.id}#m-${reply.id}` });
    // without the AI plugin enabled, the reply goes out as written
    const plain = await sendReply({ ...agent, name: agent.username }, row, { fields: { message: "As written." }, files: [], fileErrors: [], enabled: [] });
    expect(plain.ok && plain.created[0].body).toBe("As written.");
  });

  it("tells the agent before sending that the reply will go out untranslated where no pair exists, and sends it as written", async () => {
    await saveSettings({ ...DEFAULTS });
    const ticket = await visitorWrites([MALAY]);
    await setLanguage(ticket.id, "en");
    expect((await panelOf(ticket)).items.map((i) => i.label)).toContainEqual({
      key: "plugin_ai.translate.replyUntranslated",
      values: { language: "t:plugin_ai.language.en" },
    });
    const row = await findConversation(agent, ticket.ticketNumber, "ticket");
    const sent = await sendReply({ ...agent, name: agent.username }, row, {
      fields: { message: "We are checking your parcel." },
      files: [],
      fileErrors: [],
      enabled: ["ai"],
    });
    expect(sent.ok && sent.created[0].body).toBe("We are checking your parcel.");
  });

  it("refuses to send, keeping the reply, when the outside translator fails at that moment", async () => {
    const ticket = await visitorWrites([MALAY]);
    await setLanguage(ticket.id, "en");
    standin.mode = "stall";
    const row = await findConversation(agent, ticket.ticketNumber, "ticket");
    expect(
      await sendReply({ ...agent, name: agent.username }, row, { fields: { message: "We are on it." }, files: [], fileErrors: [], enabled: ["ai"] }),
    ).toEqual({
      ok: false,
      message: "plugin_ai.translate.replyUnavailable",
    });
  });

  it("is unavailable, never hanging, when the model stalls or answers garbage", async () => {
    standin.mode = "stall";
    expect(await translateTexts([{ id: 1, text: "Tolong bantu saya." }], "zh")).toEqual({ state: "unavailable", reason: "timeout" });
    standin.mode = "garbage";
    expect(await translateTexts([{ id: 2, text: "Tolong bantu saya lagi." }], "zh")).toEqual({ state: "unavailable", reason: "bad_response" });
  });
});
