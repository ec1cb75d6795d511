// The kanban board on both dialects: the board by status with its filters (label, department,
// assignee, campaign) and its cap with a count; a move by status through the conversation's own
// write path (its system message) and a move between custom columns (the card's row, its version, a
// system message); moves to where a card is already change nothing; two admins moving one card at
// once (the later move wins, one message each, the card in one place); the columns' own refusals;
// and the page: admins only, not with hide_kanban, the move form's post.
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { insertTicket } from "~/conversation/model.server";
import { addColumn, boardQuery, deleteColumn, loadBoard, moveCard, renameColumn, shiftColumn, kanbanColumns } from "@plugins/kanban/kanban.server";
import { CARD_CAP } from "@plugins/kanban/limits";
import { mayUseBoard } from "@plugins/kanban/socket.server";
import { registerRealtime } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import type { Server } from "socket.io";
import { action as boardAction, loader as boardLoader } from "@plugins/kanban/routes/kanban";

async function call<T extends ActionFunctionArgs | LoaderFunctionArgs>(fn: (args: T) => unknown, request: Request) {
  try {
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params: {} } as T)) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

describe.each(DIALECTS)("kanban (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  const tickets: Record<string, { id: number; ticketNumber: number }> = {};
  let labelId: number;
  let campaignId: number;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    const { db, schema } = t.handle;
    const make = (title: string, departmentId: number, status = 0, campaign: number | null = null) =>
      t.handle.transaction(async (tx) => {
        const row = await insertTicket(
          tx,
          { title, channel: "EMAIL", departmentId, contactName: "Mei", contactEmail: "mei@example.com", contactPhone: "" },
          title,
          Date.now(),
        );
        await tx.update(schema.tickets).set({ status, campaignId: campaign }).where(eq(schema.tickets.id, row.id));
        return row;
      });
    const [label] = await db.insert(schema.labels).values({ name: "Kanban VIP", color: "#aa0000" }).returning();
    labelId = label.id;
    const now = Date.now();
    const [camp] = await db.insert(schema.campaigns).values({ name: "Kanban spring", createdAt: now, updatedAt: now }).returning();
    campaignId = camp.id;
    tickets.a = await make("Board A", agent.departmentId!);
    tickets.b = await make("Board B", agent.departmentId === 1 ? 3 : 1, 1);
    tickets.c = await make("Board C", agent.departmentId!, 2, campaignId);
    await db.insert(schema.ticketLabels).values({ ticketId: tickets.a.id, labelId });
    await db.insert(schema.participants).values({ ticketId: tickets.b.id, userId: agent.id, assignee: true, addedAt: Date.now() });
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const actorOf = (u: UserRow, name = u.name) => ({ id: u.id, type: u.type, departmentId: u.departmentId, name, username: u.username });
  const q = (extra: Record<string, string> = {}) => boardQuery.parse(extra);
  const numbersIn = async (extra: Record<string, string> = {}) =>
    Object.fromEntries((await loadBoard(admin, q(extra))).map((c) => [c.key, c.cards.map((x) => x.ticketNumber)]));
  const systemOf = async (ticketId: number) => {
    const m = t.handle.schema.messages;
    const rows = await t.handle.db
      .select({ body: m.body })
      .from(m)
      .where(and(eq(m.ticketId, ticketId), eq(m.type, "system")))
      .orderBy(asc(m.id));
    return rows.map((r) => JSON.parse(r.body));
  };
  const statusOf = async (ticketId: number) => {
    const [row] = await t.handle.db
      .select({ status: t.handle.schema.tickets.status })
      .from(t.handle.schema.tickets)
      .where(eq(t.handle.schema.tickets.id, ticketId));
    return row.status;
  };

  it("shows tickets by status, filtered by label, department, agent and campaign", async () => {
    const all = await numbersIn();
    expect(all.s0).toContain(tickets.a.ticketNumber);
    expect(all.s1).toEqual([tickets.b.ticketNumber]);
    expect(all.s2).toEqual([tickets.c.ticketNumber]);
    expect(all.s3).toEqual([]);
    expect(Object.values(await numbersIn({ label: String(labelId) })).flat()).toEqual([tickets.a.ticketNumber]);
    expect(Object.values(await numbersIn({ agent: String(agent.id) })).flat()).toEqual([tickets.b.ticketNumber]);
    expect(Object.values(await numbersIn({ campaign: String(campaignId) })).flat()).toEqual([tickets.c.ticketNumber]);
    const dep = await numbersIn({ department: String(agent.departmentId) });
    expect(Object.values(dep).flat().sort()).toEqual([tickets.a.ticketNumber, tickets.c.ticketNumber].sort());
    // nonsense in the query is ignored, not an error
    expect(q({ label: "x'; drop", view: "nope", department: "-1" })).toMatchObject({ view: "status", label: undefined, department: undefined });
  });

  it("caps a column and counts the rest; 'more' shows more of one column", async () => {
    const [dep] = await t.handle.db.insert(t.handle.schema.departments).values({ name: "Kanban bulk" }).returning();
    for (let i = 0; i < CARD_CAP + 2; i++)
      await t.handle.transaction((tx) =>
        insertTicket(
          tx,
          { title: `Bulk ${i}`, channel: "EMAIL", departmentId: dep.id, contactName: "Bo", contactEmail: "bo@example.com", contactPhone: "" },
          "x",
          Date.now() + i,
        ),
      );
    const [open] = await loadBoard(admin, q({ department: String(dep.id) }));
    expect(open.cards).toHaveLength(CARD_CAP);
    expect(open.total).toBe(CARD_CAP + 2);
    const [more] = await loadBoard(admin, q({ department: String(dep.id), more: "s0" }));
    expect(more.cards).toHaveLength(CARD_CAP + 2);
  });

  it("moves a card by status through the conversation's own status change", async () => {
    const out = await moveCard(actorOf(admin), { ticket: String(tickets.a.ticketNumber), to: "s1" });
    expect(out).toEqual({ ok: true, moved: true, ticketNumber: tickets.a.ticketNumber });
    expect(await statusOf(tickets.a.id)).toBe(1);
    expect((await systemOf(tickets.a.id)).at(-1)).toEqual({ event: "status", by: admin.name, status: 1 });
    // again to the same place: nothing changes, no second message
    const before = (await systemOf(tickets.a.id)).length;
    expect(await moveCard(actorOf(admin), { ticket: String(tickets.a.ticketNumber), to: "s1" })).toMatchObject({ ok: true, moved: false });
    expect(await systemOf(tickets.a.id)).toHaveLength(before);
    // bad input
    expect(await moveCard(actorOf(admin), { ticket: "abc", to: "s1" })).toMatchObject({ ok: false, status: 400 });
    expect(await moveCard(actorOf(admin), { ticket: String(tickets.a.ticketNumber), to: "s9" })).toMatchObject({ ok: false, status: 400 });
    expect(await moveCard(actorOf(admin), { ticket: "999999999", to: "s1" })).toMatchObject({ ok: false, status: 404 });
    // an agent's move of a ticket they may not read is like no ticket
    expect(await moveCard(actorOf(agent), { ticket: String(tickets.b.ticketNumber), to: "s0" })).toMatchObject({ ok: true });
    const other = await t.handle.transaction((tx) =>
      insertTicket(
        tx,
        {
          title: "Not theirs",
          channel: "EMAIL",
          departmentId: agent.departmentId === 1 ? 3 : 1,
          contactName: "X",
          contactEmail: "x@example.com",
          contactPhone: "",
        },
        "x",
        Date.now(),
      ),
    );
    expect(await moveCard(actorOf(agent), { ticket: String(other.ticketNumber), to: "s2" })).toMatchObject({ ok: false, status: 404 });
  });

  it("moves a card between custom columns: its row and version, a system message, out again", async () => {
    const todo = await addColumn({ name: "To do" });
    const doing = await addColumn({ name: "Doing" });
    expect(todo.ok && doing.ok).toBe(true);
    if (!todo.ok || !doing.ok) return;
    expect(await addColumn({ name: " to DO " })).toMatchObject({ ok: false, status: 409 });
    expect(await addColumn({ name: "   " })).toMatchObject({ ok: false, status: 400 });
    expect(await addColumn({ name: "t:plugin_kanban.title" })).toMatchObject({ ok: false, status: 400 });
    expect(await addColumn({ name: "x".repeat(61) })).toMatchObject({ ok: false, status: 400 });

    const n = String(tickets.a.ticketNumber);
    expect(await moveCard(actorOf(admin), { ticket: n, to: `c${todo.value}` })).toMatchObject({ ok: true, moved: true });
    expect(await moveCard(actorOf(admin), { ticket: n, to: `c${doing.value}` })).toMatchObject({ ok: true, moved: true });
    expect(await moveCard(actorOf(admin), { ticket: n, to: `c${doing.value}` })).toMatchObject({ ok: true, moved: false });
    const board = await loadBoard(admin, q({ view: "columns" }));
    expect(board.map((c) => c.key)).toEqual(["none", `c${todo.value}`, `c${doing.value}`]);
    const card = board[2].cards.find((c) => c.ticketNumber === tickets.a.ticketNumber)!;
    expect(card.version).toBe(2);
    expect(board[0].cards.map((c) => c.ticketNumber)).toContain(tickets.b.ticketNumber);
    // resolved tickets are not on the custom board
    expect(board.flatMap((c) => c.cards).map((c) => c.ticketNumber)).not.toContain(tickets.c.ticketNumber);
    expect((await systemOf(tickets.a.id)).slice(-2)).toEqual([
      { event: "plugin", by: admin.name, text: "plugin_kanban.system.moved", values: { column: "To do" } },
      { event: "plugin", by: admin.name, text: "plugin_kanban.system.moved", values: { column: "Doing" } },
    ]);
    // columns: rename, shift, a move to a column that is gone, delete puts its cards back in none
    expect(await renameColumn(doing.value, { name: "In progress" })).toMatchObject({ ok: true });
    expect(await renameColumn(doing.value, { name: "To do" })).toMatchObject({ ok: false, status: 409 });
    await shiftColumn(doing.value, -1);
    expect((await kanbanColumns()).map((c) => c.name)).toEqual(["In progress", "To do"]);
    expect(await moveCard(actorOf(admin), { ticket: n, to: "c999999" })).toMatchObject({ ok: false, status: 404 });
    await deleteColumn(doing.value);
    const after = await loadBoard(admin, q({ view: "columns" }));
    expect(after[0].cards.map((c) => c.ticketNumber)).toContain(tickets.a.ticketNumber);
    expect(await moveCard(actorOf(admin), { ticket: n, to: `c${todo.value}` })).toMatchObject({ ok: true, moved: true });
    expect(await moveCard(actorOf(admin), { ticket: n, to: "none" })).toMatchObject({ ok: true, moved: true });
    expect((await systemOf(tickets.a.id)).at(-1)).toMatchObject({ text: "plugin_kanban.system.removed" });
  });

  it("two admins moving one card at once: each move whole, the later one wins", async () => {
    const n = String(tickets.a.ticketNumber);
    const one = actorOf(admin, "Admin One");
    const two = actorOf(admin, "Admin Two");
    // by status: both to different statuses at once
    const count = async () => (await systemOf(tickets.a.id)).length;
    const before = await count();
    const [x, y] = await Promise.all([moveCard(one, { ticket: n, to: "s3" }), moveCard(two, { ticket: n, to: "s2" })]);
    expect(x.ok && y.ok).toBe(true);
    const status = await statusOf(tickets.a.id);
    const messages = (await systemOf(tickets.a.id)).slice(before);
    // one message per move that changed something, the last one says where the card is
    expect(messages.length).toBe([x, y].filter((o) => o.ok && o.moved).length);
    expect(messages.at(-1)).toMatchObject({ event: "status", status });
    expect([2, 3]).toContain(status);
    // both to the same status at once: one change, one message
    const mid = await count();
    const [p, r] = await Promise.all([moveCard(one, { ticket: n, to: "s0" }), moveCard(two, { ticket: n, to: "s0" })]);
    expect([p, r].filter((o) => o.ok && o.moved)).toHaveLength(1);
    expect((await count()) - mid).toBe(1);

    // custom columns: many moves at once, the card ends in one column with a version per move
    const a = await addColumn({ name: "Race A" });
    const b = await addColumn({ name: "Race B" });
    if (!a.ok || !b.ok) throw new Error("columns");
    const moves = await Promise.all(Array.from({ length: 6 }, (_, i) => moveCard(i % 2 ? one : two, { ticket: n, to: `c${i % 2 ? a.value : b.value}` })));
    const changed = moves.filter((o) => o.ok && o.moved).length;
    const [card] = await t.handle.db.select().from(t.handle.schema.kanbanCards).where(eq(t.handle.schema.kanbanCards.ticketId, tickets.a.id));
    expect(card.version).toBe(changed);
    const last = (await systemOf(tickets.a.id)).at(-1);
    expect(last.values.column).toBe(card.columnId === a.value ? "Race A" : "Race B");
    const board = await loadBoard(admin, q({ view: "columns" }));
    expect(board.filter((c) => c.cards.some((x) => x.ticketNumber === tickets.a.ticketNumber))).toHaveLength(1);
  });

  it("tells every open board (the kanban room) of a move; only admins without hide_kanban join it", async () => {
    const heard: { room: string; event: string; payload: unknown }[] = [];
    registerRealtime({ to: (room: string) => ({ emit: (event: string, payload: unknown) => heard.push({ room, event, payload }) }) } as unknown as Server);
    try {
      const n = tickets.b.ticketNumber;
      const [before] = await t.handle.db
        .select({ status: t.handle.schema.tickets.status })
        .from(t.handle.schema.tickets)
        .where(eq(t.handle.schema.tickets.id, tickets.b.id));
      const to = before.status === 3 ? "s2" : "s3";
      expect(await moveCard(actorOf(admin), { ticket: String(n), to })).toMatchObject({ ok: true, moved: true });
      expect(heard.filter((h) => h.room === "kanban")).toEqual([
        { room: "kanban", event: SERVER_EVENTS.receiveKanbanNotification, payload: { ticketNumber: n, to, version: 0 } },
      ]);
      // a move that changes nothing tells nobody
      heard.length = 0;
      await moveCard(actorOf(admin), { ticket: String(n), to });
      expect(heard.filter((h) => h.room === "kanban")).toEqual([]);
    } finally {
      registerRealtime(undefined);
    }
    expect(mayUseBoard({ type: "admin", permissions: "[]" })).toBe(true);
    expect(mayUseBoard({ type: "admin", permissions: JSON.stringify(["hide_kanban"]) })).toBe(false);
    expect(mayUseBoard({ type: "agent", permissions: "[]" })).toBe(false);
  });

  it("the page: admins only, not with hide_kanban; a move posted by the form redirects back with the filters", async () => {
    const cookieOf = async (u: UserRow) => sessionCookie().serialize((await createSession(u.id)).token);
    const agentRes = await call(boardLoader, new Request("http://localhost/kanban", { headers: { Cookie: await cookieOf(agent) } }));
    expect(agentRes.status).toBe(302);
    expect(agentRes.headers.get("Location")).toBe("/");
    const adminCookie = await cookieOf(admin);
    const ok = await call(boardLoader, new Request("http://localhost/kanban?view=columns", { headers: { Cookie: adminCookie } }));
    expect(ok.status).toBe(200);
    const post = await call(
      boardAction,
      new Request(`http://localhost/kanban?label=${labelId}`, {
        method: "POST",
        body: new URLSearchParams({ intent: "move", ticket: String(tickets.a.ticketNumber), to: "s1" }),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: adminCookie },
      }),
    );
    expect(post.status).toBe(302);
    expect(post.headers.get("Location")).toBe(`/kanban?label=${labelId}&moved=${tickets.a.ticketNumber}`);
    const bad = await call(
      boardAction,
      new Request("http://localhost/kanban", {
        method: "POST",
        body: new URLSearchParams({ intent: "move", ticket: String(tickets.a.ticketNumber), to: "elsewhere" }),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: adminCookie },
      }),
    );
    expect(bad.status).toBe(400);
    // an admin with hide_kanban is sent home too
    await t.handle.db
      .update(t.handle.schema.users)
      .set({ permissions: JSON.stringify(["hide_kanban"]) })
      .where(eq(t.handle.schema.users.id, admin.id));
    const hidden = await call(boardLoader, new Request("http://localhost/kanban", { headers: { Cookie: adminCookie } }));
    expect(hidden.status).toBe(302);
    const hiddenPost = await call(
      boardAction,
      new Request("http://localhost/kanban", {
        method: "POST",
        body: new URLSearchParams({ intent: "move", ticket: String(tickets.a.ticketNumber), to: "s0" }),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: adminCookie },
      }),
    );
    expect(hiddenPost.status).toBe(302);
    expect(await statusOf(tickets.a.id)).toBe(1);
    await t.handle.db.update(t.handle.schema.users).set({ permissions: "[]" }).where(eq(t.handle.schema.users.id, admin.id));
  });
});
