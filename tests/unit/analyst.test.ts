// The trading edition's analyst models on both dialects (plugins/analyst, plugins/customer_analysis,
// plugins/ai feedback and labels): recommendations kept as offered, one dismissed and one sent as
// offered by the agent's reply, counted per kind and week on /ai_learning; the agent's final label
// against the AI's prediction (/prediction_validator); what customers ask about, with a drill-down
// an agent of another department cannot see into; customer segments; trade alerts from a watched
// keyword, sent once to every admin in the trade category, never for an agent's own words.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { receive } from "~/conversation/receive.server";
import { reply } from "~/conversation/model.server";
import { analysePending } from "@plugins/ai/analysis.server";
import { ticketRecommendations } from "@plugins/ai/recommend.server";
import { resetServiceState } from "@plugins/ai/service.server";
import { acceptanceByWeek, compareReply, dismiss, dismissedKinds, weekOf } from "@plugins/ai/feedback.server";
import { accuracyByWeek, setFinalLabel } from "@plugins/ai/labels.server";
import { conversationInsight, conversationsAbout, topicCounts, topicTrend } from "@plugins/analyst/insight.server";
import { addAlertRule, checkMessages, removeAlertRule } from "@plugins/analyst/alerts.server";
import { customerSegments } from "@plugins/customer_analysis/segments.server";

const KL = "Asia/Kuala_Lumpur";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-analyst-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe("comparing a reply with a draft", () => {
  it("tells a draft sent whole, a draft edited and a reply of its own apart", () => {
    const draft = "I'm sorry for the trouble. I have refunded the double charge to your card today.";
    expect(compareReply(`Hello Ana,\n\n${draft}\n\nRegards`, draft)).toBe("used");
    expect(compareReply("Sorry for the trouble: I refunded the double charge to your card this morning.", draft)).toBe("edited");
    expect(compareReply("Could you send me a screenshot of the page?", draft)).toBeNull();
  });
});

