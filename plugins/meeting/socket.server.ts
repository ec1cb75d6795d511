// The meeting's socket events (spec section 7): getMeetingCount, joinMeeting, leaveMeeting for
// presence, then WebRTC signalling. Agents use their own socket (the host's default namespace);
// invited guests, who have no session, use the "/meeting" namespace with their one-time link's
// cookie. Media goes one of two ways, kept on the meeting's row (meetings.media):
// - "mesh" first: browsers connect to each other, this server relays their offers, answers and
//   ICE candidates (meetingSignal); at most MESH_LIMIT people;
// - "sfu" once one more person comes and Janus answers (JANUS_URL): everyone is told
//   (meetingMode) and publishes to a VideoRoom, receiving one feed per other person, without
//   leaving; this server speaks Janus's API for it (janus/client.server.ts). It never goes back.
// Who is in a meeting is the meeting's socket.io room and each socket's `data.meeting`, so every
// node sees everyone through the adapter (fetchSockets; with REDIS_URL, the Redis adapter), and a
// node that dies takes its people with it: the others notice at their next roster look
// (MEETING_ROSTER_MS) and tell their pages. What stays in a node's memory is only its own
// sockets' Janus handles; other nodes' work is asked for with server-side events.
import { randomInt } from "node:crypto";
import type { Server, Socket } from "socket.io";
import { Adapter } from "socket.io-adapter";
import { findUserById } from "~/accounts/users.server";
import { sessionCookie } from "~/cookies.server";
import { findSession } from "~/accounts/sessions.server";
import { rateLimited, safely } from "~/socket-tools.server";
import { CLIENT_EVENTS, SERVER_EVENTS } from "~/realtime-events";
import { log } from "~/ops/log.server";
import { admits, MESH_LIMIT, type MediaMode } from "./limits";
import { iceServersFor, turnConfigured } from "./turn.server";
import { JanusClient, janusUrl, type IceCandidate, type Jsep } from "./janus/client.server";
import { agentMayJoin, endMeeting, guestOf, meetingByToken, recordAttendee, switchToSfu, type MeetingRow } from "./meeting.server";
import { guestCookie } from "./guest-cookie.server";

export const GUEST_NAMESPACE = "/meeting";
export const meetingRoom = (id: number) => `meeting:${id}`;
/** One person's own room in a meeting: signals for them reach their socket on whichever node. */
const peerRoom = (meetingId: number, peerId: number) => `meeting:${meetingId}:peer:${peerId}`;
/** A meeting everyone left ends after this long (a reload or a lost connection is not the end). */
const emptyGraceMs = () => Number(process.env.MEETING_EMPTY_GRACE_MS || 60_000);
/** How often a node looks who is still in its people's meetings (people of a dead node drop out). */
const rosterMs = () => Number(process.env.MEETING_ROSTER_MS || 5_000);

interface Identity {
  /** one per person: "user:<id>" or "guest:<invite id>" (two tabs of one person count once) */
  key: string;
  name: string;
  username: string;
  mayJoin(meeting: MeetingRow): Promise<boolean>;
}

/** A person in a meeting, as every node sees it (the socket's data, through the adapter). */
interface Presence {
  meetingId: number;
  peerId: number;
  key: string;
  name: string;
  audio: boolean;
  video: boolean;
  /** SFU: their feed is on Janus */
  publishing: boolean;
}

/** This node's side of one of its sockets in a meeting: the Janus handles it holds. */
interface Local {
  socket: Socket;
  presence: Presence;
  username: string;
  /** SFU: the publisher's handle (a promise: candidates may come while it is being made) */
  publisher?: Promise<number>;
  /** SFU: the handles of the feeds this member receives, by publisher peer id */
  feeds: Map<number, number>;
}

const locals = new Map<string, Local>();
/**
 * Per meeting with people on this node: the peers it knows are in (found by its roster looks, or
 * heard of when they joined on any node), each with the tick it learnt of them. A roster look only
 * drops peers learnt before it began: one who joined while the look's fetch was on its way (the
 * fetch may not have them yet) is not taken for gone.
 */
