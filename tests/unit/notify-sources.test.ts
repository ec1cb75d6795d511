// Where notifications come from, on both dialects: an @name in a note or a workspace chat tells
// that person (only if they may read it, never the writer); a new ticket from outside tells those
// who asked for new tickets and whose filters (channel, department, campaign, priority) it passes;
// a live chat waiting in the queue tells its department's agents; an announcement tells everyone
// but its author; a calendar reminder goes through the same model (so it is pushed); and a push
// in quiet hours waits in the queue until they end, then goes.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { createECDH, randomBytes } from "node:crypto";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { addNote, createConversation, findConversation, reply } from "~/conversation/model.server";
import { receive } from "~/conversation/receive.server";
import { mentionedUsernames, PUSH_JOB } from "~/conversation/notifications.server";
import { definePushJob, forgetVapidKeys, quietEndsAt, saveSubscription, savePrefs, setPushAgent } from "~/conversation/push.server";
import { announce } from "~/models/announcement.server";
import { createJobWorker } from "~/jobs/queue.server";
import * as livechat from "@plugins/livechat/livechat.server";
import { sendDueReminders } from "@plugins/calendar/reminders.server";
import { startPushStandin } from "../support/push-standin";

const browserKeys = () => {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") };
};
const prefs = (p: Partial<Parameters<typeof savePrefs>[1]> = {}) => ({
  pushSla: "on",
  pushSystem: "on",
  pushTrade: "on",
  quietStart: "",
  quietEnd: "",
  newTicketChannel: "",
  newTicketPriority: "" as const,
  ...p,
});

describe("mentions are found in text", () => {
  it("takes @names once, lowercased, without trailing punctuation or e-mail addresses", () => {
    expect(mentionedUsernames("@Agent2 please look, and @agent. Thanks @agent2!")).toEqual(["agent2", "agent"]);
    expect(mentionedUsernames("write to me@example.com or @@x")).toEqual([]);
    expect(mentionedUsernames("(@amy.lee)")).toEqual(["amy.lee"]);
  });
});

describe("quiet hours end", () => {
  const kl = "Asia/Kuala_Lumpur";
  const night = { quietStart: 22 * 60, quietEnd: 7 * 60 };
  it("at their local end, across midnight, and not at all outside them", () => {
    expect(quietEndsAt(night, Date.parse("2026-03-01T15:00:00Z"), kl)).toBe(Date.parse("2026-03-01T23:00:00Z"));
    expect(quietEndsAt(night, Date.parse("2026-03-01T22:59:30Z"), kl)).toBe(Date.parse("2026-03-01T23:00:00Z"));
    expect(quietEndsAt(night, Date.parse("2026-03-01T23:00:00Z"), kl)).toBeNull();
  });
  it("across the DST changes of New York (an hour less, an hour more)", () => {
    const ny = "America/New_York";
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT; quiet 01:00 to 02:30 ends at 03:00 EDT (07:00Z)
    expect(quietEndsAt({ quietStart: 60, quietEnd: 150 }, Date.parse("2026-03-08T06:30:00Z"), ny)).toBe(Date.parse("2026-03-08T07:00:00Z"));
    // 2026-11-01: 02:00 EDT falls back to 01:00 EST; quiet 00:00 to 03:00 lasts four hours
    expect(quietEndsAt({ quietStart: 0, quietEnd: 180 }, Date.parse("2026-11-01T04:30:00Z"), ny)).toBe(Date.parse("2026-11-01T08:00:00Z"));
  });
});

