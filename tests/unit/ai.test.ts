// The AI plugin, on both dialects: the offline analyser (English, Malay and Chinese honestly less
// sure, a 100 KB message read in part and quickly), the analysis job over every new message (once
// however often it runs), its rows and the ticket's roll-up (emotion_2 counts, customer and agent
// emotion, context, tickets.emotion for the list's filter), the emotion and context panels, the
// settings (the key sealed at rest, the change audited, 'AI is not configured' when off).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { receive } from "~/conversation/receive.server";
import { createJobWorker } from "~/jobs/queue.server";
import { analyseText, detectLanguage, MAX_CHARS } from "@plugins/ai/analyse";
import { analysePending, defineAnalyseJob, pendingMessages, queueAnalysis, storeAnalysis, ticketAnalysis } from "@plugins/ai/analysis.server";
import { aiPanels } from "@plugins/ai/panel.server";
import { aiSettings, DEFAULTS, forgetSettings, leavesMachine, saveSettings, settingsSchema } from "@plugins/ai/settings.server";
import { resetServiceState } from "@plugins/ai/service.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-ai-data-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe("the offline analyser", () => {
  it("reads an angry English complaint as anger, with a confidence above the 0.5 threshold, and what the customer wants", () => {
    const a = analyseText("This is RIDICULOUS. I have waited three weeks and my parcel still hasn't arrived. Worst service ever!!!");
    expect(a).toMatchObject({ language: "en", emotion: "anger", classification: "delivery", degraded: false, truncated: false });
    expect(a.confidence).toBeGreaterThan(0.5);
    expect(a.context.intent).toBe("receive_order");
    expect(a.context.subject).toContain("parcel");
  });

  it("tells the seven emotions apart on plain messages", () => {
    expect(analyseText("I'm really worried someone hacked my account, there are logins I don't recognise").emotion).toBe("fear");
    expect(analyseText("Thank you so much, that fixed it, great job!").emotion).toBe("happy");
    expect(analyseText("I love this app, best service I've used, I recommend you to all my friends").emotion).toBe("love");
    expect(analyseText("I'm so sad, the gift for my mother's funeral never came").emotion).toBe("sad");
    expect(analyseText("Wow, I did not expect a second parcel to arrive today, suddenly two boxes").emotion).toBe("surprise");
    expect(analyseText("How do I change the delivery address on my order?").emotion).toBe("curious");
  });

  it("is not fooled by a negation: 'not happy' is not happy", () => {
    const a = analyseText("I am not happy with this at all");
    expect(a.emotion).not.toBe("happy");
  });

  it("keeps a denied topic its topic, reads staff words by tone, and a pained question by its pain", () => {
    // a negation turns an emotion around, never the subject: a refund that did not come is about the refund
    expect(analyseText("I was told no refunds on opened items").classification).toBe("refund");
    // the staff: a complaint in a cold message, praise in a warm one
    expect(analyseText("The sales assistant was sarcastic and condescending").classification).toBe("complaint");
    expect(analyseText("Your staff were wonderful today").classification).toBe("praise");
    // a question asked in fear is fear; one weak topic word does not pull a general question away from inquiry
    expect(analyseText("The power bank started smoking. Is it going to explode?").emotion).toBe("fear");
    expect(analyseText("Is there a warranty on refurbished phones?").classification).toBe("inquiry");
  });

  it("reads Malay and Chinese with a lower confidence, and says so", () => {
    const ms = analyseText("Saya sangat marah, barang saya belum sampai lagi! Saya nak bayaran balik.");
    expect(ms).toMatchObject({ language: "ms", emotion: "anger", degraded: true });
    expect(ms.confidence).toBeLessThanOrEqual(0.7);
    const zh = analyseText("我的包裹还没到，太差了，我要投诉！");
    expect(zh).toMatchObject({ language: "zh", emotion: "anger", degraded: true });
    expect(zh.confidence).toBeLessThanOrEqual(0.6);
    // a language it has no lexicon for: an English reading at a much lower confidence
    const fr = analyseText("Bonjour, je voudrais savoir où est ma commande, merci beaucoup pour votre aide");
    expect(fr.degraded).toBe(true);
    expect(fr.confidence).toBeLessThan(0.4);
  });

  it("reads English with a tracking code and a link in it as English, whatever the code's letters", () => {
    // these codes once tipped the language detector to Klingon, Berber or German (a near tie)
    for (const code of ["gondolamx2qpwz2b", "gondolamx3nq1cpb", "gondolamx4g0fecb"]) {
      const text = `This is RIDICULOUS! My ${code} parcel is three weeks late and nobody answers. I'm furious!!! Your bank page at maybank2u-login.com asked for my TAC number.`;
      expect(analyseText(text)).toMatchObject({ language: "en", emotion: "anger", degraded: false });
    }
    expect(detectLanguage("Saya nak tahu bila barang saya ABX123Z9 sampai, dah seminggu tunggu")).toBe("ms");
  });

  it("reads a 100 KB message in part (truncated, said) without taking long", () => {
    const big = "I am furious, my order is late again! ".repeat(2_700);
    expect(big.length).toBeGreaterThan(100_000);
    analyseText("warm up the model"); // the first call loads wink's model
    const started = performance.now();
    const a = analyseText(big);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(a).toMatchObject({ truncated: true, emotion: "anger" });
    // one 100 KB word is no trouble either
    const word = analyseText("x".repeat(100_000));
    expect(word.truncated).toBe(true);
    expect(word.context.subject.length).toBeLessThanOrEqual(30 * 3 + 4);
  });

  it("gives a personality type from how the message is written", () => {
    expect(analyseText("Fix this now. I need it today!").personality).toBe("driver");
    expect(analyseText("Could you kindly help me? Thank you so much, sorry for the trouble").personality).toBe("amiable");
    expect(analyseText("OMG wow I totally love it!!! 😍😍").personality).toBe("expressive");
    expect(
      analyseText(
        "Invoice 100234 shows 3 items but order 558812 had 2; specifically, the version number differs. Why? Which step is wrong? Please compare the details.",
      ).personality,
    ).toBe("analytical");
  });
});