const known = new Map<number, Map<number, number>>();
let tick = 0;
/** Notes a peer as in the meeting (on the nodes with people of that meeting, and on this one when it is theirs). */
function learn(meetingId: number, peerId: number, mine = false) {
  let peers = known.get(meetingId);
  if (!peers) {
    if (!mine && !localsOf(meetingId).length) return;
    known.set(meetingId, (peers = new Map()));
  }
  peers.set(peerId, ++tick);
}
const emptyTimers = new Map<number, ReturnType<typeof setTimeout>>();
let janus: JanusClient | null = null;
let server: Server | undefined;

function janusClient() {
  const url = janusUrl();
  if (!url) return null;
  if (janus?.url !== url) janus = new JanusClient(url);
  return janus;
}

/** The Janus room of a meeting: its id, offset so rooms of other apps on the same Janus are left alone. */
const janusRoom = (meetingId: number) => 700_000_000 + meetingId;

/** Makes the meeting's VideoRoom (it may exist: another node, or Janus kept it); false when Janus is not there. */
async function ensureJanusRoom(meetingId: number) {
  const client = janusClient();
  if (!client || !(await client.reachable())) return false;
  try {
    const handle = await client.attach();
    await client
      .request(handle, {
        request: "create",
        room: janusRoom(meetingId),
        publishers: 64,
        bitrate: 512_000,
        audiocodec: "opus",
        videocodec: "vp8",
        notify_joining: false,
      })
      .catch((e: Error) => {
        if (!/already exists|427/.test(e.message)) throw e;
      });
    await client.detach(handle);
    return true;
  } catch (error) {
    log.warn({ err: error }, "janus refused the meeting room");
    return false;
  }
}

const namespaces = (io: Server) => [io.of("/"), io.of(GUEST_NAMESPACE)];

/** Everyone in a meeting now, on every node. */
async function roster(io: Server, meetingId: number): Promise<Presence[]> {
  const lists = await Promise.all(namespaces(io).map((nsp) => nsp.in(meetingRoom(meetingId)).fetchSockets()));
  return lists.flat().flatMap((s) => {
    const p = s.data.meeting as Presence | undefined;
    return p?.meetingId === meetingId ? [p] : [];
  });
}

const peopleIn = (list: Presence[]) => new Set(list.map((m) => m.key)).size;
const memberView = (m: Presence) => ({ peerId: m.peerId, name: m.name, audio: m.audio, video: m.video });

/** Both namespaces (the agents' and the guests'), every node. */
function toRoom(io: Server, room: string, event: string, payload: unknown, except?: string) {
  for (const nsp of namespaces(io)) (except ? nsp.to(room).except(except) : nsp.to(room)).emit(event, payload);
}

const localsOf = (meetingId: number) => [...locals.values()].filter((l) => l.presence.meetingId === meetingId);

// Work one node asks of every node (each for its own sockets): itself at once, the others through
// the adapter's server-side events (the in-memory adapter of a single node has none).
const nodeWork = {
  /** a feed was published: this node's publishing people receive it */
  published: (meetingId: number, peerId: number, name: string) => {
    for (const viewer of localsOf(meetingId))
      if (viewer.presence.publishing && viewer.presence.peerId !== peerId)
        void sendFeed(viewer, peerId, name).catch((error) => log.warn({ err: error }, "janus feed failed"));
  },
  /** someone joined on some node: this node's roster looks will notice if their node dies */
  joined: (meetingId: number, peerId: number) => learn(meetingId, peerId),
  /** someone left (or their node died): the feeds of them this node holds are closed */
  gone: (meetingId: number, peerId: number) => {
    known.get(meetingId)?.delete(peerId);
    const handles: number[] = [];
    for (const viewer of localsOf(meetingId)) {
      const feed = viewer.feeds.get(peerId);
      if (feed === undefined) continue;
      viewer.feeds.delete(peerId);
      handles.push(feed);
    }
    const client = janusClient();
    if (client) void Promise.all(handles.map((h) => client.detach(h)));
  },
  /** the meeting was ended: this node's people are out of it */
  closed: (meetingId: number) => {
    for (const l of localsOf(meetingId)) void forget(l);
    clearTimeout(emptyTimers.get(meetingId));
    emptyTimers.delete(meetingId);
  },
};
type NodeWork = keyof typeof nodeWork;
const NODE_EVENT = "meeting:node";

function everyNode<K extends NodeWork>(io: Server, work: K, ...args: Parameters<(typeof nodeWork)[K]>) {
  (nodeWork[work] as (...a: unknown[]) => void)(...args);
  const adapter = io.of("/").adapter as Adapter;
  if (adapter.serverSideEmit !== Adapter.prototype.serverSideEmit) io.serverSideEmit(NODE_EVENT, work, ...args);
}

