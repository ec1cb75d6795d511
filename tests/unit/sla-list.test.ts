// The SLA on the ticket list, on both dialects: the list's filter (breached, in its warning time,
// clock running) and its order by time left (nearest due first, no clock last), the same through
// the JSON twin's names; the badge's countdown redrawn from its own clock; and a change of the
// priority alone moves the due time (a per-priority policy) on the engine's next pass.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { insertTicket, setPriority } from "~/conversation/model.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { countdownAt, type BadgeCountdown } from "~/conversation/countdown";
import { recompute, tick } from "@plugins/sla/engine.server";
import { savePolicy } from "@plugins/sla/policies.server";
import { badges } from "@plugins/sla/badge.server";
import { listParamsFromApi, listTickets, parseListQuery } from "@plugins/tickets/ticket-list.server";

const MIN = 60_000;

describe("the badge's countdown", () => {
  const c: BadgeCountdown = {
    now: 0,
    dueAt: 30 * MIN,
    warnAt: 20 * MIN,
    left: "sla.left",
    overdue: "sla.overdue",
    leftLabel: "sla.leftLabel",
    overdueLabel: "sla.overdueLabel",
    values: { target: "t:resolution" },
  };
  it("counts down, turns to warning at its warning time and to overdue at the due time", () => {
    expect(countdownAt(c, 0)).toMatchObject({ state: "ok", text: { key: "sla.left.minutes", values: { minutes: "30", target: "t:resolution" } } });
    expect(countdownAt(c, 21 * MIN)).toMatchObject({ state: "warning", text: { key: "sla.left.minutes", values: { minutes: "9" } } });
    expect(countdownAt(c, 30 * MIN)).toMatchObject({
      state: "breached",
      text: { key: "sla.overdue.minutes", values: { minutes: "0" } },
      label: { key: "sla.overdueLabel" },
    });
    expect(countdownAt(c, 30 * MIN + 90 * MIN)).toMatchObject({ text: { key: "sla.overdue.hours", values: { hours: "1", minutes: "30" } } });
  });
});

describe.each(DIALECTS)("SLA on the ticket list (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let labelId: number;
  let departmentId: number;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    departmentId = (await findUserByUsername("agent"))!.departmentId!;
    const [label] = await t.handle.db.insert(t.handle.schema.labels).values({ name: "SLA list", sla: 60 }).returning();
    labelId = label.id;
    const policy = { label_id: String(labelId), first_response: "", next_response: "", warn: "10", pause_on_pending: "on" };
    expect(await savePolicy({ ...policy, priority: "", resolution: "60" })).toEqual({ ok: true });
    // high priority tickets of this label: 30 minutes
    expect(await savePolicy({ ...policy, priority: "H", resolution: "30" })).toEqual({ ok: true });
  }, 60_000);
  afterAll(async () => t?.cleanup());

  async function ticket(title: string, at: number, labelled = true) {
    const { schema } = t.handle;
    return t.handle.transaction(async (tx) => {
      const created = await insertTicket(
        tx,
        { title, channel: "EMAIL", departmentId, contactName: "C", contactEmail: "c@example.com", contactPhone: "" },
        title,
        at,
      );
      await tx.insert(schema.messages).values({ ticketId: created.id, type: "text", body: title, createdAt: at });
      if (labelled) await tx.insert(schema.ticketLabels).values({ ticketId: created.id, labelId });
      return created;
    });
  }
  const titles = async (query: string) =>
    (await listTickets(admin, "ticket", parseListQuery(new URLSearchParams(query)), { timeZone: "UTC" })).items.map((i) => i.title);

  it("filters by breached, warning and running, and sorts by time left with no clock last", async () => {
    const now = Date.now();
    await ticket("late", now - 120 * MIN); // due an hour ago
    await ticket("soon", now - 55 * MIN); // due in 5 minutes: in its warning time
    await ticket("fresh", now - MIN); // due in 59 minutes
    await ticket("none", now - 2 * MIN, false); // no label: no clock
    await tick(Date.now());
    expect(await titles("sla=breached")).toEqual(["late"]);
    expect(await titles("sla=warning")).toEqual(["soon"]);
    expect((await titles("sla=running")).sort()).toEqual(["fresh", "late", "soon"]);
    expect(await titles("sort=sla")).toEqual(["late", "soon", "fresh", "none"]);
    // newest activity first without it
    expect(await titles("")).toEqual(["fresh", "none", "soon", "late"]);
    // an unknown value is dropped, never an error
    expect(await titles("sla=whenever&sort=sla")).toEqual(["late", "soon", "fresh", "none"]);
    // the JSON twin's names map onto the same filter and order
    const mapped = listParamsFromApi(new URL("http://x/api/ticket/load?slaFilter=breached&sort=sla"), "0", 0);
    expect(mapped.get("sla")).toBe("breached");
    expect(mapped.get("sort")).toBe("sla");
  });

  it("moves the due time when only the priority changes", async () => {
    const now = Date.now();
    // a ticket from twenty minutes ago (older than the engine's watermark: computed by hand)
    const tk = await ticket("priority only", now - 20 * MIN);
    await recompute([tk.id], Date.now());
    const row = async () => (await t.handle.db.select().from(t.handle.schema.slaTickets).where(eq(t.handle.schema.slaTickets.ticketId, tk.id)))[0];
    expect(Number((await row()).dueAt)).toBe(now - 20 * MIN + 60 * MIN);
    let [badge] = Object.values(await badges({ ticketIds: [tk.id], now: Date.now() }));
    expect(badge).toMatchObject({ state: "ok", countdown: { dueAt: now + 40 * MIN } });
    // nothing but the priority changes; the engine's next pass sees it
    await setPriority(tk, "H");
    expect((await tick(Date.now())).synced).toBeGreaterThan(0);
    // 30 minutes for H: due ten minutes from now, inside the warning time
    expect(Number((await row()).dueAt)).toBe(now + 10 * MIN);
    [badge] = Object.values(await badges({ ticketIds: [tk.id], now: Date.now() }));
    expect(badge).toMatchObject({ state: "warning", text: { key: "plugin_sla.badge.left.minutes" } });
    expect(await titles("sla=warning")).toContain("priority only");
  });
});