for (const dialect of DIALECTS) {
  describe(`notification sources (${dialect})`, () => {
    let db: TestDb;
    let admin: UserRow, agent: UserRow, agent2: UserRow;
    const mine = async (userId: number) => {
      const n = db.handle.schema.notifications;
      return db.handle.db.select().from(n).where(eq(n.userId, userId)).orderBy(n.id);
    };
    const clear = () => db.handle.db.delete(db.handle.schema.notifications);
    let seq = 0;
    const writesIn = (channel: string, departmentId: number | null, extra: { severity?: string } = {}) =>
      receive({
        ticket: {
          channel,
          title: `Question ${++seq}`,
          contactName: "Cy",
          contactEmail: `cy${seq}@example.com`,
          departmentId,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body: "Hello", type: "text", senderName: "Cy" },
        files: [],
      }).then(async (r) => {
        if (extra.severity)
          await db.handle.db.update(db.handle.schema.tickets).set({ severity: extra.severity }).where(eq(db.handle.schema.tickets.id, r.ticket.id));
        return r.ticket;
      });

    beforeAll(async () => {
      db = await createTestDb(dialect);
      await seedDemo(db.handle, { tickets: 0 });
      forgetVapidKeys();
      [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
    });
    afterAll(() => db.cleanup());

    it("tells who an @name in a note names, if they may read the ticket, never the writer", async () => {
      await clear();
      // a Support ticket: agent (Support) and admin may read it, agent2 (Sales) may not
      const ticket = await writesIn("EMAIL", 2);
      const row = await findConversation(admin, ticket.ticketNumber, "ticket");
      const [first] = await db.handle.db.select().from(db.handle.schema.messages).where(eq(db.handle.schema.messages.ticketId, ticket.id));
      await addNote({ ...agent, username: agent.username }, row, first.id, "@admin @agent2 @agent can someone check?");
      const forAdmin = await mine(admin.id);
      expect(forAdmin.map((n) => [n.type, n.ticketNumber, n.body])).toEqual([["mention", ticket.ticketNumber, agent.name]]);
      expect(await mine(agent2.id)).toEqual([]);
      expect(await mine(agent.id)).toEqual([]);
    });

    it("tells a workspace chat's participant named in a message, not someone outside it", async () => {
      await clear();
      const chat = await createConversation({ ...admin }, { channel: "chat", title: "Lunch", body: "hi", usernames: ["agent"] });
      const row = await findConversation(admin, chat.ticketNumber, "chat");
      await reply({ ...admin }, row, { body: "@agent @agent2 noon?", files: [] });
      expect((await mine(agent.id)).map((n) => [n.type, n.channel])).toEqual([["mention", "chat"]]);
      expect(await mine(agent2.id)).toEqual([]);
    });

    it("tells of a new ticket those who asked, within their department, when it passes their filters", async () => {
      await clear();
      // agent: Support's new WhatsApp tickets of high priority; admin: every new email; agent2: not asked
      await savePrefs(agent.id, prefs({ newTickets: "on", newTicketChannel: "WHATSAPP", newTicketPriority: "" }));
      await savePrefs(admin.id, prefs({ newTickets: "on", newTicketChannel: "EMAIL" }));
      const email = await writesIn("EMAIL", 2);
      const whatsapp = await writesIn("WHATSAPP", 2);
      const sales = await writesIn("WHATSAPP", 1);
      expect((await mine(agent.id)).map((n) => [n.type, n.ticketNumber])).toEqual([["new_ticket", whatsapp.ticketNumber]]);
      expect((await mine(admin.id)).map((n) => n.ticketNumber)).toEqual([email.ticketNumber]);
      expect(await mine(agent2.id)).toEqual([]);
      expect(sales.departmentId).toBe(1);
      // the department filter: admin only Billing's
      await clear();
      await savePrefs(admin.id, prefs({ newTickets: "on", newTicketDepartment: "3" }));
      await writesIn("EMAIL", 2);
      const billing = await writesIn("EMAIL", 3);
      expect((await mine(admin.id)).map((n) => n.ticketNumber)).toEqual([billing.ticketNumber]);
      // the priority filter: a sender marked H makes the next ticket H (spec "Marked this sender as H priority")
      await clear();
      await savePrefs(admin.id, prefs({ newTickets: "on", newTicketPriority: "H" }));
      const normal = await writesIn("EMAIL", 2, { severity: "H" });
      expect(await mine(admin.id)).toEqual([]);
      await receive({
        ticket: {
          channel: "EMAIL",
          title: "Again",
          contactName: "Cy",
          contactEmail: `cy${seq}@example.com`,
          departmentId: 2,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body: "Again", type: "text", senderName: "Cy" },
        files: [],
      });
      expect((await mine(admin.id)).map((n) => n.title)).toEqual(["Again"]);
      expect(normal.severity).toBe("");
      await savePrefs(admin.id, prefs());
      await savePrefs(agent.id, prefs());
    });

    it("tells the live chat department's agents a chat is waiting, and those who asked of a message left", async () => {
      await clear();
      const { db: d, schema } = db.handle;
      await d
        .insert(schema.settings)
        .values({ key: "livechat_department", value: "2" })
        .onConflictDoUpdate({ target: schema.settings.key, set: { value: "2" } });
      const visit = async () => (await livechat.findVisit((await livechat.startVisit("demo"))!))!;
      await livechat.register(await visit(), { name: "Vi", phone: "1", email: "vi@example.com", message: "Anyone there?" }, true, "key-vi");
      expect((await mine(agent.id)).map((n) => [n.type, n.channel, n.title])).toEqual([["livechat_waiting", "livechat", "Vi"]]);
      expect(await mine(agent2.id)).toEqual([]);
      expect(await mine(admin.id)).toEqual([]);
      // nobody online: the message is left, a new ticket for those who asked
      await savePrefs(admin.id, prefs({ newTickets: "on" }));
      await livechat.register(await visit(), { name: "Wu", phone: "1", email: "wu@example.com", message: "Call me" }, false, "key-wu");
      expect((await mine(admin.id)).map((n) => [n.type, n.title])).toEqual([["new_ticket", "Wu"]]);
      await savePrefs(admin.id, prefs());
    });

    it("tells everyone but its author of an announcement, and nobody of its withdrawal", async () => {
      await clear();
      await announce(admin, "Office closed on Friday");
      for (const u of [agent, agent2])
        expect((await mine(u.id)).map((n) => [n.type, n.category, n.title, n.body])).toEqual([
          ["announcement", "system", "Office closed on Friday", admin.name],
        ]);
      expect(await mine(admin.id)).toEqual([]);
      await announce(admin, "");
      expect(await mine(agent.id)).toHaveLength(1);
    });

    it("queues a push for a calendar reminder like any notification", async () => {
      await clear();
      await db.handle.db.delete(db.handle.schema.jobs);
      const subId = await saveSubscription(agent2.id, { endpoint: "https://push.example.test/reminder", keys: browserKeys() });
      const now = Date.now();
      const { schema } = db.handle;
      await db.handle.db.insert(schema.appointments).values({
        title: "Dentist",
        ownerId: agent2.id,
        startsAt: now + 10 * 60_000,
        endsAt: now + 40 * 60_000,
        reminderMinutes: 15,
        createdAt: now,
        updatedAt: now,
      });
      await sendDueReminders(now);
      const [n] = await mine(agent2.id);
      expect(n.type).toBe("reminder");
      const jobs = await db.handle.db.select().from(schema.jobs).where(eq(schema.jobs.kind, PUSH_JOB));
      expect(jobs.map((j) => j.key)).toEqual([`${PUSH_JOB}:${n.id}:${subId}`]);
      await db.handle.db.delete(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.id, subId));
    });

    it("holds a push in quiet hours in the queue and sends it when they end", async () => {
      await clear();
      const { schema } = db.handle;
      await db.handle.db.delete(schema.jobs);
      const standin = await startPushStandin();
      setPushAgent(standin.agent);
      definePushJob();
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        // 23:00 in the workspace's zone (UTC+8); quiet from 22:00 to 07:00
        vi.setSystemTime(Date.parse("2026-03-01T15:00:00Z"));
        await savePrefs(agent.id, prefs({ quietStart: "22:00", quietEnd: "07:00" }));
        await saveSubscription(agent.id, { endpoint: standin.url("q"), keys: browserKeys() });
        await announce(admin, "Night shift notes are up");
        const worker = createJobWorker({ now: () => Date.now(), concurrency: 1 });
        // only agent has a subscription: one push job
        const jobOf = () => db.handle.db.select().from(schema.jobs).where(eq(schema.jobs.kind, PUSH_JOB));
        await worker.runOnce();
        let jobs = await jobOf();
        expect(jobs).toHaveLength(1);
        let [job] = jobs;
        expect(standin.received).toHaveLength(0);
        expect(job.state).toBe("queued");
        expect(Number(job.runAt)).toBe(Date.parse("2026-03-01T23:00:00Z"));
        expect(job.attempts).toBe(0);
        // a minute before the end: still waiting
        vi.setSystemTime(Date.parse("2026-03-01T22:59:00Z"));
        await worker.runOnce();
        expect(standin.received).toHaveLength(0);
        // 07:00: it goes
        vi.setSystemTime(Date.parse("2026-03-01T23:00:00Z"));
        await worker.runOnce();
        [job] = await jobOf();
        expect(job.state).toBe("done");
        jobs = [];
        expect(standin.received).toHaveLength(1);
        expect(standin.received[0].valid).toBe(true);
      } finally {
        vi.useRealTimers();
        setPushAgent(undefined);
        await standin.close();
        await savePrefs(agent.id, prefs());
      }
    });
  });
}