/** Closes a local member's Janus handles (their publisher and the feeds they receive). */
async function dropMedia(local: Local) {
  const client = janusClient();
  const handles = [...local.feeds.values()];
  local.feeds.clear();
  const publisher = local.publisher;
  local.publisher = undefined;
  if (publisher) handles.push(await publisher.catch(() => 0));
  if (client) await Promise.all(handles.filter(Boolean).map((h) => client.detach(h)));
}

/** Takes a local socket out of its meeting (no one told: the callers do). */
async function forget(local: Local) {
  if (locals.get(local.socket.id) !== local) return;
  locals.delete(local.socket.id);
  const { meetingId, peerId } = local.presence;
  if (local.socket.data.meeting === local.presence) local.socket.data.meeting = undefined;
  local.socket.leave(meetingRoom(meetingId));
  local.socket.leave(peerRoom(meetingId, peerId));
  await dropMedia(local);
}

async function leave(io: Server, local: Local) {
  if (locals.get(local.socket.id) !== local) return;
  const { meetingId, peerId } = local.presence;
  await forget(local);
  toRoom(io, meetingRoom(meetingId), SERVER_EVENTS.meetingPeerLeft, { peerId });
  everyNode(io, "gone", meetingId, peerId);
  if ((await roster(io, meetingId)).length) return;
  // nobody left on any node: the meeting ends after the grace, if still nobody came back by then
  clearTimeout(emptyTimers.get(meetingId));
  const timer = setTimeout(() => {
    emptyTimers.delete(meetingId);
    void (async () => {
      if ((await roster(io, meetingId)).length) return;
      await endMeeting(meetingId, { name: local.presence.name, username: local.username });
    })().catch((error) => log.error({ err: error }, "meeting end failed"));
  }, emptyGraceMs());
  timer.unref?.();
  emptyTimers.set(meetingId, timer);
}

/** The meeting was ended (its End button): everyone's page, on every node, is told and the meeting's people are out. */
export async function closeMeetingRoom(meetingId: number, io: Server | undefined = server) {
  if (!io) return;
  toRoom(io, meetingRoom(meetingId), SERVER_EVENTS.meetingEnded, {});
  everyNode(io, "closed", meetingId);
}

/**
 * The roster look: people this node saw in its meetings who are gone without a leave (their node
 * died) are told gone to this node's pages. Runs every MEETING_ROSTER_MS; tests call it directly.
 */
export async function sweepRosters(io: Server | undefined = server) {
  if (!io || sweeping) return;
  sweeping = true;
  try {
    const meetings = new Set([...locals.values()].map((l) => l.presence.meetingId));
    for (const id of known.keys()) if (!meetings.has(id)) known.delete(id);
    for (const meetingId of meetings) {
      const began = ++tick;
      const now = new Set((await roster(io, meetingId)).map((p) => p.peerId));
      let peers = known.get(meetingId);
      if (!peers) known.set(meetingId, (peers = new Map()));
      for (const [peerId, since] of [...peers]) {
        if (now.has(peerId) || since > began) continue;
        nodeWork.gone(meetingId, peerId);
        for (const l of localsOf(meetingId)) l.socket.emit(SERVER_EVENTS.meetingPeerLeft, { peerId });
      }
      for (const peerId of now) if (!peers.has(peerId)) peers.set(peerId, began);
    }
  } finally {
    sweeping = false;
  }
}
/** A look still waiting (a dead node's fetch waits for its timeout) is not doubled by the next tick. */
let sweeping = false;

let sweeper: ReturnType<typeof setInterval> | undefined;
function startSweeper(io: Server) {
  if (sweeper) return;
  sweeper = setInterval(() => void sweepRosters(io).catch((error) => log.warn({ err: error }, "meeting roster look failed")), rosterMs());
  sweeper.unref?.();
  io.on(NODE_EVENT, (work: NodeWork, ...args: unknown[]) => {
    if (work in nodeWork) (nodeWork[work] as (...a: unknown[]) => void)(...args);
  });
}

