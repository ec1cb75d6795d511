// The catch-up and grouped-list JSON twins on both dialects: /ticket/data/sync, /event/{id},
// /api/session/info and /ticket/load2/{department|label}: each answers only what the caller may
// read, pages what it answers, and refuses bad input with {result, description}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { createSession, findSession, publicSessionId } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { canRead } from "~/conversation/access.server";
import { conversationById, deleteMessage, reply } from "~/conversation/model.server";
import { eventsAfter, latestEventId, syncSince } from "~/conversation/sync.server";
import { loader as syncLoader } from "~/conversation/routes/api.sync";
import { loader as eventsLoader } from "~/conversation/routes/api.events";
import { loader as sessionLoader } from "~/accounts/routes/api.session-info";
import { loader as load2Loader } from "@plugins/tickets/routes/api.load2";

const NOW = Date.UTC(2026, 10, 21, 12);

type Loader = (args: { request: Request; params: Record<string, string>; context: object }) => Promise<Response>;
/** A loader's answer, thrown or returned, as {status, body}. */
async function call(loader: unknown, url: string, params: Record<string, string> = {}, headers: Record<string, string> = {}) {
  let res: Response;
  try {
    res = await (loader as Loader)({ request: new Request(`http://localhost${url}`, { headers }), params, context: {} });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    res = thrown;
  }
  return { status: res.status, body: await res.json() };
}

