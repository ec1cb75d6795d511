// The SLA engine on both dialects: due times follow the ticket (label, reply, Pending pause,
// resolve, reopen after breach), the scheduler sends the warning ('less than N minutes to resolve')
// and the breach once each to the assignee and the department's admins, a restart between warning
// and breach (a new scheduler on its own connection) loses neither and repeats neither, two nodes
// at once send once, the plan's monthly limit stops alerts with one message to admins, and policy
// forms refuse an SLA of 0 or 100 years.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { openDatabase, type DbHandle } from "@db/client";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { insertTicket } from "~/conversation/model.server";
import { setSetting } from "~/models/settings.server";
import { findUserByUsername } from "~/accounts/users.server";
import { tick, recompute } from "@plugins/sla/engine.server";
import { savePolicy, parseCalendar, type PolicyValues } from "@plugins/sla/policies.server";
import { badges, duration } from "@plugins/sla/badge.server";
import { attainment } from "@plugins/sla/widgets/attainment.server";
import { engineOutcome } from "@plugins/reports/reports.server";

const MIN = 60_000;
const T0 = Date.parse("2026-06-01T02:00:00Z");

const DAY = 24 * 60 * 60_000;

describe.each(DIALECTS)("SLA engine (%s)", (dialect) => {
  let t: TestDb;
  let other: DbHandle;
  let labelId: number;
  let agentId: number;
  let departmentId: number;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    other = openDatabase(t.url);
    const { db, schema } = t.handle;
    const [label] = await db.insert(schema.labels).values({ name: "SLA unit", sla: 60 }).returning();
    labelId = label.id;
    const agent = await findUserByUsername("agent");
    agentId = agent!.id;
    departmentId = agent!.departmentId!;
    const policy: PolicyValues = {
      label_id: String(labelId),
      priority: "",
      first_response: "",
      next_response: "",
      resolution: "",
      warn: "10",
      pause_on_pending: "on",
    };
    expect(await savePolicy(policy)).toEqual({ ok: true });
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await t?.cleanup();
  });

  async function ticket(title: string, at = T0) {
    const { schema } = t.handle;
    return t.handle.transaction(async (tx) => {
      const created = await insertTicket(
        tx,
        { title, channel: "EMAIL", departmentId, contactName: "C", contactEmail: "c@example.com", contactPhone: "" },
        title,
        at,
      );
      await tx.insert(schema.messages).values({ ticketId: created.id, type: "text", body: title, createdAt: at });
      await tx.insert(schema.ticketLabels).values({ ticketId: created.id, labelId });
      await tx.insert(schema.participants).values({ ticketId: created.id, userId: agentId, assignee: true, addedAt: at, kind: "ticket" });
      return created;
    });
  }
  async function setStatus(ticketId: number, status: number, at: number) {
    const { schema } = t.handle;
    await t.handle.transaction(async (tx) => {
      await tx.insert(schema.messages).values({ ticketId, type: "system", body: JSON.stringify({ event: "status", by: "Agent", status }), createdAt: at });
      await tx.update(schema.tickets).set({ status, updatedAt: at }).where(eq(schema.tickets.id, ticketId));
    });
  }
  const row = async (ticketId: number) =>
    (await t.handle.db.select().from(t.handle.schema.slaTickets).where(eq(t.handle.schema.slaTickets.ticketId, ticketId)))[0];
  const alerts = (ticketId: number) => t.handle.db.select().from(t.handle.schema.slaAlerts).where(eq(t.handle.schema.slaAlerts.ticketId, ticketId));
  const systemTexts = async (ticketId: number) =>
    (
      await t.handle.db
        .select({ body: t.handle.schema.messages.body })
        .from(t.handle.schema.messages)
        .where(and(eq(t.handle.schema.messages.ticketId, ticketId), eq(t.handle.schema.messages.type, "system")))
    )
      .map((m) => JSON.parse(m.body) as { event: string; text?: string; values?: Record<string, string> })
      .filter((e) => e.event === "plugin");
  const slaNotes = async (userId: number, ticketNumber: number) =>
    (await t.handle.db.select().from(t.handle.schema.notifications).where(eq(t.handle.schema.notifications.userId, userId))).filter(
      (n) => n.category === "sla" && n.ticketNumber === ticketNumber,
    );

  it("stores due times, warns and breaches once across a restart between them", async () => {
    const tk = await ticket("SLA restart");
    await tick(T0 + MIN);
    const r = await row(tk.id);
    expect(r.resolutionDueAt).toBe(T0 + 60 * MIN);
    expect(r.warnAt).toBe(T0 + 50 * MIN);
    expect(r.nextCheckAt).toBe(T0 + 50 * MIN);
    expect(r.state).toBe("ok");
    expect(await alerts(tk.id)).toHaveLength(0);

    const first = await tick(T0 + 51 * MIN);
    expect(first.sent).toEqual([{ ticketId: tk.id, kind: "warning", target: "resolution" }]);
    expect((await row(tk.id)).state).toBe("warning");
    const texts = await systemTexts(tk.id);
    expect(texts).toEqual([{ event: "plugin", by: "", text: "plugin_sla.system.warning", values: { minutes: "10" } }]);
    const admin = await findUserByUsername("admin");
    expect(await slaNotes(agentId, tk.ticketNumber)).toHaveLength(1);
    expect((await slaNotes(agentId, tk.ticketNumber))[0].body).toBe("less than 10 minutes to resolve");

    // "restart": a new scheduler on its own connection; the warning is not sent again
    const again = await tick(T0 + 52 * MIN, other);
    expect(again.sent).toEqual([]);
    const breach = await tick(T0 + 61 * MIN, other);
    expect(breach.sent).toEqual([{ ticketId: tk.id, kind: "breach", target: "resolution" }]);
    expect(await tick(T0 + 62 * MIN)).toMatchObject({ sent: [] });
    expect((await alerts(tk.id)).map((a) => a.kind).sort()).toEqual(["breach", "warning"]);
    expect(await slaNotes(agentId, tk.ticketNumber)).toHaveLength(2);
    expect((await row(tk.id)).state).toBe("breached");
    // the department's admin heard too (the demo admin belongs to no department: only when it matches)
    if (admin!.departmentId === departmentId) expect(await slaNotes(admin!.id, tk.ticketNumber)).toHaveLength(2);
  });

  it("two schedulers at once send each alert once", async () => {
    const tk = await ticket("SLA two nodes", T0 + 100 * MIN);
    await tick(T0 + 101 * MIN);
    // PostgreSQL: truly at once. SQLite: one process cannot hold two writers (better-sqlite3 blocks
    // the thread), so the second node runs right after the first over the same due rows
    const [a, b] =
      dialect === "pg"
        ? await Promise.all([tick(T0 + 161 * MIN), tick(T0 + 161 * MIN, other)])
        : [await tick(T0 + 161 * MIN), await tick(T0 + 161 * MIN, other)];
    // the warning was overtaken by its deadline: only the breach goes out, once
    expect([...a.sent, ...b.sent]).toEqual([{ ticketId: tk.id, kind: "breach", target: "resolution" }]);
    expect((await systemTexts(tk.id)).map((e) => e.text)).toEqual(["plugin_sla.system.breach.resolution"]);
  });

  it("pauses while Pending, and a ticket reopened after a breach gets a new deadline", async () => {
    const tk = await ticket("SLA pause", T0 + 200 * MIN);
    await setStatus(tk.id, 1, T0 + 210 * MIN);
    await tick(T0 + 211 * MIN);
    expect(await row(tk.id)).toMatchObject({ state: "paused", nextCheckAt: null, resolutionDueAt: null });
    await setStatus(tk.id, 0, T0 + 240 * MIN);
    await tick(T0 + 241 * MIN);
    // 10 minutes ran before the pause: 50 left from 240
    expect((await row(tk.id)).resolutionDueAt).toBe(T0 + 290 * MIN);
    await tick(T0 + 300 * MIN);
    expect((await row(tk.id)).state).toBe("breached");
    await setStatus(tk.id, 2, T0 + 310 * MIN);
    await tick(T0 + 311 * MIN);
    expect(await row(tk.id)).toMatchObject({ state: "breached", outcome: "breached", nextCheckAt: null });
    await setStatus(tk.id, 0, T0 + 400 * MIN);
    await tick(T0 + 401 * MIN);
    expect(await row(tk.id)).toMatchObject({ state: "ok", outcome: null, resolutionDueAt: T0 + 460 * MIN });
    await tick(T0 + 461 * MIN);
    const breaches = (await alerts(tk.id)).filter((a) => a.kind === "breach");
    expect(breaches.map((b) => b.dueAt)).toEqual([T0 + 290 * MIN, T0 + 460 * MIN]);
    await setStatus(tk.id, 2, T0 + 470 * MIN);
    await recompute([tk.id], T0 + 471 * MIN);
    expect((await row(tk.id)).outcome).toBe("breached");
  });

  it("a ticket resolved in time is met", async () => {
    const tk = await ticket("SLA met", T0 + 500 * MIN);
    await setStatus(tk.id, 2, T0 + 520 * MIN);
    await tick(T0 + 521 * MIN);
    expect(await row(tk.id)).toMatchObject({ state: "met", outcome: "met", nextCheckAt: null });
  });

  it("the plan's monthly limit stops alerts and tells the admins once", async () => {
    await setSetting("plan", "1");
    const { db, schema } = t.handle;
    const filler = await ticket("SLA filler", T0 + 600 * MIN);
    const counted = (await db.select().from(schema.slaAlerts)).filter((a) => a.counted).length;
    await db
      .insert(schema.slaAlerts)
      .values(Array.from({ length: 100 - counted }, (_, i) => ({ ticketId: filler.id, kind: "breach", target: "first", dueAt: i, createdAt: T0 + 600 * MIN })));
    const tk = await ticket("SLA over limit", T0 + 610 * MIN);
    await tick(T0 + 611 * MIN);
    const r = await tick(T0 + 671 * MIN);
    expect(r.overLimit).toBeGreaterThan(0);
    expect(r.sent.filter((s) => s.ticketId === tk.id)).toEqual([]);
    expect(await systemTexts(tk.id)).toEqual([]);
    const admin = await findUserByUsername("admin");
    const told = (await db.select().from(schema.notifications).where(eq(schema.notifications.userId, admin!.id))).filter((n) => n.type === "sla_limit");
    expect(told).toHaveLength(1);
    expect(told[0].title).toContain("100");
    await tick(T0 + 700 * MIN);
    expect((await db.select().from(schema.notifications).where(eq(schema.notifications.userId, admin!.id))).filter((n) => n.type === "sla_limit")).toHaveLength(
      1,
    );
    await setSetting("plan", "99");
  });

  it("the list's badge says how long it is overdue, and the report takes the engine's outcome", async () => {
    const tk = await ticket("SLA badge", T0 + 800 * MIN);
    await tick(T0 + 801 * MIN);
    const open = await ticket("SLA badge far", Date.now() + 100 * MIN);
    await recompute([open.id], Date.now());
    const found = await badges({ ticketIds: [tk.id, open.id], now: Date.now() });
    expect(found[tk.id]).toMatchObject({ state: "breached", text: { key: "plugin_sla.badge.overdue.days" } });
    expect(found[open.id]).toMatchObject({
      state: "ok",
      text: { key: "plugin_sla.badge.left.hours", values: { hours: "2", target: "t:plugin_sla.target.resolution" } },
    });
    expect(duration(59 * MIN + 59_000)).toEqual({ unit: "minutes", values: { minutes: "59" } });
    expect(duration(26 * 60 * MIN)).toEqual({ unit: "days", values: { days: "1", hours: "2" } });
    expect(engineOutcome({ sla_state: "met", sla_outcome: "met" }, 0)).toBe("met");
    expect(engineOutcome({ sla_state: "ok", sla_outcome: null, sla_due_at: 5 }, 10)).toBe("breached");
    expect(engineOutcome({ sla_state: "ok", sla_outcome: null, sla_due_at: 50 }, 10)).toBe("pending");
    expect(engineOutcome({ sla_state: null }, 10)).toBeNull();

    // the dashboard's attainment widget counts that breach by label and by assigned agent
    const widget = await attainment({
      range: { from: 0, to: Date.now() + DAY },
      kinds: ["ticket"],
      interval: "day",
      now: Date.now(),
      timeZone: "UTC",
      language: "en",
      t: ((key: string) => key) as never,
      breakdown: async () => [],
    });
    const byAgent = widget.rows.filter((r) => r.by === "plugin_sla.widget.agent");
    expect(byAgent.some((r) => Number(r.breached) > 0)).toBe(true);
    expect(widget.rows.some((r) => r.by === "plugin_sla.widget.label" && Number(r.breached) > 0)).toBe(true);
  });

  it("a ticket first seen long after its deadline is recorded as breached, not announced (the plugin switched on over old tickets)", async () => {
    const tk = await ticket("SLA backfill", T0 + 900 * MIN);
    const r = await tick(T0 + 1000 * MIN);
    expect(r.sent.filter((x) => x.ticketId === tk.id)).toEqual([]);
    expect(await row(tk.id)).toMatchObject({ state: "breached", nextCheckAt: null });
    expect((await alerts(tk.id)).map((a) => [a.kind, a.counted]).sort()).toEqual([
      ["breach", false],
      ["warning", false],
    ]);
    expect(await systemTexts(tk.id)).toEqual([]);
  });

  it("refuses an SLA of 0 or 100 years, and a bad calendar, keeping the input", async () => {
    const base: PolicyValues = {
      label_id: String(labelId),
      priority: "H",
      first_response: "",
      next_response: "",
      resolution: "0",
      warn: "5",
      pause_on_pending: "",
    };
    const zero = await savePolicy(base);
    expect(zero).toMatchObject({ ok: false, result: { errors: { resolution: "plugin_sla.errors.minutes" }, values: { resolution: "0" } } });
    const century = await savePolicy({ ...base, resolution: String(100 * 365 * 24 * 60) });
    expect(century).toMatchObject({ ok: false, result: { errors: { resolution: "plugin_sla.errors.minutes" } } });
    expect(await savePolicy({ ...base, resolution: "45" })).toEqual({ ok: true });
    const cal = parseCalendar({ open_1: "on", from_1: "17:00", to_1: "09:00", open_2: "on", from_2: "25:00", to_2: "18:00", country: "ZZ" });
    expect(cal).toMatchObject({
      ok: false,
      result: { errors: { to_1: "plugin_sla.errors.order", from_2: "plugin_sla.errors.clock", country: "plugin_sla.errors.country" } },
    });
  });
});