/** Subscribes a local `viewer` to a published feed: Janus offers, the viewer's page answers (meetingFeedAnswer). */
async function sendFeed(viewer: Local, sourcePeerId: number, sourceName: string) {
  const client = janusClient();
  if (!client || viewer.feeds.has(sourcePeerId) || viewer.presence.peerId === sourcePeerId) return;
  const handle = await client.attach();
  viewer.feeds.set(sourcePeerId, handle);
  const inMeeting = () => locals.get(viewer.socket.id) === viewer && viewer.feeds.get(sourcePeerId) === handle;
  // a publisher is a feed once its media is up (a moment after Janus answered its offer)
  let jsep: Jsep | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      ({ jsep } = await client.request(handle, {
        request: "join",
        ptype: "subscriber",
        room: janusRoom(viewer.presence.meetingId),
        streams: [{ feed: sourcePeerId }],
      }));
      break;
    } catch (error) {
      if (attempt >= 60 || !/No such feed/i.test((error as Error).message) || !inMeeting()) {
        if (viewer.feeds.get(sourcePeerId) === handle) viewer.feeds.delete(sourcePeerId);
        await client.detach(handle);
        throw error;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  if (!jsep || !inMeeting()) return void client.detach(handle);
  viewer.socket.emit(SERVER_EVENTS.meetingFeed, { peerId: sourcePeerId, name: sourceName, sdp: jsep.sdp });
}

const sdpOf = (payload: unknown) => {
  const sdp = (payload as { sdp?: unknown } | null)?.sdp;
  return typeof sdp === "string" && sdp.length < 100_000 ? sdp : null;
};
const peerOf = (payload: unknown, key: "to" | "peerId") => {
  const id = Number((payload as Record<string, unknown> | null)?.[key]);
  return Number.isInteger(id) && id > 0 ? id : null;
};
/** An ICE candidate as the browser's RTCIceCandidate.toJSON() gives it, and nothing else. */
export function candidateOf(value: unknown): IceCandidate | null {
  const c = value as Record<string, unknown> | null;
  if (!c || typeof c !== "object" || typeof c.candidate !== "string" || c.candidate.length > 1000) return null;
  const sdpMid = typeof c.sdpMid === "string" && c.sdpMid.length < 64 ? c.sdpMid : null;
  const sdpMLineIndex = Number.isInteger(c.sdpMLineIndex) && (c.sdpMLineIndex as number) >= 0 ? (c.sdpMLineIndex as number) : null;
  if (sdpMid === null && sdpMLineIndex === null) return null;
  return { candidate: c.candidate, sdpMid, sdpMLineIndex };
}

type Ack = (answer: Record<string, unknown>) => void;

/**
 * Who may come in, and how: past the mesh limit the meeting moves to Janus when it answers (the
 * people inside are told to publish there), else the newcomer hears it is full.
 */
async function admission(io: Server, meeting: MeetingRow, people: number, already: boolean) {
  let mode = meeting.media as MediaMode;
  if (mode === "mesh" && !already && people >= MESH_LIMIT && (await ensureJanusRoom(meeting.id))) {
    if (await switchToSfu(meeting.id)) toRoom(io, meetingRoom(meeting.id), SERVER_EVENTS.meetingMode, { mode: "sfu" });
    mode = "sfu";
  } else if (mode === "sfu") await ensureJanusRoom(meeting.id);
  return { mode, ...admits(mode, people, already, process.env) };
}

function attachMeetingHandlers(io: Server, socket: Socket, identity: () => Promise<Identity | null>) {
  startSweeper(io);
  const reply = (ack: unknown, answer: Record<string, unknown>) => typeof ack === "function" && (ack as Ack)(answer);
  const current = () => locals.get(socket.id);

  const findMeeting = async (payload: unknown) => {
    const token = (payload as { token?: unknown } | null)?.token;
    return typeof token === "string" ? meetingByToken(token) : undefined;
  };

  socket.on(
    CLIENT_EVENTS.getMeetingCount,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const [meeting, who] = await Promise.all([findMeeting(payload), identity()]);
      if (!meeting || !who || !(await who.mayJoin(meeting))) return void reply(ack, { ok: false });
      reply(ack, { ok: true, count: peopleIn(await roster(io, meeting.id)), ended: Boolean(meeting.endedAt) });
    }),
  );

  socket.on(
    CLIENT_EVENTS.joinMeeting,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const [meeting, who] = await Promise.all([findMeeting(payload), identity()]);
      if (!meeting) return void reply(ack, { ok: false, reason: "notFound" });
      if (meeting.endedAt) return void reply(ack, { ok: false, reason: "ended" });
      if (!who || !(await who.mayJoin(meeting))) return void reply(ack, { ok: false, reason: "notInvited" });
      const mine = current();
      if (mine) await leave(io, mine);
      const inside = await roster(io, meeting.id);
      const admitted = await admission(
        io,
        meeting,
        peopleIn(inside),
        inside.some((m) => m.key === who.key),
      );
      if (!admitted.ok) return void reply(ack, { ok: false, reason: "full", limit: admitted.limit, mode: admitted.mode });
      clearTimeout(emptyTimers.get(meeting.id));
      emptyTimers.delete(meeting.id);
      const presence: Presence = {
        meetingId: meeting.id,
        peerId: randomInt(1, 2 ** 31),
        key: who.key,
        name: who.name,
        audio: true,
        video: true,
        publishing: false,
      };
      socket.data.meeting = presence;
      locals.set(socket.id, { socket, presence, username: who.username, feeds: new Map() });
      await socket.join([meetingRoom(meeting.id), peerRoom(meeting.id, presence.peerId)]);
      // everyone inside now and the newcomer are known here at once, and the newcomer on every
      // node with people in the meeting: a node that dies before anyone's next roster look still
      // takes its people out of the others' meetings
      for (const m of inside) learn(meeting.id, m.peerId, true);
      learn(meeting.id, presence.peerId, true);
      everyNode(io, "joined", meeting.id, presence.peerId);
      toRoom(io, meetingRoom(meeting.id), SERVER_EVENTS.meetingPeerJoined, memberView(presence), socket.id);
      await recordAttendee(meeting.id, who.name);
      reply(ack, {
        ok: true,
        peerId: presence.peerId,
        mode: admitted.mode,
        limit: admitted.limit,
        peers: inside.map(memberView),
        iceServers: iceServersFor(who.key),
        iceTransportPolicy: process.env.MEETING_ICE_POLICY === "relay" ? "relay" : "all",
        turn: turnConfigured(),
      });
    }),
  );

  const leaveCurrent = async () => {
    const mine = current();
    if (mine) await leave(io, mine);
  };
  socket.on(
    CLIENT_EVENTS.leaveMeeting,
    safely(socket, async (_payload: unknown, ack?: Ack) => {
      await leaveCurrent();
      reply(ack, { ok: true });
    }),
  );
  socket.on("disconnect", () => void leaveCurrent().catch((error) => log.error({ err: error }, "meeting leave failed")));

  // mesh: an offer, answer or ICE candidate (trickled, as the browser finds it) for one other
  // member of the same meeting, on whichever node; relayed as it is (SDP is opaque here)
  socket.on(
    CLIENT_EVENTS.meetingSignal,
    safely(socket, async (payload: unknown) => {
      const to = peerOf(payload, "to");
      const mine = current();
      if (!mine || !to) return;
      const { description, candidate } = (payload ?? {}) as { description?: { type?: unknown; sdp?: unknown }; candidate?: unknown };
      const ice = candidateOf(candidate);
      const clean =
        description &&
        (description.type === "offer" || description.type === "answer") &&
        typeof description.sdp === "string" &&
        description.sdp.length < 100_000
          ? { description: { type: description.type, sdp: description.sdp } }
          : ice
            ? { candidate: ice }
            : null;
      const { meetingId, peerId, name } = mine.presence;
      if (clean) toRoom(io, peerRoom(meetingId, to), SERVER_EVENTS.meetingSignal, { from: peerId, name, ...clean });
    }),
  );

  // mute, camera: everyone's participant list shows it
  socket.on(
    CLIENT_EVENTS.meetingMedia,
    safely(socket, async (payload: unknown) => {
      const mine = current();
      if (!mine) return;
      const { audio, video } = (payload ?? {}) as { audio?: unknown; video?: unknown };
      if (typeof audio === "boolean") mine.presence.audio = audio;
      if (typeof video === "boolean") mine.presence.video = video;
      toRoom(io, meetingRoom(mine.presence.meetingId), SERVER_EVENTS.meetingPeerJoined, memberView(mine.presence));
    }),
  );

  // sfu: the browser's offer to publish (its candidates trickle after it); Janus's answer back,
  // then feeds both ways: this member receives everyone publishing, everyone receives this member
  socket.on(
    CLIENT_EVENTS.meetingPublish,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const sdp = sdpOf(payload);
      const client = janusClient();
      const mine = current();
      if (!mine || !sdp || !client) return void reply(ack, { ok: false });
      const { meetingId, peerId, name } = mine.presence;
      const old = mine.publisher;
      // the handle first, synchronously promised: candidates sent right after the offer wait for it
      const publisher = (async () => {
        if (old) await client.detach(await old.catch(() => 0));
        const handle = await client.attach();
        await client.request(handle, { request: "join", ptype: "publisher", room: janusRoom(meetingId), id: peerId, display: name });
        return handle;
      })();
      mine.publisher = publisher;
      publisher.catch(() => undefined);
      const offer: Jsep = { type: "offer", sdp, trickle: true };
      const { jsep } = await client.request(await publisher, { request: "publish", audio: true, video: true }, offer);
      if (!jsep || current() !== mine) return void reply(ack, { ok: false });
      mine.presence.publishing = true;
      reply(ack, { ok: true, sdp: jsep.sdp });
      for (const other of await roster(io, meetingId))
        if (other.publishing && other.peerId !== peerId)
          await sendFeed(mine, other.peerId, other.name).catch((error) => log.warn({ err: error }, "janus feed failed"));
      everyNode(io, "published", meetingId, peerId, name);
    }),
  );

  socket.on(
    CLIENT_EVENTS.meetingFeedAnswer,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const peerId = peerOf(payload, "peerId");
      const sdp = sdpOf(payload);
      const handle = peerId && current()?.feeds.get(peerId);
      const client = janusClient();
      if (!handle || !sdp || !client) return void reply(ack, { ok: false });
      await client.request(handle, { request: "start" }, { type: "answer", sdp, trickle: true });
      reply(ack, { ok: true });
    }),
  );

  // sfu: a candidate for this member's publisher (no peerId) or for one of its feeds; null: done
  socket.on(
    CLIENT_EVENTS.meetingTrickle,
    safely(socket, async (payload: unknown) => {
      const mine = current();
      const client = janusClient();
      if (!mine || !client) return;
      const { candidate } = (payload ?? {}) as { candidate?: unknown };
      const ice = candidate === null ? null : candidateOf(candidate);
      if (ice === null && candidate !== null) return;
      const feed = peerOf(payload, "peerId");
      const handle = feed ? mine.feeds.get(feed) : await mine.publisher?.catch(() => undefined);
      if (handle) await client.trickle(handle, ice);
    }),
  );
}

