// Supervision on both dialects: the agents' live state from the calls Kamailio reports (Incoming
// while ringing, Engaged on a call, ACW after it until Ready or acw_seconds, away by presence,
// offline without an open page, else Ready), the calls waiting and live; the listen-in's
// signalling to rtpengine's ng protocol (bencode, subscribe request/answer, unsubscribe) against a
// local stand-in of rtpengine, refused to an agent without view_report and for a call not live.
import dgram from "node:dgram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { saveSipAccount } from "@plugins/calls/sip.server";
import { recordAfterCallWork, recordCallEvent } from "@plugins/calls/calls.server";
import { agentBoard, liveCalls, waitingCalls } from "@plugins/calls/supervision.server";
import { bdecode, bencode } from "@plugins/calls/rtpengine.server";
import { action as listenAction } from "@plugins/calls/routes/supervisory.listen";

/** rtpengine's stand-in: answers each ng command as rtpengine 10.5 does, and remembers them. */
async function fakeRtpengine() {
  const socket = dgram.createSocket("udp4");
  const seen: Record<string, unknown>[] = [];
  socket.on("message", (message, from) => {
    const space = message.indexOf(0x20);
    const cookie = message.subarray(0, space).toString();
    const command = bdecode(message.subarray(space + 1)) as Record<string, unknown>;
    seen.push(command);
    const answer: Record<string, string | string[]> =
      command.command === "subscribe request"
        ? {
            result: "ok",
            "to-tag": "sub-1",
            "from-tags": ["a", "b"],
            sdp: "v=0\r\ns=-\r\nm=audio 1 UDP/TLS/RTP/SAVPF 0\r\na=mid:1\r\nm=audio 2 UDP/TLS/RTP/SAVPF 0\r\na=mid:1\r\n",
          }
        : { result: "ok" };
    socket.send(Buffer.concat([Buffer.from(`${cookie} `), bencode(answer)]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { port: socket.address().port, seen, close: () => socket.close() };
}

describe.each(DIALECTS)("supervision (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow, agent2: UserRow;
  let adminCookie: string, agentCookie: string;
  let rtp: Awaited<ReturnType<typeof fakeRtpengine>>;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
    const by = { actor: { id: admin.id, name: admin.username } };
    await saveSipAccount({ userId: agent.id, sipNumber: "2001", password: "agent-sip-pass", active: true }, by);
    await saveSipAccount({ userId: agent2.id, sipNumber: "2002", password: "agent2-sip-pass", active: true }, by);
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    rtp = await fakeRtpengine();
    process.env.RTPENGINE_NG = `127.0.0.1:${rtp.port}`;
  }, 60_000);
  afterAll(async () => {
    rtp?.close();
    delete process.env.RTPENGINE_NG;
    await t?.cleanup();
  });

  const states = async (online: Set<number> | null, now?: number) => Object.fromEntries((await agentBoard(online, now)).map((a) => [a.extension, a.state]));

  it("shows each agent's state as the call moves: incoming, engaged, ACW until Ready, then ready; away and offline", async () => {
    const both = new Set([agent.id, agent2.id]);
    expect(await states(both)).toEqual({ "2001": "ready", "2002": "ready" });
    expect(await states(new Set([agent.id]))).toEqual({ "2001": "ready", "2002": "offline" });
    await recordCallEvent({ event: "invite", call_id: "sup-1", from: "2001", to: "2002" });
    // the caller's own call ringing elsewhere is not incoming for it
    expect(await states(both)).toEqual({ "2001": "ready", "2002": "incoming" });
    expect((await waitingCalls()).map((w) => [w.from, w.to])).toEqual([["2001", "2002"]]);
    await recordCallEvent({ event: "answer", call_id: "sup-1" });
    expect(await states(both)).toEqual({ "2001": "engaged", "2002": "engaged" });
    expect(await waitingCalls()).toEqual([]);
    expect((await liveCalls()).map((l) => [l.from, l.to, l.state])).toEqual([["2001", "2002", "talking"]]);
    await recordCallEvent({ event: "end", call_id: "sup-1", code: 200, by: "2001" });
    expect(await states(both)).toEqual({ "2001": "acw", "2002": "acw" });
    expect(await liveCalls()).toEqual([]);
    // the call's agent (the callee) ends its ACW with Ready; the caller's runs out with acw_seconds (30)
    expect(await recordAfterCallWork(agent2.id, "sup-1", 3)).toBe(true);
    expect(await states(both)).toEqual({ "2001": "acw", "2002": "ready" });
    expect(await states(both, Date.now() + 31_000)).toEqual({ "2001": "ready", "2002": "ready" });
    // a presence status other than ONLINE: away
    const { db, schema } = t.handle;
    await db.update(schema.users).set({ status: "AWAY", statusTime: Date.now() }).where(eq(schema.users.id, agent.id));
    expect((await states(both, Date.now() + 31_000))["2001"]).toBe("away");
    await db.update(schema.users).set({ status: "ONLINE" }).where(eq(schema.users.id, agent.id));
  });

  it("speaks bencode as rtpengine does", () => {
    const encoded = bencode({ command: "subscribe request", "call-id": "c1", flags: ["all"], n: 5 });
    expect(encoded.toString()).toBe("d7:call-id2:c17:command17:subscribe request5:flagsl3:alle1:ni5ee");
    expect(bdecode(encoded)).toEqual({ command: "subscribe request", "call-id": "c1", flags: ["all"], n: 5 });
    expect(bdecode(bencode({ sdp: "ü" }))).toEqual({ sdp: "ü" });
  });

  it("listens in through rtpengine's subscribe: offer (unique mids), answer, stop; only for a supervisor and a live call", async () => {
    const post = (cookie: string, values: Record<string, string>) =>
      listenAction({
        request: new Request("http://localhost/supervisory/listen", {
          method: "POST",
          body: new URLSearchParams(values),
          headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
        }),
        context: {},
        params: {},
      } as never).catch((r: Response) => r);
    await recordCallEvent({ event: "invite", call_id: "sup-2", from: "+60123456789", to: "2002" });
    const { db, schema } = t.handle;
    const [call] = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, "sup-2"));
    // ringing is not live yet
    expect((await post(adminCookie, { intent: "start", callId: String(call.id) })).status).toBe(404);
    await recordCallEvent({ event: "answer", call_id: "sup-2" });
    expect((await post(agentCookie, { intent: "start", callId: String(call.id) })).status).toBe(403);
    expect((await post(adminCookie, { intent: "start", callId: "x" })).status).toBe(400);
    const started = await post(adminCookie, { intent: "start", callId: String(call.id) });
    expect(started.status).toBe(200);
    const offer = await started.json();
    expect(offer.tag).toBe("sub-1");
    expect(offer.sdp.match(/a=mid:\d/g)).toEqual(["a=mid:0", "a=mid:1"]);
    expect(rtp.seen.at(-1)).toMatchObject({ command: "subscribe request", "call-id": "sup-2", flags: ["all"], ICE: "force" });
    expect((await post(adminCookie, { intent: "answer", callId: String(call.id), tag: "sub-1", sdp: "v=0\r\ns=answer\r\n" })).status).toBe(204);
    expect(rtp.seen.at(-1)).toMatchObject({ command: "subscribe answer", "call-id": "sup-2", "to-tag": "sub-1" });
    expect((await post(adminCookie, { intent: "stop", callId: String(call.id), tag: "sub-1" })).status).toBe(204);
    expect(rtp.seen.at(-1)).toMatchObject({ command: "unsubscribe", "call-id": "sup-2", "to-tag": "sub-1" });
    // who listened is in the audit log
    const log = await db.select().from(schema.auditLog).where(eq(schema.auditLog.action, "sip.listen_in"));
    expect(log.map((l) => [l.actorName, l.targetType])).toEqual([["admin", "ticket"]]);
  });
});
