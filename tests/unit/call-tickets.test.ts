// CALL tickets from the SIP server's events, on both dialects: Kamailio's hook (its secret, what is
// not an event), one ticket and one call row per Call-ID however often an event repeats, the call
// moving only forward (answer, hold, resume, end), ring / talk / hold durations and the hang-up
// cause, inbound numbers kept in E.164 with the DID, the agents on the call as participants, the
// list's access (an agent of another department sees nothing), paging by 30 and the filters,
// after-call work (the call's agent only, at most acw_seconds, once), and calls left open by a
// restarted call server closed with their cause.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { saveSipAccount, sipHookSecret } from "@plugins/calls/sip.server";
import { callOfTicket, closeOrphanedCalls, listCalls, normaliseNumber, recordAfterCallWork, recordCallEvent, sipEventHook } from "@plugins/calls/calls.server";
import { callPanel } from "@plugins/calls/panel.server";
import * as eventRoute from "@plugins/calls/routes/hook.event";

const form = (values: Record<string, string>) => new URLSearchParams(values);

describe.each(DIALECTS)("CALL tickets from Kamailio's events (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let agent2: UserRow;
  const tz = "Asia/Kuala_Lumpur";

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    agent2 = (await findUserByUsername("agent2"))!;
    const by = { actor: { id: admin.id, name: admin.username } };
    await saveSipAccount({ userId: agent.id, sipNumber: "2001", password: "agent-sip-pass", active: true }, by);
    await saveSipAccount({ userId: agent2.id, sipNumber: "2002", password: "agent2-sip-pass", active: true }, by);
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
  });

  it("refuses a hook call without the secret, and what is not an event", async () => {
    expect(await sipEventHook("wrong", form({ event: "invite", call_id: "x1", from: "2001", to: "2002" }))).toEqual({ status: 403, body: "forbidden" });
    expect((await sipEventHook(sipHookSecret(), form({ event: "explode", call_id: "x1" }))).status).toBe(400);
    expect((await sipEventHook(sipHookSecret(), form({ event: "invite", call_id: "x1", from: "<script>", to: "2002" }))).status).toBe(400);
    const { db, schema } = t.handle;
    expect(await db.select().from(schema.calls)).toHaveLength(0);
  });

  it("makes one CALL ticket per call, however often Kamailio repeats an event, and times it", async () => {
    const secret = sipHookSecret();
    const id = "call-internal-1@omnidesk";
    const t0 = 1_800_000_000_000;
    // through the route, as Kamailio posts it
    const response = await eventRoute.action({
      request: new Request("http://127.0.0.1/hooks/sip/event", {
        method: "POST",
        body: form({ event: "invite", call_id: id, from: "2001", to: "2002" }),
        headers: { "X-Sip-Hook-Secret": secret, "Content-Type": "application/x-www-form-urlencoded" },
      }),
      context: {},
      params: {},
    } as never);
    expect(response.status).toBe(200);
    await sipEventHook(secret, form({ event: "invite", call_id: id, from: "2001", to: "2002" }));
    const { db, schema } = t.handle;
    const rows = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, id));
    expect(rows).toHaveLength(1);
    const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, rows[0].ticketId));
    expect(ticket).toMatchObject({ channel: "CALL", kind: "call", departmentId: agent2.departmentId });
    expect(rows[0]).toMatchObject({ direction: "internal", fromNumber: "2001", toNumber: "2002", agentUserId: agent2.id, state: "ringing" });
    const people = await db.select().from(schema.participants).where(eq(schema.participants.ticketId, ticket.id));
    expect(people.map((p) => [p.userId, p.assignee]).sort()).toEqual(
      [
        [agent.id, false],
        [agent2.id, true],
      ].sort(),
    );

    // the times are the events': started t0, answered after 4 s, held 3 s, ended after 20 s
    await db.update(schema.calls).set({ startedAt: t0 }).where(eq(schema.calls.sipCallId, id));
    await recordCallEvent({ event: "answer", call_id: id }, t0 + 4000);
    await recordCallEvent({ event: "answer", call_id: id }, t0 + 9000);
    await recordCallEvent({ event: "hold", call_id: id }, t0 + 10_000);
    await recordCallEvent({ event: "hold", call_id: id }, t0 + 11_000);
    await recordCallEvent({ event: "resume", call_id: id }, t0 + 13_000);
    await recordCallEvent({ event: "resume", call_id: id }, t0 + 14_000);
    const ended = await recordCallEvent({ event: "end", call_id: id, code: 200, by: "2002" }, t0 + 24_000);
    expect(ended).toMatchObject({ state: "ended", hangupCause: "normal", hangupBy: "2002", holdMs: 3000, answeredAt: t0 + 4000 });
    // late or repeated events change nothing
    await recordCallEvent({ event: "end", call_id: id, code: 487, by: "" }, t0 + 60_000);
    await recordCallEvent({ event: "hold", call_id: id }, t0 + 61_000);
    const call = await callOfTicket(ticket.id);
    expect(call).toMatchObject({ ring: 4, talk: 17, hold: 3, acw: null, hangupCause: "normal", endedAt: t0 + 24_000 });
    const panel = await callPanel({ ticket: { ...ticket, kind: "call" }, reader: admin, viewer: admin as never });
    expect(panel?.items.map((i) => ("key" in i.label ? i.label.key : ""))).toEqual([
      "plugin_calls.panel.direction",
      "plugin_calls.panel.numbers",
      "plugin_calls.panel.agent",
      "plugin_calls.panel.state",
      "plugin_calls.panel.ring",
      "plugin_calls.panel.talk",
      "plugin_calls.panel.hold",
      "plugin_calls.panel.cause",
      "plugin_calls.panel.hangupBy",
    ]);

    // after-call work: the call's agent only, once, at most acw_seconds (30)
    expect(await recordAfterCallWork(agent.id, id, 12)).toBe(false);
    expect(await recordAfterCallWork(agent2.id, id, 95)).toBe(true);
    expect(await recordAfterCallWork(agent2.id, id, 5)).toBe(false);
    expect((await callOfTicket(ticket.id))?.acw).toBe(30);
  });

  it("keeps an outside caller in E.164 with the DID called, and says why an unanswered call ended", async () => {
    await recordCallEvent({ event: "invite", call_id: "in-1", from: "0060123456789", to: "2001" });
    const busy = await recordCallEvent({ event: "end", call_id: "in-1", code: 486 });
    expect(busy).toMatchObject({ direction: "inbound", fromNumber: "+60123456789", did: "2001", hangupCause: "busy", hangupBy: "", answeredAt: null });
    const { db, schema } = t.handle;
    const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, busy!.ticketId));
    expect(ticket.contactPhone).toBe("+60123456789");
    await recordCallEvent({ event: "invite", call_id: "out-1", from: "2002", to: "+44 20 7946 0000" });
    expect(await recordCallEvent({ event: "end", call_id: "out-1", code: 487 })).toMatchObject({
      direction: "outbound",
      toNumber: "+442079460000",
      agentUserId: agent2.id,
      hangupCause: "cancelled",
    });
    await recordCallEvent({ event: "invite", call_id: "in-2", from: "+15550100", to: "2002" });
    expect((await recordCallEvent({ event: "end", call_id: "in-2", code: 480 }))?.hangupCause).toBe("no_answer");
    expect(normaliseNumber("2001", true)).toBe("2001");
  });

  it("lists only what the reader may read, paged by 30, with the filters", async () => {
    // agent (department 2) is on the internal call and the busy inbound call only
    const mine = await listCalls(agent, {}, tz);
    expect(mine.calls.map((c) => c.sipCallId).sort()).toEqual(["call-internal-1@omnidesk", "in-1"]);
    const all = await listCalls(admin, {}, tz);
    expect(all.total).toBe(4);
    expect((await listCalls(admin, { direction: "outbound" }, tz)).calls.map((c) => c.sipCallId)).toEqual(["out-1"]);
    expect((await listCalls(admin, { number: "6012" }, tz)).calls.map((c) => c.sipCallId)).toEqual(["in-1"]);
    expect((await listCalls(admin, { from: "2020-01-01", to: "2020-01-02" }, tz)).total).toBe(0);
    for (let i = 0; i < 30; i++) await recordCallEvent({ event: "invite", call_id: `bulk-${i}`, from: "+15550199", to: "2002" });
    const first = await listCalls(admin, {}, tz);
    expect([first.calls.length, first.pages, first.total]).toEqual([30, 2, 34]);
    expect((await listCalls(admin, { page: 2 }, tz)).calls).toHaveLength(4);
    expect((await listCalls(admin, {}, tz, { ongoing: true })).total).toBe(30);
    // the call server restarted: the calls it lost are closed with that cause
    expect(await closeOrphanedCalls()).toBe(30);
    await recordCallEvent({ event: "invite", call_id: "late-1", from: "2001", to: "2002" });
    expect((await listCalls(admin, {}, tz, { ongoing: true })).total).toBe(1);
    // as Kamailio says it at its start
    expect((await sipEventHook(sipHookSecret(), form({ event: "restart" }))).status).toBe(200);
    expect((await listCalls(admin, {}, tz, { ongoing: true })).total).toBe(0);
    expect((await listCalls(admin, { number: "15550199" }, tz)).calls[0]).toMatchObject({ state: "ended", cause: "server_restart" });
  });

  it("tells the agent of a call they missed (no answer, cancelled, busy) once, and of no other", async () => {
    const { db, schema } = t.handle;
    const n = schema.notifications;
    const missedOf = async (userId: number, callId: string) => {
      const [call] = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, callId));
      const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, call.ticketId));
      const rows = await db.select().from(n).where(eq(n.userId, userId));
      return rows.filter((r) => r.type === "call_missed" && r.ticketNumber === ticket.ticketNumber).map((r) => [r.channel, r.category, r.body]);
    };
    // an outside caller gives up while it rings: the agent called hears of it, once however often the end is reported
    await recordCallEvent({ event: "invite", call_id: "miss-1", from: "+60 12 000 1111", to: "2001" });
    await recordCallEvent({ event: "end", call_id: "miss-1", code: 487 });
    await recordCallEvent({ event: "end", call_id: "miss-1", code: 487 });
    expect(await missedOf(agent.id, "miss-1")).toEqual([["call", "system", "+60120001111"]]);
    expect(await missedOf(agent2.id, "miss-1")).toEqual([]);
    // busy and unanswered internal calls: the callee, not the caller
    await recordCallEvent({ event: "invite", call_id: "miss-2", from: "2001", to: "2002" });
    await recordCallEvent({ event: "end", call_id: "miss-2", code: 486 });
    expect(await missedOf(agent2.id, "miss-2")).toEqual([["call", "system", "2001"]]);
    expect(await missedOf(agent.id, "miss-2")).toEqual([]);
    await recordCallEvent({ event: "invite", call_id: "miss-3", from: "+15550111", to: "2002" });
    await recordCallEvent({ event: "end", call_id: "miss-3", code: 408 });
    expect(await missedOf(agent2.id, "miss-3")).toEqual([["call", "system", "+15550111"]]);
    // not missed: an answered call, one the agent declined, and an outbound call the customer did not take
    await recordCallEvent({ event: "invite", call_id: "kept-1", from: "+15550112", to: "2001" });
    await recordCallEvent({ event: "answer", call_id: "kept-1" });
    await recordCallEvent({ event: "end", call_id: "kept-1", code: 200, by: "2001" });
    await recordCallEvent({ event: "invite", call_id: "kept-2", from: "+15550113", to: "2001" });
    await recordCallEvent({ event: "end", call_id: "kept-2", code: 603 });
    await recordCallEvent({ event: "invite", call_id: "kept-3", from: "2001", to: "+15550114" });
    await recordCallEvent({ event: "end", call_id: "kept-3", code: 480 });
    for (const id of ["kept-1", "kept-2", "kept-3"]) {
      expect(await missedOf(agent.id, id)).toEqual([]);
      expect(await missedOf(agent2.id, id)).toEqual([]);
    }
  });
});
