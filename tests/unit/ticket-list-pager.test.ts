// The list's pages and pager on both dialects: the page's ids come from the list index first
// (a deferred join), and the count stops at a cap ("1000+") yet the pages shown stay right.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, desc, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { listTickets, parseListQuery, PAGE_SIZE } from "@plugins/tickets/ticket-list.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";

const NOW = Date.UTC(2026, 10, 21, 12);

describe.each(DIALECTS)("ticket list pager on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let all: number[]; // every ticket's number, newest activity first (ties: higher id first)
  const list = (query: string) => listTickets(admin, "ticket", parseListQuery(new URLSearchParams(query)), { now: NOW, timeZone: "UTC" });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    // more tickets than the smallest cap (1,000), so page 1's count is capped
    await seedDemo(t.handle, { tickets: 1_400, now: NOW });
    admin = (await findUserByUsername("admin"))!;
    const { db, schema } = t.handle;
    const k = schema.tickets;
    const rows = await db.select({ n: k.ticketNumber }).from(k).where(eq(k.kind, "ticket")).orderBy(desc(k.updatedAt), desc(k.id));
    all = rows.map((r) => r.n);
  }, 120_000);
  afterAll(async () => t?.cleanup());

  it("counts page 1 up to the cap only, and says so", async () => {
    expect(all.length).toBeGreaterThan(1_000);
    const page = await list("status=4");
    expect(page).toMatchObject({ total: 1_000, capped: true, page: 1, pages: Math.ceil(1_000 / PAGE_SIZE) });
    expect(page.items.map((i) => i.ticketNumber)).toEqual(all.slice(0, PAGE_SIZE));
  });

  it("counts exactly once the cap (ten pages past the current one) passes the end, with the right rows on a deep page", async () => {
    const n = 30; // cap (30 + 10) * 30 = 1,200, beyond the tickets there are
    const wanted = all.length <= 1_200 ? all.length : 1_200;
    const page = await list(`status=4&page=${n}`);
    expect(page.total).toBe(wanted);
    expect(page.capped).toBe(all.length > 1_200);
    expect(page.pages).toBe(Math.ceil(wanted / PAGE_SIZE));
    expect(page.items.map((i) => i.ticketNumber)).toEqual(all.slice((n - 1) * PAGE_SIZE, n * PAGE_SIZE));
  });

  it("the last page holds the remainder and a page past the end is empty, with the exact count", async () => {
    const last = Math.ceil(all.length / PAGE_SIZE);
    const page = await list(`status=4&page=${last}`);
    expect(page.items.map((i) => i.ticketNumber)).toEqual(all.slice((last - 1) * PAGE_SIZE));
    expect(page).toMatchObject({ total: all.length, capped: false, pages: last });
    const beyond = await list(`status=4&page=${last + 1}`);
    expect(beyond.items).toEqual([]);
    expect(beyond.total).toBe(all.length);
  });

  it("keeps the filters on the deferred page: open tickets of one department, newest first", async () => {
    const { db, schema } = t.handle;
    const k = schema.tickets;
    const where = and(eq(k.kind, "ticket"), eq(k.status, 0), eq(k.departmentId, 2));
    const [{ n }] = await db.select({ n: count() }).from(k).where(where);
    const rows = await db.select({ n: k.ticketNumber }).from(k).where(where).orderBy(desc(k.updatedAt), desc(k.id)).limit(PAGE_SIZE).offset(PAGE_SIZE);
    const page = await list("status=0&department=2&page=2");
    expect(page.items.map((i) => i.ticketNumber)).toEqual(rows.map((r) => r.n));
    expect(page.items.every((i) => i.status === 0)).toBe(true);
    expect(page.total).toBe(Math.min(Number(n), 1_000));
  });
});