describe("settings", () => {
  it("says whether anything leaves the machine", () => {
    expect(leavesMachine({ adapter: "offline", baseUrl: "https://api.openai.com/v1" })).toEqual({ leaves: false, host: "" });
    expect(leavesMachine({ adapter: "openai", baseUrl: "https://api.openai.com/v1" })).toEqual({ leaves: true, host: "api.openai.com" });
    expect(leavesMachine({ adapter: "openai", baseUrl: "http://127.0.0.1:11434/v1" })).toEqual({ leaves: false, host: "127.0.0.1:11434" });
  });

  it("refuses an outside adapter without an address or a model, and limits out of range", () => {
    const base = { ...DEFAULTS, adapter: "openai", apiKey: "" };
    const r = settingsSchema.safeParse({ ...base, baseUrl: "ftp://x", model: "" });
    expect(r.success).toBe(false);
    const fields = r.success ? [] : r.error.issues.map((i) => i.path[0]);
    expect(fields).toEqual(expect.arrayContaining(["baseUrl", "model"]));
    expect(settingsSchema.safeParse({ ...base, adapter: "offline", timeoutMs: "5" }).success).toBe(false);
    expect(settingsSchema.safeParse({ ...base, adapter: "offline", dailyBudget: "1.5" }).success).toBe(false);
  });
});