describe.each(DIALECTS)("catch-up and grouped lists on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow, agent2: UserRow;
  let adminToken: string, agentToken: string;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 80, now: NOW });
    [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
    adminToken = (await createSession(admin.id, { userAgent: "Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36" })).token;
    agentToken = (await createSession(agent.id)).token;
  });
  afterAll(async () => t?.cleanup());

  /** Open tickets of a department moved to `at` (as a change does), ids ascending. */
  async function touchTickets(departmentId: number, n: number, at: number) {
    const { db, schema } = t.handle;
    const rows = await db.select({ id: schema.tickets.id }).from(schema.tickets).where(eq(schema.tickets.departmentId, departmentId)).limit(n);
    for (const r of rows) await db.update(schema.tickets).set({ updatedAt: at }).where(eq(schema.tickets.id, r.id));
    return rows.map((r) => r.id).sort((a, b) => a - b);
  }

  it("sync: the readable conversations changed since ts, oldest change first, paged by a cursor that loses none", async () => {
    const since = NOW + 60_000;
    // five Support (the agent's department) and three Sales tickets change at the same moment
    const support = await touchTickets(2, 5, since + 1000);
    const sales = await touchTickets(1, 3, since + 1000);
    const seen: number[] = [];
    let cursor = { ts: since, after: 0 };
    for (let pages = 0; pages < 10; pages++) {
      const r = await syncSince(agent, cursor, 2);
      seen.push(...r.tickets.map((x) => x.id));
      cursor = r.next;
      if (!r.more) break;
    }
    const agentSees = [];
    for (const id of [...support, ...sales]) if (await canRead(agent, id)) agentSees.push(id);
    expect(seen).toEqual(agentSees.sort((a, b) => a - b));
    expect(seen).toEqual(expect.arrayContaining(support));
    // nothing since the last cursor
    expect((await syncSince(agent, cursor)).tickets).toEqual([]);
    const all = await syncSince(admin, { ts: since, after: 0 });
    expect(all.tickets.map((x) => x.id)).toEqual([...support, ...sales].sort((a, b) => a - b));
  });

  it("sync: a reply shows as its ticket and its message id, with the unread counts; the route pages and refuses bad input", async () => {
    const ticket = await conversationById(admin, (await touchTickets(2, 1, NOW))[0]);
    const before = Date.now() - 1;
    const [sent] = await reply(admin, ticket, { body: "catch this", files: [] });
    const r = await call(syncLoader, `/ticket/data/sync?_token=${agentToken}&ts=${before}`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { id: number }) => d.id)).toContain(ticket.id);
    expect(r.body.messages).toContainEqual({ id: sent.id, ticket_id: ticket.id });
    expect(r.body.unread).toEqual({ ticket: expect.any(Number), livechat: expect.any(Number), chat: expect.any(Number) });
    // seconds work as well as milliseconds
    const inSeconds = await call(syncLoader, `/ticket/data/sync?_token=${agentToken}&ts=${Math.floor(before / 1000)}`);
    expect(inSeconds.body.data.map((d: { id: number }) => d.id)).toContain(ticket.id);
    expect(await call(syncLoader, `/ticket/data/sync?_token=${agentToken}&ts=yesterday`)).toEqual({
      status: 400,
      body: { result: "failed", description: "ts must be a time." },
    });
    expect((await call(syncLoader, `/ticket/data/sync?ts=0`)).status).toBe(403);
  });

  it("events: a deleted message is replayed after the id the client saw, only to those who may read its conversation", async () => {
    const start = await latestEventId();
    const salesId = (await touchTickets(1, 1, NOW))[0];
    const sales = await conversationById(admin, salesId);
    const [m] = await reply(admin, sales, { body: "to be deleted", files: [] });
    await deleteMessage(admin, sales, m.id);
    expect(await latestEventId()).toBeGreaterThan(start);
    const forAdmin = await call(eventsLoader, `/event/${start}?_token=${adminToken}`, { eventId: String(start) });
    expect(forAdmin.body.data).toEqual([expect.objectContaining({ action: "delete_message", ticket_id: salesId, ref_id: m.id })]);
    expect(forAdmin.body.event_id).toBe(forAdmin.body.data[0].id);
    const agentMay = await canRead(agent, salesId);
    const forAgent = await call(eventsLoader, `/event/${start}?_token=${agentToken}`, { eventId: String(start) });
    expect(forAgent.body.data.length).toBe(agentMay ? 1 : 0);
    expect((await eventsAfter(admin, forAdmin.body.event_id)).events).toEqual([]);
    expect((await call(eventsLoader, `/event/x?_token=${adminToken}`, { eventId: "x" })).status).toBe(400);
  });

  it("session info: the caller's own sessions only, with expiry and device", async () => {
    const mine = await call(sessionLoader, `/api/session/info?_token=${adminToken}`);
    expect(mine.body).toMatchObject({
      result: "success",
      current: true,
      user: { username: "admin", type: "admin" },
      device: { browser: "Chrome", system: "Windows" },
    });
    expect(mine.body.expires_at).toBeGreaterThan(Date.now());
    expect(mine.body.idle_expires_at).toBeGreaterThan(Date.now());
    const other = await createSession(admin.id);
    const otherId = publicSessionId((await findSession(other.token))!.session.idHash);
    const byId = await call(sessionLoader, `/api/session/info?_token=${adminToken}&session_id=${otherId}`);
    expect(byId.body).toMatchObject({ session_id: otherId, current: false });
    // the agent asking for the admin's session finds nothing
    expect(await call(sessionLoader, `/api/session/info?_token=${agentToken}&session_id=${otherId}`)).toEqual({
      status: 404,
      body: { result: "failed", description: "Session not found." },
    });
    expect((await call(sessionLoader, `/api/session/info?_token=${agentToken}&session_id=${encodeURIComponent("../x")}`)).status).toBe(400);
    expect((await call(sessionLoader, `/api/session/info`)).status).toBe(403);
  });

  it("load2: 10 of a department's tickets from an offset, only readable ones; every group with extra 0; refusals", async () => {
    const path = (by: string, status: number, offset: number, extra: number, token: string) =>
      call(load2Loader, `/ticket/load2/${by}/${status}/ticket/${offset}/${extra}?_token=${token}`, {
        by,
        status: String(status),
        type: "ticket",
        offset: String(offset),
        extra: String(extra),
      });
    const first = await path("department", 4, 0, 2, adminToken);
    expect(first.body).toMatchObject({ result: "success", group: { id: 2, name: "Support" }, offset: 0 });
    expect(first.body.data).toHaveLength(10);
    const second = await path("department", 4, 10, 2, adminToken);
    const firstIds = first.body.data.map((d: { id: number }) => d.id);
    expect(second.body.data.map((d: { id: number }) => d.id).some((id: number) => firstIds.includes(id))).toBe(false);
    const { db, schema } = t.handle;
    const supportCount = (await db.select({ id: schema.tickets.id }).from(schema.tickets).where(eq(schema.tickets.departmentId, 2))).length;
    expect(first.body.more).toBe(supportCount > 10);

    // agent2 is in Sales: Support tickets appear only where agent2 takes part
    const agent2Token = (await createSession(agent2.id)).token;
    const forAgent2 = await path("department", 4, 0, 2, agent2Token);
    for (const d of forAgent2.body.data) expect(await canRead(agent2, d.id)).toBe(true);

    const groups = await path("label", 4, 0, 0, adminToken);
    expect(groups.body.groups.length).toBeGreaterThan(1);
    for (const g of groups.body.groups) {
      expect(g.data.length).toBeLessThanOrEqual(10);
      for (const d of g.data) expect(JSON.parse(d.label)).toContain(g.id);
    }
    expect(await path("department", 4, 0, 999, adminToken)).toEqual({ status: 404, body: { result: "failed", description: "Department not found." } });
    expect((await path("department", 9, 0, 2, adminToken)).body).toEqual({ result: "failed", description: "The status must be 0 to 4." });
    expect((await path("team", 0, 0, 0, adminToken)).status).toBe(400);
  });
});