/** Agents: the socket the host authenticated by session. */
export function attachSocket(socket: Socket, io: Server) {
  const userId = Number(socket.data.userId);
  attachMeetingHandlers(io, socket, async () => {
    const user = await findUserById(userId);
    if (!user || user.disabledAt) return null;
    return { key: `user:${user.id}`, name: user.name, username: user.username, mayJoin: (m) => agentMayJoin(m, user) };
  });
}

/** Guests: the one-time link's cookie (bound to this browser) is their only credential. */
export function attachNamespaces(io: Server) {
  server = io;
  const guests = io.of(GUEST_NAMESPACE);
  guests.use(async (socket, next) => {
    try {
      const cookie = (await guestCookie().parse(socket.request.headers.cookie ?? null)) as { t?: string; i?: number; s?: string } | null;
      // an agent's page may use this namespace too: then the session decides
      const token = await sessionCookie().parse(socket.request.headers.cookie ?? null);
      const auth = await findSession(typeof token === "string" ? token : undefined);
      if (auth) {
        socket.data.userId = auth.user.id;
        return next();
      }
      if (!cookie?.t || !cookie.s) return next(new Error("unauthorized"));
      socket.data.guest = cookie;
      next();
    } catch (error) {
      next(error as Error);
    }
  });
  guests.on("connection", (socket) => {
    const overLimit = rateLimited(socket);
    socket.use((_packet, next) => (overLimit() ? next(new Error("rate limited")) : next()));
    if (socket.data.userId) return attachSocket(socket, io);
    const cookie = socket.data.guest as { t: string; i: number; s: string };
    attachMeetingHandlers(io, socket, async () => {
      const meeting = await meetingByToken(cookie.t);
      const guest = meeting && (await guestOf(meeting, Number(cookie.i), cookie.s));
      if (!meeting || !guest) return null;
      return { key: `guest:${guest.id}`, name: guest.name, username: "", mayJoin: async (m) => m.id === meeting.id && !m.endedAt };
    });
  });
}
