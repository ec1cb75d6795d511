// The board and the knowledge base leave their trace, on both dialects: moving a card (by status or
// between columns) and editing the columns write audit entries; the move's JSON twin
// (/api/kanban/move) answers success, refuses a bad move and anyone who may not use the board; a
// status change made on the ticket page reaches the open boards (the status-watch room); and an
// article's creation, edits, publishing, withdrawal and deletion are audited, the deletion from a
// confirmation page whose form an agent cannot post.
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import type { Server } from "socket.io";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { findConversation, insertTicket, setStatus } from "~/conversation/model.server";
import { STATUS_WATCH_ROOM } from "~/conversation/events.server";
import { registerRealtime } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { addColumn, deleteColumn, moveCard, renameColumn } from "@plugins/kanban/kanban.server";
import { action as moveApi } from "@plugins/kanban/routes/api.kanban.move";
import { createArticle, getArticle, restoreVersion, updateArticle } from "@plugins/kb/kb.server";
import { action as deleteAction, loader as deleteLoader } from "@plugins/kb/routes/kb.delete";

async function call<T extends ActionFunctionArgs | LoaderFunctionArgs>(fn: (args: T) => unknown, request: Request, params: Record<string, string> = {}) {
  try {
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params } as T)) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

describe.each(DIALECTS)("board and knowledge base audit (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  const actor = (u: UserRow) => ({ id: u.id, type: u.type, departmentId: u.departmentId, name: u.name, username: u.username });
  const entries = async (prefix: string) =>
    (await t.handle.db.select().from(t.handle.schema.auditLog).orderBy(asc(t.handle.schema.auditLog.id)))
      .filter((e) => e.action.startsWith(prefix))
      .map((e) => ({ action: e.action, actor: e.actorName, target: `${e.targetType}:${e.targetId}`, detail: JSON.parse(e.detail) as Record<string, unknown> }));
  const ticket = (title: string) =>
    t.handle.transaction((tx) =>
      insertTicket(
        tx,
        { title, channel: "EMAIL", departmentId: agent.departmentId, contactName: "Mei", contactEmail: "mei@example.com", contactPhone: "" },
        title,
        Date.now(),
      ),
    );

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("audits card moves and column edits", async () => {
    const a = await ticket("Audit A");
    expect(await moveCard(actor(admin), { ticket: String(a.ticketNumber), to: "s1" })).toMatchObject({ ok: true, moved: true });
    const col = await addColumn({ name: "Waiting on parts" }, actor(admin));
    expect(col.ok).toBe(true);
    const colId = col.ok ? col.value : 0;
    expect(await moveCard(actor(admin), { ticket: String(a.ticketNumber), to: `c${colId}` })).toMatchObject({ moved: true });
    expect(await moveCard(actor(admin), { ticket: String(a.ticketNumber), to: "none" })).toMatchObject({ moved: true });
    // a move to where it is writes nothing
    expect(await moveCard(actor(admin), { ticket: String(a.ticketNumber), to: "s1" })).toMatchObject({ moved: false });
    await renameColumn(colId, { name: "Parts" }, actor(admin));
    await deleteColumn(colId, actor(admin));
    await deleteColumn(colId, actor(admin)); // gone already: nothing more
    const target = `ticket:${a.ticketNumber}`;
    expect(await entries("kanban.")).toEqual([
      { action: "kanban.card_moved", actor: admin.name, target, detail: { from: "s0", to: "s1" } },
      { action: "kanban.column_created", actor: admin.name, target: `kanban_column:${colId}`, detail: { name: "Waiting on parts" } },
      { action: "kanban.card_moved", actor: admin.name, target, detail: { from: "none", to: `c${colId}`, column: "Waiting on parts" } },
      { action: "kanban.card_moved", actor: admin.name, target, detail: { from: `c${colId}`, to: "none" } },
      { action: "kanban.column_renamed", actor: admin.name, target: `kanban_column:${colId}`, detail: { name: "Parts" } },
      { action: "kanban.column_deleted", actor: admin.name, target: `kanban_column:${colId}`, detail: { name: "Parts" } },
    ]);
  });

  it("moves a card through the JSON twin, for board users only", async () => {
    const b = await ticket("Audit B");
    const post = (token: string, body: Record<string, unknown>) =>
      call(
        moveApi,
        new Request("http://localhost/api/kanban/move", {
          method: "POST",
          body: JSON.stringify({ _token: token, ...body }),
          headers: { "Content-Type": "application/json" },
        }),
      );
    const adminToken = (await createSession(admin.id)).token;
    let res = await post(adminToken, { ticket: b.ticketNumber, to: "s2" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ result: "success", moved: true, ticket_number: b.ticketNumber });
    res = await post(adminToken, { ticket: b.ticketNumber, to: "s2" });
    expect(await res.json()).toEqual({ result: "success", moved: false, ticket_number: b.ticketNumber });
    res = await post(adminToken, { ticket: b.ticketNumber, to: "sideways" });
    expect(res.status).toBe(400);
    expect((await res.json()).result).toBe("failed");
    res = await post(adminToken, { ticket: 999_999_999, to: "s0" });
    expect(res.status).toBe(404);
    res = await post((await createSession(agent.id)).token, { ticket: b.ticketNumber, to: "s0" });
    expect(res.status).toBe(403);
    res = await post("no-such-token", { ticket: b.ticketNumber, to: "s0" });
    expect(res.status).toBe(403);
    const [row] = await t.handle.db
      .select({ status: t.handle.schema.tickets.status })
      .from(t.handle.schema.tickets)
      .where(eq(t.handle.schema.tickets.id, b.id));
    expect(row.status).toBe(2);
  });

  it("tells the open boards of a status change made on the ticket page", async () => {
    const c = await ticket("Audit C");
    const heard: { room: string; event: string; payload: unknown }[] = [];
    registerRealtime({ to: (room: string) => ({ emit: (event: string, payload: unknown) => heard.push({ room, event, payload }) }) } as unknown as Server);
    try {
      const row = await findConversation(admin, c.ticketNumber, "ticket");
      expect(await setStatus(actor(agent), row, 2)).toBe(true);
      expect(heard.filter((h) => h.room === STATUS_WATCH_ROOM)).toEqual([
        { room: STATUS_WATCH_ROOM, event: SERVER_EVENTS.ticketStatusChanged, payload: { ticketId: c.id, ticketNumber: c.ticketNumber, status: 2 } },
      ]);
    } finally {
      registerRealtime(undefined);
    }
  });

  const base = { type: "kb", lang: "en", category: "Billing", summary: "", visibility: "internal" };

  it("audits an article's creation, edits, publishing, withdrawal and restore", async () => {
    const made = await createArticle(admin, { ...base, title: "Invoices", body: "Sent monthly." });
    const id = made.ok ? made.id : 0;
    await updateArticle(admin, id, { ...base, title: "Invoices", body: "Sent on the 1st.", visibility: "public", version: "1" });
    await updateArticle(admin, id, { ...base, title: "Invoices", body: "Sent on the 1st.", visibility: "internal", version: "2" });
    await restoreVersion(admin, id, 2);
    const target = `kb_article:${id}`;
    expect(await entries("kb.")).toEqual([
      { action: "kb.article_created", actor: admin.name, target, detail: { title: "Invoices", version: 1, visibility: "internal" } },
      { action: "kb.article_updated", actor: admin.name, target, detail: { title: "Invoices", version: 2, visibility: "public" } },
      { action: "kb.article_published", actor: admin.name, target, detail: { title: "Invoices" } },
      { action: "kb.article_updated", actor: admin.name, target, detail: { title: "Invoices", version: 3, visibility: "internal" } },
      { action: "kb.article_unpublished", actor: admin.name, target, detail: { title: "Invoices" } },
      { action: "kb.article_updated", actor: admin.name, target, detail: { title: "Invoices", version: 4, visibility: "public", restored: 2 } },
      { action: "kb.article_published", actor: admin.name, target, detail: { title: "Invoices" } },
    ]);
  });

  it("deletes an article from its confirmation page (admins only), audited", async () => {
    const made = await createArticle(admin, { ...base, title: "Old promo", body: "Gone soon." });
    const id = made.ok ? made.id : 0;
    const cookieOf = async (u: UserRow) => sessionCookie().serialize((await createSession(u.id)).token);
    const params = { id: String(id) };
    const url = `http://localhost/kb/${id}/delete`;
    const page = await call(deleteLoader, new Request(url, { headers: { Cookie: await cookieOf(admin) } }), params);
    expect(page.status).toBe(200);
    expect((await page.json()).article).toMatchObject({ id, title: "Old promo", version: 1, publicPath: null });
    // an agent may read the knowledge base but not delete from it
    const agentCookie = await cookieOf(agent);
    expect((await call(deleteLoader, new Request(url, { headers: { Cookie: agentCookie } }), params)).status).toBe(403);
    expect((await call(deleteAction, new Request(url, { method: "POST", headers: { Cookie: agentCookie } }), params)).status).toBe(403);
    expect(await getArticle(id)).toBeDefined();
    const done = await call(deleteAction, new Request(url, { method: "POST", headers: { Cookie: await cookieOf(admin) } }), params);
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe(`/kb?deleted=${encodeURIComponent("Old promo")}`);
    expect(await getArticle(id)).toBeUndefined();
    expect((await entries("kb.article_deleted")).map((e) => [e.target, e.detail])).toEqual([
      [`kb_article:${id}`, { title: "Old promo", visibility: "internal" }],
    ]);
    // deleted already (another tab): back to the list, no second entry
    const again = await call(deleteAction, new Request(url, { method: "POST", headers: { Cookie: await cookieOf(admin) } }), params);
    expect(again.headers.get("Location")).toBe("/kb");
    expect(await entries("kb.article_deleted")).toHaveLength(1);
  });
});
