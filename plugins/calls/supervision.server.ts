// /supervisory (admin or view_report, spec section 6): the agents' live state, the calls waiting
// and the live calls, from the calls table as Kamailio reports them (plugins/calls/calls.server.ts),
// the agents' presence and the workspace's acw_seconds; and listening in on a live call through
// rtpengine (rtpengine.server.ts): the supervisor's browser gets its own DTLS-SRTP leg carrying
// both parties' audio, the parties' media is untouched and they are not told.
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, or } from "drizzle-orm";
import { getDb } from "@db/client";
import { audit } from "~/accounts/audit.server";
import { permissionsOf } from "~/accounts/users.server";
import { requireUser } from "~/context.server";
import { getSettings } from "~/models/settings.server";
import { durations } from "./calls.server";
import { ng, RtpengineError } from "./rtpengine.server";

/** Spec section 3 (call-state): Ready, Engaged, Incoming; after-call work; away (a presence status); offline. */
export const AGENT_STATES = ["engaged", "incoming", "acw", "away", "offline", "ready"] as const;
export type AgentState = (typeof AGENT_STATES)[number];
const LIVE = ["talking", "held"];

export async function requireSupervisor(request: Request) {
  const auth = await requireUser(request);
  if (auth.user.type !== "admin" && !permissionsOf(auth.user).includes("view_report")) throw new Response("Access denied", { status: 403 });
  return auth;
}

/**
 * Each agent with an active SIP account and their state now: on a call (engaged), ringing
 * (incoming), in after-call work (the last answered call ended less than acw_seconds ago and its
 * ACW is not reported yet), away (a presence status other than ONLINE), offline (no open page;
 * `online` null: unknown), else ready. `since`: when that state began, when the product knows it.
 */
export async function agentBoard(online: Set<number> | null, now = Date.now()) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const agents = await db
    .select({
      userId: schema.users.id,
      name: schema.users.name,
      username: schema.users.username,
      extension: schema.sipAccounts.sipNumber,
      status: schema.users.status,
      secondStatus: schema.users.secondStatus,
      statusTime: schema.users.statusTime,
    })
    .from(schema.sipAccounts)
    .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
    .where(and(eq(schema.sipAccounts.active, true), isNull(schema.users.disabledAt)))
    .orderBy(asc(schema.sipAccounts.sipNumber));
  if (!agents.length) return [];
  const ids = agents.map((a) => a.userId);
  const extensions = agents.map((a) => a.extension);
  // the agent's calls: those it is the call's agent of, and those it is a party to by its extension (an internal call's caller)
  const party = or(inArray(c.agentUserId, ids), inArray(c.fromNumber, extensions), inArray(c.toNumber, extensions));
  const acwMs = (Number((await getSettings()).acw_seconds) || 0) * 1000;
  const [open, recent] = await Promise.all([
    db
      .select()
      .from(c)
      .where(and(party, inArray(c.state, ["ringing", ...LIVE])))
      .orderBy(desc(c.startedAt)),
    acwMs
      ? db
          .select()
          .from(c)
          .where(and(party, eq(c.state, "ended"), isNotNull(c.answeredAt), gt(c.endedAt, now - acwMs)))
          .orderBy(desc(c.endedAt))
          .limit(500)
      : Promise.resolve([]),
  ]);
  const mine = (a: (typeof agents)[number], x: typeof c.$inferSelect) =>
    x.agentUserId === a.userId || x.fromNumber === a.extension || x.toNumber === a.extension;
  return agents.map((a) => {
    const live = open.find((x) => mine(a, x) && LIVE.includes(x.state));
    const ringing = open.find((x) => mine(a, x) && x.state === "ringing");
    const lastEnded = recent.find((x) => mine(a, x));
    // the call's agent ends its ACW with Ready (acw_ms reported); the other party's runs its time
    const inAcw = lastEnded != null && (lastEnded.agentUserId !== a.userId || lastEnded.acwMs == null);
    const away = (a.secondStatus !== "" || a.status !== "ONLINE") && a.status !== "OFFLINE";
    let state: AgentState = "ready";
    let since: number | null = null;
    let peer = "";
    if (live) [state, since, peer] = ["engaged", live.answeredAt ?? live.startedAt, live.fromNumber === a.extension ? live.toNumber : live.fromNumber];
    // an agent's own outgoing call ringing elsewhere is not an incoming one
    else if (ringing && ringing.fromNumber !== a.extension) [state, since, peer] = ["incoming", ringing.startedAt, ringing.fromNumber];
    else if (inAcw) [state, since] = ["acw", lastEnded.endedAt];
    else if (online && !online.has(a.userId)) state = "offline";
    else if (away) [state, since] = ["away", a.statusTime || null];
    return { userId: a.userId, name: a.name, username: a.username, extension: a.extension, state, since, peer, presence: a.secondStatus || a.status };
  });
}

