// The call list's filters and the calls' JSON twins on both dialects: emotion (the ticket's), energy,
// pace and personality (the AI's reading in ai_ticket_analysis, read through the shared schema),
// label, assignee, DID, direction, number and dates, paged by 30; /api/ticket/load/{token}/{status}/
// call|call2/{offset} (the ticket twin's filter names, 400 for a bad value, 403 without a session,
// only what the reader may read), /api/ticket/data3 (a CALL ticket's messages and call; 403 and 404
// as the pages), /api/extension/get and /api/proxy/imc_user. The /call page names a bad filter and
// keeps the others.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { saveSipAccount } from "@plugins/calls/sip.server";
import { listCalls, parseCallFilter, recordCallEvent } from "@plugins/calls/calls.server";
import { loader as loadRoute } from "@plugins/calls/routes/api.ticket.load";
import { loader as data3Route } from "@plugins/calls/routes/api.ticket.data3";
import { loader as extensionRoute } from "@plugins/calls/routes/api.extension.get";
import { loader as imcRoute } from "@plugins/calls/routes/api.proxy.imc_user";
import { loader as pageRoute } from "@plugins/calls/routes/calls";

type Loader = (args: { request: Request; params: Record<string, string>; context: object }) => Promise<Response>;
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

describe.each(DIALECTS)("call filters and the calls' JSON twins (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow, agent2: UserRow;
  let adminToken: string, agentToken: string, adminCookie: string;
  let labelId: number;
  const tz = "Asia/Kuala_Lumpur";
  const ids = (list: { calls: { sipCallId: string }[] }) => list.calls.map((c) => c.sipCallId).sort();
  const load = (token: string, query = "", type = "call", status = "4", offset = "0") =>
    call(loadRoute, `/api/ticket/load/${token}/${status}/${type}/${offset}${query}`, { token, status, offset });

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
    const by = { actor: { id: admin.id, name: admin.username } };
    await saveSipAccount({ userId: agent.id, sipNumber: "2001", password: "agent-sip-pass", active: true }, by);
    await saveSipAccount({ userId: agent2.id, sipNumber: "2002", password: "agent2-sip-pass", active: false }, by);
    adminToken = (await createSession(admin.id)).token;
    agentToken = (await createSession(agent.id)).token;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    const { db, schema } = t.handle;
    [{ id: labelId }] = await db.select({ id: schema.labels.id }).from(schema.labels).limit(1);

    // four calls: inbound to agent on DID 2001 (angry, loud, fast, driver, labelled), inbound to agent2,
    // outbound from agent2, internal agent -> agent2
    await recordCallEvent({ event: "invite", call_id: "in-a", from: "+60123456789", to: "2001" });
    await recordCallEvent({ event: "invite", call_id: "in-b", from: "+15550100", to: "2002" });
    await recordCallEvent({ event: "invite", call_id: "out-b", from: "2002", to: "+442079460000" });
    await recordCallEvent({ event: "invite", call_id: "int-ab", from: "2001", to: "2002" });
    const ticketOf = async (callId: string) => (await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, callId)))[0].ticketId;
    const angry = await ticketOf("in-a");
    await db.update(schema.tickets).set({ emotion: "anger" }).where(eq(schema.tickets.id, angry));
    await db.insert(schema.aiTicketAnalysis).values({ ticketId: angry, energy: 75, pace: 100, personality: "driver", updatedAt: Date.now() });
    await db.insert(schema.aiTicketAnalysis).values({ ticketId: await ticketOf("in-b"), energy: 25, pace: 50, personality: "amiable", updatedAt: Date.now() });
    await db.insert(schema.ticketLabels).values({ ticketId: angry, labelId });
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("parses each filter on its own: a bad value is named, the others still apply", () => {
    const parsed = parseCallFilter({ emotion: "anger", energy: "33", pace: "75", personality: "grumpy", label: "x", did: "2001", number: "(60) 12", page: "" });
    expect(parsed.filter).toEqual({ emotion: "anger", pace: 75, did: "2001", number: "6012" });
    expect(parsed.invalid.sort()).toEqual(["energy", "label", "personality"]);
    expect(parsed.values.energy).toBe("33");
  });

  it("filters the list by emotion, energy, pace, personality, label, assignee, DID and direction", async () => {
    expect(ids(await listCalls(admin, {}, tz))).toEqual(["in-a", "in-b", "int-ab", "out-b"]);
    expect(ids(await listCalls(admin, { emotion: "anger" }, tz))).toEqual(["in-a"]);
    expect(ids(await listCalls(admin, { emotion: "sad" }, tz))).toEqual([]);
    expect(ids(await listCalls(admin, { energy: 75 }, tz))).toEqual(["in-a"]);
    expect(ids(await listCalls(admin, { energy: 25, pace: 50 }, tz))).toEqual(["in-b"]);
    expect(ids(await listCalls(admin, { pace: 100, personality: "amiable" }, tz))).toEqual([]);
    expect(ids(await listCalls(admin, { personality: "driver" }, tz))).toEqual(["in-a"]);
    expect(ids(await listCalls(admin, { label: labelId }, tz))).toEqual(["in-a"]);
    expect(ids(await listCalls(admin, { assignee: "agent2" }, tz))).toEqual(["in-b", "int-ab", "out-b"]);
    expect(ids(await listCalls(admin, { did: "2001" }, tz))).toEqual(["in-a"]);
    expect(ids(await listCalls(admin, { direction: "internal", assignee: "agent2" }, tz))).toEqual(["int-ab"]);
    const [row] = (await listCalls(admin, { did: "2001" }, tz)).calls;
    expect(row).toMatchObject({ emotion: "anger", energy: 75, pace: 100, personality: "driver", assignees: ["agent"] });
    expect(row.labels.map((l) => l.id)).toEqual([labelId]);
    // the agent (department 2) reads only the calls it is on
    expect(ids(await listCalls(agent, {}, tz))).toEqual(["in-a", "int-ab"]);
    expect(ids(await listCalls(agent, { energy: 25 }, tz))).toEqual([]);
  });

  it("answers /api/ticket/load for call and call2 with the filters, by the ticket twin's names, paged by 30", async () => {
    const all = await load(adminToken);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ result: "success", status: 4, count: 4 });
    const inA = all.body.data.find((r: { caller: string }) => r.caller === "+60123456789");
    expect(inA).toMatchObject({
      channel: "CALL",
      call_direction: "inbound",
      did: "2001",
      phone: "+60123456789",
      assignee: "agent",
      emotion: "anger",
      energy: 75,
      pace: 100,
      personality: "driver",
      label: JSON.stringify([labelId]),
      state: "ringing",
    });
    expect((await load(adminToken, "?emotion=anger&energy=75&pace=100&personality=driver", "call2")).body.count).toBe(1);
    expect((await load(adminToken, `?labelFilter=${labelId}&agent=agent`)).body.count).toBe(1);
    expect((await load(adminToken, "?direction=outbound&number=4420")).body.count).toBe(1);
    expect((await load(adminToken, "?did=2001")).body.count).toBe(1);
    // dates as the spec sends them ('YYYY-MM-DD 00:00:00'): none of these calls is from 2020
    expect((await load(adminToken, "?startDate=2020-01-01%2000:00:00&endDate=2020-01-02%2000:00:00")).body.count).toBe(0);
    // ticket status: the calls are open (0); closed (3) has none
    expect((await load(adminToken, "", "call", "0")).body.count).toBe(4);
    expect((await load(adminToken, "", "call", "3")).body.count).toBe(0);
    // the agent reads only its calls
    expect((await load(agentToken)).body.count).toBe(2);
    // bad input: the spec's message and the field
    for (const [query, field] of [
      ["?energy=33", "energy"],
      ["?emotion=bored", "emotion"],
      ["?startDate=yesterday", "from"],
      ["?direction=sideways", "direction"],
      ["?labelFilter=abc", "label"],
    ]) {
      const bad = await load(adminToken, query);
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ result: "failed", description: "Please check the input.", field });
    }
    expect((await load(adminToken, "", "call", "9")).status).toBe(400);
    expect((await load(adminToken, "", "call", "4", "-30")).status).toBe(400);
    expect((await load("not-a-session")).status).toBe(403);
  });

  it("pages the twin by 30 from its offset", async () => {
    for (let i = 0; i < 30; i++) await recordCallEvent({ event: "invite", call_id: `bulk-${i}`, from: "+15550199", to: "2001" });
    const first = await load(adminToken, "?number=15550199");
    expect([first.body.count, first.body.data.length]).toEqual([30, 30]);
    expect((await load(adminToken, "", "call", "4", "30")).body.data).toHaveLength(4);
    expect((await load(adminToken, "", "call", "4", "60")).body.data).toHaveLength(0);
  });

  it("answers /api/ticket/data3 for a CALL ticket the user may read, 403 and 404 otherwise", async () => {
    const { db, schema } = t.handle;
    const [inB] = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, "in-b"));
    const ok = await call(data3Route, `/api/ticket/data3/${inB.ticketId}/0?_token=${adminToken}`, { id: String(inB.ticketId), count: "0" });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ result: "success", call: { call_direction: "inbound", caller: "+15550100", called: "2002", state: "ringing" } });
    expect(ok.body.data.length).toBeGreaterThan(0);
    // agent is not on that call (agent2 is) and may not read it
    const denied = await call(data3Route, `/api/ticket/data3/${inB.ticketId}/0?_token=${agentToken}`, { id: String(inB.ticketId), count: "0" });
    expect(denied.status).toBe(403);
    expect(denied.body.description).toBe("Access denied");
    // not a call: its twin is /ticket/data
    const ticketId = (
      await db.insert(schema.tickets).values({ ticketNumber: 999_001, title: "mail", channel: "EMAIL", kind: "ticket", createdAt: 1, updatedAt: 1 }).returning()
    )[0].id;
    expect((await call(data3Route, `/api/ticket/data3/${ticketId}/0?_token=${adminToken}`, { id: String(ticketId), count: "0" })).status).toBe(404);
    expect((await call(data3Route, `/api/ticket/data3/abc/0?_token=${adminToken}`, { id: "abc", count: "0" })).status).toBe(400);
    expect((await call(data3Route, `/api/ticket/data3/${inB.ticketId}/0`, { id: String(inB.ticketId), count: "0" })).status).toBe(403);
  });

  it("lists the active extensions and the DIDs calls came in on", async () => {
    const ext = await call(extensionRoute, `/api/extension/get?_token=${agentToken}`);
    expect(ext.body).toEqual({ result: "success", data: [{ extension_id: "2001", sip_number: "2001", username: "agent", name: agent.name }] });
    expect((await call(extensionRoute, "/api/extension/get")).status).toBe(403);
    const imc = await call(imcRoute, `/api/proxy/imc_user?_token=${agentToken}`);
    expect(imc.body).toEqual([
      { DIDnumber: "2001", accountDescription: "" },
      { DIDnumber: "2002", accountDescription: "" },
    ]);
    expect((await call(imcRoute, "/api/proxy/imc_user")).status).toBe(403);
  });

  it("the /call page names a bad filter, keeps every value and filters by the good ones", async () => {
    const page = await call(pageRoute, `/call?emotion=anger&energy=33&did=2001`, {}, { Cookie: adminCookie });
    expect(page.status).toBe(200);
    expect(page.body.invalid).toEqual(["energy"]);
    expect(page.body.filter).toMatchObject({ emotion: "anger", energy: "33", did: "2001" });
    expect(page.body.calls.map((c: { sipCallId: string }) => c.sipCallId)).toEqual(["in-a"]);
    expect(page.body.choices.dids).toEqual(["2001", "2002"]);
  });
});