describe.each(DIALECTS)("AI analysis (%s)", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let admin: UserRow;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    agent = (await findUserByUsername("agent"))!;
    admin = (await findUserByUsername("admin"))!;
    defineAnalyseJob();
  }, 60_000);
  afterAll(async () => t?.cleanup());
  beforeEach(async () => {
    resetServiceState();
    await saveSettings({ ...DEFAULTS, adapter: "offline" });
  });

  const customerWrites = async (body: string, ticketId?: number) => {
    const written = await receive({
      ticket: ticketId
        ? { id: ticketId }
        : {
            channel: "EMAIL",
            title: `AI test ${++seq}`,
            contactName: "Casey",
            contactEmail: `casey${seq}@example.com`,
            contactPhone: "",
            customerId: "",
            departmentId: agent.departmentId,
            receiverEmail: "",
            channelAccountId: null,
          },
      message: { body, type: "text", senderName: "Casey" },
      files: [],
    } as Parameters<typeof receive>[0]);
    return written;
  };
  const analysisRows = async (ticketId: number) => {
    const { db, schema } = t.handle;
    return db.select().from(schema.aiMessageAnalysis).where(eq(schema.aiMessageAnalysis.ticketId, ticketId));
  };
  const ticketEmotion = async (ticketId: number) => {
    const { db, schema } = t.handle;
    const [row] = await db.select({ emotion: schema.tickets.emotion }).from(schema.tickets).where(eq(schema.tickets.id, ticketId));
    return row.emotion;
  };
  const panelInput = (ticket: { id: number; ticketNumber: number }) =>
    ({
      ticket: { id: ticket.id, ticketNumber: ticket.ticketNumber, kind: "ticket", channel: "EMAIL", departmentId: agent.departmentId },
      reader: agent,
      viewer: { type: "agent", permissions: {}, clientId: 0, plan: 99, variant: "default" },
    }) as unknown as Parameters<typeof aiPanels>[0];

  it("analyses a new customer message in the job: the row, the roll-up and the ticket's emotion for the list's filter", async () => {
    const { ticket } = await customerWrites("This is unacceptable! I was charged twice and nobody answers. I want my money back NOW!!!");
    const [first] = await pendingMessages(0, 1);
    expect(first.ticketId).toBe(ticket.id);
    await queueAnalysis(first.id);
    await queueAnalysis(first.id); // a second node seeing the same work queues nothing more
    const worker = createJobWorker({ log: () => undefined });
    expect(await worker.runOnce()).toBe(1);
    const rows = await analysisRows(ticket.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ fromCustomer: true, emotion: "anger", language: "en", analyser: "offline-1" });
    expect(rows[0].confidence).toBeGreaterThanOrEqual(50);
    expect(await ticketEmotion(ticket.id)).toBe("anger");
    const rollup = await ticketAnalysis(ticket.id);
    expect(rollup).toMatchObject({ customerEmotion: "anger", emotionCounts: { anger: 1 } });
    expect(["billing", "refund", "complaint"]).toContain(rollup!.classification);
  });

  it("stores each message once however often the job runs, and rolls the counts up over the ticket", async () => {
    const { ticket } = await customerWrites("Where is my parcel? The tracking number shows nothing.");
    await customerWrites("This is ridiculous, still nothing, worst courier ever!!!", ticket.id);
    await analysePending(0);
    await analysePending(0);
    const rows = await analysisRows(ticket.id);
    expect(rows).toHaveLength(2);
    // storing one again changes nothing
    expect(await storeAnalysis({ id: rows[0].messageId, ticketId: ticket.id, senderUserId: null }, analyseText("I love you"))).toBe(false);
    const rollup = await ticketAnalysis(ticket.id);
    expect(rollup!.emotionCounts).toEqual({ curious: 1, anger: 1 });
    // the latest strong customer emotion names the ticket, and the latest message the classification
    expect(rollup!.customerEmotion).toBe("anger");
    expect(rollup!.classification).toBe("complaint");
    expect(await pendingMessages(0, 10)).toEqual([]);
  });

  it("reads an agent's message for agentEmotion without touching the customer's", async () => {
    const { ticket } = await customerWrites("I'm worried, I think someone stole my card and used it!");
    const { db, schema } = t.handle;
    const [message] = await db
      .insert(schema.messages)
      .values({
        ticketId: ticket.id,
        type: "text",
        body: "Thank you so much for telling us, we are happy to help and glad you wrote.",
        senderUserId: agent.id,
        senderName: "",
        createdAt: Date.now(),
      })
      .returning();
    await analysePending(0);
    const rows = await analysisRows(ticket.id);
    expect(rows.find((r) => r.messageId === message.id)).toMatchObject({ fromCustomer: false, emotion: "happy" });
    expect(await ticketAnalysis(ticket.id)).toMatchObject({ customerEmotion: "fear", agentEmotion: "happy", emotionCounts: { fear: 1 } });
    expect(await ticketEmotion(ticket.id)).toBe("fear");
  });

  it("shows the emotion and context panels, with Malay's weaker reading said", async () => {
    const { ticket } = await customerWrites("Saya sangat marah, bungkusan saya belum sampai lagi!");
    expect((await aiPanels(panelInput(ticket)))!.slice(0, 2)).toMatchObject([{ id: "ai-emotion", empty: "plugin_ai.panel.notYet" }, { id: "ai-context" }]);
    await analysePending(0);
    const [emotion, context] = (await aiPanels(panelInput(ticket)))!;
    expect(emotion.items[0].label).toMatchObject({ key: "plugin_ai.panel.emotion.customer", values: { emotion: "t:plugin_ai.emotion.anger" } });
    expect(emotion.items.map((i) => ("key" in i.label ? i.label.key : ""))).toContain("plugin_ai.panel.degraded");
    expect(context.items[0].label).toMatchObject({ key: "plugin_ai.panel.context.wants", values: { intent: "t:plugin_ai.intent.receive_order" } });
  });

  it("analyses a 100 KB message in part and says so on the panel", async () => {
    const { ticket } = await customerWrites("My order is late and I am furious! ".repeat(3_000));
    await analysePending(0);
    const [emotion] = (await aiPanels(panelInput(ticket)))!;
    expect(emotion.items.map((i) => ("key" in i.label ? i.label.key : ""))).toContain("plugin_ai.panel.truncated");
  });

  it("analyses nothing while AI is off, and the panels say 'AI is not configured'", async () => {
    await saveSettings({ ...DEFAULTS, adapter: "off" }, { actor: { id: admin.id, name: admin.username } });
    const { ticket } = await customerWrites("Terrible, I want a refund!");
    expect(await analysePending(0)).toBe(0);
    expect(await analysisRows(ticket.id)).toEqual([]);
    const panels = (await aiPanels(panelInput(ticket)))!;
    // emotion, context, recommendations and risk; translation says it needs an outside model
    expect(panels.map((p) => p.empty)).toEqual([
      "plugin_ai.state.notConfigured",
      "plugin_ai.state.notConfigured",
      "plugin_ai.state.notConfigured",
      "plugin_ai.state.notConfigured",
      undefined,
    ]);
    expect(panels[4].items[0].label).toEqual({ key: "plugin_ai.translate.notConfigured" });
    const { db, schema } = t.handle;
    const [entry] = await db.select().from(schema.auditLog).where(eq(schema.auditLog.action, "ai.settings"));
    expect(entry).toBeDefined();
  });

  it("keeps the outside model's key sealed at rest, never in the audit log, and keeps it when the field is left empty", async () => {
    await saveSettings(
      { ...DEFAULTS, adapter: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: "sk-very-secret" },
      { actor: { id: admin.id, name: admin.username } },
    );
    const { db, schema } = t.handle;
    const [stored] = await db.select().from(schema.aiSettings).where(eq(schema.aiSettings.key, "apiKey"));
    expect(stored.value.startsWith("sealed:v1:")).toBe(true);
    expect(stored.value).not.toContain("sk-very-secret");
    expect((await aiSettings(true)).apiKey).toBe("sk-very-secret");
    const audits = await db.select().from(schema.auditLog).where(eq(schema.auditLog.action, "ai.settings"));
    expect(JSON.stringify(audits)).not.toContain("sk-very-secret");
    await saveSettings({ ...DEFAULTS, adapter: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m2", apiKey: "" });
    forgetSettings();
    expect((await aiSettings(true)).apiKey).toBe("sk-very-secret");
    await saveSettings({ ...DEFAULTS, adapter: "offline", apiKey: "", clearKey: "1" });
    expect((await aiSettings(true)).apiKey).toBe("");
  });
});