/** Calls ringing now (nobody has answered yet), longest waiting first. */
export async function waitingCalls(now = Date.now()) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const rows = await db
    .select({ call: c, ticketNumber: schema.tickets.ticketNumber, agentName: schema.users.name })
    .from(c)
    .innerJoin(schema.tickets, eq(schema.tickets.id, c.ticketId))
    .leftJoin(schema.users, eq(schema.users.id, c.agentUserId))
    .where(eq(c.state, "ringing"))
    .orderBy(asc(c.startedAt))
    .limit(200);
  return rows.map((r) => ({
    ticketNumber: r.ticketNumber,
    from: r.call.fromNumber,
    to: r.call.toNumber,
    did: r.call.did,
    agent: r.agentName ?? "",
    waited: Math.max(0, Math.round((now - r.call.startedAt) / 1000)),
  }));
}

/** Calls in progress (talking or held): what a supervisor may listen in on. */
export async function liveCalls(now = Date.now()) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const rows = await db
    .select({ call: c, ticketNumber: schema.tickets.ticketNumber, agentName: schema.users.name })
    .from(c)
    .innerJoin(schema.tickets, eq(schema.tickets.id, c.ticketId))
    .leftJoin(schema.users, eq(schema.users.id, c.agentUserId))
    .where(inArray(c.state, LIVE))
    .orderBy(asc(c.startedAt))
    .limit(200);
  return rows.map((r) => ({
    id: r.call.id,
    ticketNumber: r.ticketNumber,
    from: r.call.fromNumber,
    to: r.call.toNumber,
    agent: r.agentName ?? "",
    state: r.call.state,
    talk: durations(r.call, now).talk,
  }));
}

export type ListenResult = { ok: true; sdp: string; tag: string } | { ok: false; status: number; error: string };

async function liveCall(callId: number) {
  const { db, schema } = getDb();
  const [call] = await db
    .select()
    .from(schema.calls)
    .where(and(eq(schema.calls.id, callId), inArray(schema.calls.state, LIVE)));
  return call ?? null;
}

/** m= sections without a mid get their own (rtpengine 10.5 gives none, or the same one twice). */
function uniqueMids(sdp: string) {
  let n = 0;
  return sdp
    .split(/\r\n(?=m=)/)
    .map((section, i) => {
      if (i === 0) return section;
      const lines = section.split("\r\n").filter((l) => !l.startsWith("a=mid:"));
      lines.splice(1, 0, `a=mid:${n++}`);
      return lines.join("\r\n");
    })
    .join("\r\n");
}

/**
 * A supervisor starts listening in on a live call: rtpengine forks both parties' audio to a new
 * leg and offers it (sendonly, DTLS-SRTP, ICE, rtcp-mux: what a browser takes). The answer comes
 * with listenAnswer. Audited: who listened to which call.
 */
export async function startListening(callId: number, by: { actor: { id: number; name: string }; ip?: string }): Promise<ListenResult> {
  const call = await liveCall(callId);
  if (!call) return { ok: false, status: 404, error: "not_live" };
  try {
    const answer = await ng({
      command: "subscribe request",
      "call-id": call.sipCallId,
      flags: ["all"],
      ICE: "force",
      DTLS: "passive",
      "transport-protocol": "UDP/TLS/RTP/SAVPF",
      SDES: ["off"],
      "rtcp-mux": ["require"],
    });
    const t = getDb().schema.tickets;
    const [ticket] = await getDb().db.select({ ticketNumber: t.ticketNumber }).from(t).where(eq(t.id, call.ticketId));
    await audit({ action: "sip.listen_in", actor: by.actor, target: { type: "ticket", id: ticket?.ticketNumber ?? call.ticketId }, ip: by.ip });
    return { ok: true, sdp: uniqueMids(String(answer.sdp)), tag: String(answer["to-tag"]) };
  } catch (error) {
    if (error instanceof RtpengineError) return { ok: false, status: 502, error: error.message };
    throw error;
  }
}

/** The supervisor's browser answered rtpengine's offer: the forked audio starts flowing. */
export async function answerListening(callId: number, tag: string, sdp: string): Promise<{ ok: boolean; status: number; error?: string }> {
  const call = await liveCall(callId);
  if (!call) return { ok: false, status: 404, error: "not_live" };
  try {
    await ng({ command: "subscribe answer", "call-id": call.sipCallId, "to-tag": tag, sdp, flags: ["allow transcoding"] });
    return { ok: true, status: 200 };
  } catch (error) {
    if (error instanceof RtpengineError) return { ok: false, status: 502, error: error.message };
    throw error;
  }
}

/** Stops a listen-in (the call may have ended meanwhile: nothing to stop then). */
export async function stopListening(callId: number, tag: string) {
  const { db, schema } = getDb();
  const [call] = await db.select().from(schema.calls).where(eq(schema.calls.id, callId));
  if (!call || call.state === "ended") return;
  await ng({ command: "unsubscribe", "call-id": call.sipCallId, "to-tag": tag }).catch(() => undefined);
}
