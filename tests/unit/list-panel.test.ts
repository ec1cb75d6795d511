// The list panel's Department and Label tabs, on both dialects: each group holds the newest
// readable tickets of its department or label, decorated like the All tab's items.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq, inArray } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { canRead } from "~/conversation/access.server";
import { loadListPanel } from "@plugins/tickets/list-panel.server";
import { listTickets, parseListQuery } from "@plugins/tickets/ticket-list.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";

const NOW = Date.UTC(2026, 10, 21, 12);

describe.each(DIALECTS)("list panel tabs on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow;
  const panel = (reader: UserRow, query: string) => loadListPanel(reader, new URL(`http://x/?${query}`), "UTC");

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 300, now: NOW });
    [admin, agent] = await Promise.all(["admin", "agent"].map(async (u) => (await findUserByUsername(u))!));
  });
  afterAll(async () => t?.cleanup());

  /** Ticket numbers of the newest open tickets matching `where`, straight from the database. */
  const newest = async (where: ReturnType<typeof eq>, limit: number) => {
    const { db, schema } = t.handle;
    const k = schema.tickets;
    const rows = await db
      .select({ n: k.ticketNumber })
      .from(k)
      .where(and(eq(k.kind, "ticket"), eq(k.status, 0), where))
      .orderBy(desc(k.updatedAt), desc(k.id))
      .limit(limit);
    return rows.map((r) => r.n);
  };

  it("shows one group per department with its newest 10 open tickets, and more on request", async () => {
    const { groups } = await panel(admin, "tab=department");
    const { schema } = t.handle;
    expect(groups!.map((g) => g.name)).toEqual(["Billing", "Sales", "Support"]);
    for (const g of groups!) {
      expect(g.items.map((i) => i.ticketNumber)).toEqual(await newest(eq(schema.tickets.departmentId, g.id!), 10));
      expect(g.more).toBe((await newest(eq(schema.tickets.departmentId, g.id!), 11)).length > 10);
    }
    const support = groups!.find((g) => g.name === "Support")!;
    const wider = await panel(admin, `tab=department&${support.key}=20`);
    expect(wider.groups!.find((g) => g.key === support.key)!.items.map((i) => i.ticketNumber)).toEqual(
      await newest(eq(schema.tickets.departmentId, support.id!), 20),
    );
  });

  it("decorates a ticket the same in every label group it appears in, as in the All tab", async () => {
    const { db, schema } = t.handle;
    const { groups } = await panel(admin, "tab=label");
    const all = (await listTickets(admin, "ticket", parseListQuery(new URLSearchParams("status=4")), { timeZone: "UTC" })).items;
    const byNumber = new Map(all.map((i) => [i.ticketNumber, i]));
    let shared = 0;
    const seen = new Map<number, unknown>();
    for (const g of groups!) {
      const tagged = await db.select({ id: schema.ticketLabels.ticketId }).from(schema.ticketLabels).where(eq(schema.ticketLabels.labelId, g.id!));
      expect(g.items.map((i) => i.ticketNumber)).toEqual(
        await newest(
          inArray(
            schema.tickets.id,
            tagged.map((r) => r.id),
          ),
          10,
        ),
      );
      for (const item of g.items) {
        expect(item.labels.map((l) => l.id)).toContain(g.id);
        if (seen.has(item.id)) (shared++, expect(item).toEqual(seen.get(item.id)));
        seen.set(item.id, item);
        if (byNumber.has(item.ticketNumber)) expect(item).toEqual(byNumber.get(item.ticketNumber));
      }
    }
    expect(shared).toBeGreaterThan(0);
  });

  it("shows an agent only the groups' tickets the agent may read", async () => {
    const { groups } = await panel(agent, "tab=department");
    // the agent is in Support (2); of other departments only conversations they take part in
    expect(groups!.find((g) => g.id === 2)!.items.length).toBeGreaterThan(0);
    const others = groups!.filter((g) => g.id !== 2).flatMap((g) => g.items);
    for (const item of others) expect(await canRead(agent, item.id)).toBe(true);
    // and the admin's groups there do hold tickets the agent may not read
    const adminOthers = (await panel(admin, "tab=department")).groups!.filter((g) => g.id !== 2).flatMap((g) => g.items);
    const hidden = [];
    for (const item of adminOthers) if (!(await canRead(agent, item.id))) hidden.push(item.id);
    expect(hidden.length).toBeGreaterThan(0);
    expect(others.map((i) => i.id)).not.toContain(hidden[0]);
  });
});