describe.each(DIALECTS)("analyst models (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let seq = 0;
  const range = { from: 0, to: Date.now() + 86_400_000 };

  const customerWrites = async (body: string, departmentId: number | null = null, channel = "EMAIL") =>
    (
      await receive({
        ticket: {
          channel,
          title: `Analyst ${++seq}`,
          contactName: "Ana Lim",
          contactEmail: `ana${seq}@example.com`,
          contactPhone: "",
          customerId: "",
          departmentId,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body, type: "text", senderName: "" },
        files: [],
      })
    ).ticket;
  const row = async (id: number) => {
    const { db, schema } = t.handle;
    const [found] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, id));
    return found;
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    resetServiceState();
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("keeps recommendations as offered; a dismissal and a reply that sends a draft count on /ai_learning", async () => {
    const ticket = await customerWrites("I was charged twice for my invoice and I am furious, refund it now!");
    await analysePending(0);
    const answer = await ticketRecommendations({ ticketId: ticket.id, reader: admin });
    if (answer.state !== "ok") throw new Error(answer.state);
    expect(answer.recommendations).toHaveLength(5);
    const [first, second] = answer.recommendations;
    expect(await dismiss({ ticketId: ticket.id, messageId: answer.messageId!, kind: first.kind, userId: admin.id })).toBe(true);
    // a second dismissal, or one for another conversation, changes nothing
    expect(await dismiss({ ticketId: ticket.id, messageId: answer.messageId!, kind: first.kind, userId: admin.id })).toBe(false);
    expect([...(await dismissedKinds(answer.messageId!))]).toEqual([first.kind]);

    await reply({ ...admin, name: admin.name, username: admin.username }, await row(ticket.id), { body: `Hello,\n${second.whatToSay}`, files: [] });
    await analysePending(0);
    const { db, schema } = t.handle;
    const f = schema.aiRecommendationFeedback;
    const decided = await db.select({ kind: f.kind, outcome: f.outcome }).from(f).where(eq(f.ticketId, ticket.id));
    expect(decided.filter((d) => d.outcome).sort((a, b) => a.outcome.localeCompare(b.outcome))).toEqual([
      { kind: first.kind, outcome: "dismissed" },
      { kind: second.kind, outcome: "used" },
    ]);

    const weeks = await acceptanceByWeek(range.from, range.to, KL);
    expect(weeks.every((w) => w.week === weekOf(Date.now(), KL))).toBe(true);
    expect(weeks.find((w) => w.kind === first.kind)).toMatchObject({ dismissed: 1, acceptance: 0 });
    expect(weeks.find((w) => w.kind === second.kind)).toMatchObject({ used: 1, acceptance: 1 });
  });

  it("compares the AI's prediction with the agent's final label, week by week", async () => {
    const angry = await customerWrites("This is outrageous, my delivery never arrived and nobody answers! I am so angry.");
    const happy = await customerWrites("Thank you so much, the refund arrived, I love your service!");
    await analysePending(0);
    const { db, schema } = t.handle;
    const predicted = async (id: number) => (await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, id)))[0];
    const a = await predicted(angry.id);
    expect(a.customerEmotion).toBe("anger");
    await setFinalLabel({ ticketId: angry.id, userId: agent.id, emotion: a.customerEmotion, classification: a.classification });
    // the second one read as happy (set here: the reading's strength is the analyser's business)
    await db.update(schema.aiTicketAnalysis).set({ customerEmotion: "happy" }).where(eq(schema.aiTicketAnalysis.ticketId, happy.id));
    // the agent disagrees on its emotion, and leaves its classification unlabelled
    await setFinalLabel({ ticketId: happy.id, userId: agent.id, emotion: "sad", classification: "" });
    const [week] = await accuracyByWeek(range.from, range.to, KL);
    expect(week).toMatchObject({ week: weekOf(Date.now(), KL), emotionCompared: 2, emotionMatched: 1, classCompared: 1, classMatched: 1 });
  });

  it("cuts the prediction validator's weeks at the workspace's Monday midnight, daylight saving included", async () => {
    const labelAt = async (iso: string) => {
      const ticket = await customerWrites("Where is my parcel?");
      await analysePending(0); // the prediction the label is compared with
      await setFinalLabel({ ticketId: ticket.id, userId: agent.id, emotion: "curious", classification: "delivery" }, Date.parse(iso));
    };
    // Kuala Lumpur (UTC+8): Monday 3 March 2025 00:30 there is still Sunday in UTC
    await labelAt("2025-03-02T15:30:00Z"); // Sunday 23:30 in KL: the week of Monday 24 February
    await labelAt("2025-03-02T16:30:00Z"); // Monday 00:30 in KL: the week of Monday 3 March
    const march = { from: Date.parse("2025-02-20T00:00:00Z"), to: Date.parse("2025-03-06T00:00:00Z") };
    const kl = await accuracyByWeek(march.from, march.to, KL);
    expect(kl.map((w) => [new Date(w.week).toISOString(), w.emotionCompared])).toEqual([
      ["2025-02-23T16:00:00.000Z", 1],
      ["2025-03-02T16:00:00.000Z", 1],
    ]);
    // the same labels in UTC weeks fall in one week (what the page showed before)
    expect((await accuracyByWeek(march.from, march.to, "UTC")).map((w) => w.emotionCompared)).toEqual([2]);
    // New York moves its clocks on Sunday 9 March: each Monday starts at its own local midnight
    await labelAt("2025-03-10T03:30:00Z"); // Sunday 23:30 EDT
    await labelAt("2025-03-10T04:30:00Z"); // Monday 00:30 EDT
    await labelAt("2025-03-03T05:30:00Z"); // Monday 00:30 EST, a week before
    const ny = await accuracyByWeek(Date.parse("2025-03-03T00:00:00Z"), Date.parse("2025-03-12T00:00:00Z"), "America/New_York");
    expect(ny.map((w) => [new Date(w.week).toISOString(), w.emotionCompared])).toEqual([
      ["2025-03-03T05:00:00.000Z", 2],
      ["2025-03-10T04:00:00.000Z", 1],
    ]);
    expect(weekOf(Date.parse("2025-03-10T03:30:00Z"), "America/New_York")).toBe(Date.parse("2025-03-03T05:00:00Z"));
  });

  it("counts what customers ask about, and drills down only into conversations the reader may read", async () => {
    const other = (agent.departmentId ?? 0) + 1000;
    const { db, schema } = t.handle;
    await db.insert(schema.departments).values({ id: other, name: "Elsewhere" });
    const hidden = await customerWrites("My invoice shows a wrong amount, please fix the billing.", other);
    await analysePending(0);
    const counts = await topicCounts(admin, range);
    const billing = counts.classes.find((c) => c.key === "billing");
    expect(billing?.count).toBeGreaterThanOrEqual(1);
    expect((await topicTrend(admin, range, KL)).some((r) => r.key === "billing")).toBe(true);
    const forAdmin = await conversationsAbout(admin, { classification: "billing" }, range);
    expect(forAdmin.items.map((i) => i.ticketNumber)).toContain(hidden.ticketNumber);
    const forAgent = await conversationsAbout(agent, { classification: "billing" }, range);
    expect(forAgent.items.map((i) => i.ticketNumber)).not.toContain(hidden.ticketNumber);
    expect((await topicCounts(agent, range)).classes.find((c) => c.key === "billing")?.count ?? 0).toBeLessThan(billing!.count);
    expect(await conversationInsight(agent, "ticket", hidden.ticketNumber)).toBeNull();
    const insight = await conversationInsight(admin, "ticket", hidden.ticketNumber);
    expect(insight?.rollup?.classification).toBe("billing");
    expect(insight?.readings[0]).toMatchObject({ fromCustomer: true, classification: "billing" });
  });

  it("puts contacts in segments by emotion, channel, volume and outcome", async () => {
    const { db, schema } = t.handle;
    const now = Date.now();
    const [contact] = await db
      .insert(schema.contacts)
      .values({ uid: `c${dialect}`, name: "Ana Lim", createdAt: now, updatedAt: now })
      .returning();
    const one = await customerWrites("I am so angry, this is unacceptable!", null, "WHATSAPP");
    const two = await customerWrites("Still waiting, I am furious.", null, "EMAIL");
    await analysePending(0);
    await db.insert(schema.contactTickets).values([
      { ticketId: one.id, contactId: contact.id },
      { ticketId: two.id, contactId: contact.id },
    ]);
    await db.update(schema.tickets).set({ status: 2 }).where(eq(schema.tickets.id, two.id));
    // the contact's older conversation read otherwise: only the latest one names the segment
    await db.update(schema.aiTicketAnalysis).set({ customerEmotion: "happy" }).where(eq(schema.aiTicketAnalysis.ticketId, one.id));
    const s = await customerSegments(admin, range);
    expect(s.contacts).toBe(1);
    expect(s.emotion).toEqual({ anger: 1 });
    expect(s.channel).toEqual({ WHATSAPP: 1, EMAIL: 1 });
    expect(s.volume).toEqual({ one: 0, few: 1, several: 0, many: 0 });
    expect(s.outcome).toEqual({ open: 0, pending: 0, resolved: 1, closed: 0 });
    expect(s.unlinked).toBeGreaterThan(0);
    // an agent who cannot read the conversations sees no segment
    expect((await customerSegments({ ...agent, departmentId: null }, range)).contacts).toBe(0);
  });

  it("sends a trade alert once to every admin when a customer names a watched instrument", async () => {
    expect(await addAlertRule("  ", admin.id)).toBe("plugin_analyst.alerts.errors.keyword");
    expect(await addAlertRule("<script>", admin.id)).toBe("plugin_analyst.alerts.errors.keyword");
    expect(await addAlertRule("EUR/USD", admin.id, Date.now() - 1000)).toBeNull();
    expect(await addAlertRule("eur/usd", admin.id)).toBe("plugin_analyst.alerts.errors.duplicate");
    const { db, schema } = t.handle;
    const start = (await db.select({ id: schema.messages.id }).from(schema.messages)).reduce((m, r) => Math.max(m, r.id), 0);
    const ticket = await customerWrites("Should I close my eur/usd position before the news?");
    await customerWrites("Please reset my password."); // no keyword
    // an agent naming it is not a customer asking
    await reply({ ...admin, name: admin.name, username: admin.username }, await row(ticket.id), { body: "EUR/USD moves a lot today.", files: [] });
    const first = await checkMessages(start);
    expect(first.alerts).toBe(1);
    const n = schema.notifications;
    const sent = await db
      .select({ userId: n.userId, category: n.category, channel: n.channel, ticketNumber: n.ticketNumber, title: n.title })
      .from(n)
      .where(eq(n.type, "trade_alert"));
    const admins = await db
      .select({ id: schema.users.id })
      .from(schema.users)
      .where(and(eq(schema.users.type, "admin")));
    expect(sent).toHaveLength(admins.length);
    expect(sent[0]).toMatchObject({ category: "trade", channel: "ticket", ticketNumber: ticket.ticketNumber, title: `EUR/USD: ${ticket.title}` });
    // looked at again (another node, a restart): no second alert
    expect((await checkMessages(start)).alerts).toBe(0);
    expect(await db.select().from(n).where(eq(n.type, "trade_alert"))).toHaveLength(admins.length);
    const [rule] = await db.select().from(schema.tradeAlertRules);
    await removeAlertRule(rule.id);
    await customerWrites("eur/usd again?");
    expect((await checkMessages(first.mark)).alerts).toBe(0);
  });
});
