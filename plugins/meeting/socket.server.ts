// The meeting's socket events (spec section 7): getMeetingCount, joinMeeting, leaveMeeting for
// presence, then WebRTC signalling. Agents use their own socket (the host's default namespace);
// invited guests, who have no session, use the "/meeting" namespace with their one-time link's
// cookie. Media goes one of two ways, chosen when a meeting's first person joins on this node:
// - "sfu": Janus runs (JANUS_URL answers): each browser publishes once to a VideoRoom and receives
//   one feed per other person; this server speaks Janus's API for it (janus/client.server.ts);
// - "mesh": no Janus: browsers connect to each other, this server relays their offers and answers
//   (meetingSignal), and a meeting holds at most MESH_LIMIT people.
// Who is in which meeting is kept in this node's memory (with several nodes a meeting's people
// must reach the same node: sticky sessions by meeting token).
import type { Server, Socket } from "socket.io";
import { findUserById } from "~/accounts/users.server";
import { sessionCookie } from "~/cookies.server";
import { findSession } from "~/accounts/sessions.server";
import { rateLimited, safely } from "~/socket-tools.server";
import { CLIENT_EVENTS, SERVER_EVENTS } from "~/realtime-events";
import { log } from "~/ops/log.server";
import { admits, type MediaMode } from "./limits";
import { iceServersFor, turnConfigured } from "./turn.server";
import { JanusClient, janusUrl, type Jsep } from "./janus/client.server";
import { agentMayJoin, endMeeting, guestOf, meetingByToken, recordAttendee, type MeetingRow } from "./meeting.server";
import { guestCookie } from "./guest-cookie.server";

export const GUEST_NAMESPACE = "/meeting";
export const meetingRoom = (id: number) => `meeting:${id}`;
/** A meeting everyone left ends after this long (a reload or a lost connection is not the end). */
const emptyGraceMs = () => Number(process.env.MEETING_EMPTY_GRACE_MS || 60_000);

interface Identity {
  /** one per person: "user:<id>" or "guest:<invite id>" (two tabs of one person count once) */
  key: string;
  name: string;
  username: string;
  mayJoin(meeting: MeetingRow): Promise<boolean>;
}

interface Member {
  peerId: number;
  socket: Socket;
  key: string;
  name: string;
  username: string;
  audio: boolean;
  video: boolean;
  /** SFU: the publisher's handle and the handles of the feeds this member receives (by publisher peer id) */
  publisher?: number;
  publishing?: boolean;
  feeds: Map<number, number>;
}

interface Room {
  meeting: MeetingRow;
  mode: MediaMode;
  members: Map<number, Member>;
  emptyTimer?: ReturnType<typeof setTimeout>;
}

const rooms = new Map<number, Room>();
const opening = new Map<number, Promise<Room>>();
let nextPeerId = 1;
let janus: JanusClient | null = null;

function janusClient() {
  const url = janusUrl();
  if (!url) return null;
  if (janus?.url !== url) janus = new JanusClient(url);
  return janus;
}

/** The Janus room of a meeting: its id, offset so rooms of other apps on the same Janus are left alone. */
const janusRoom = (meetingId: number) => 700_000_000 + meetingId;

async function openRoom(meeting: MeetingRow): Promise<Room> {
  const existing = rooms.get(meeting.id);
  if (existing) return existing;
  let pending = opening.get(meeting.id);
  if (!pending) {
    pending = (async () => {
      const client = janusClient();
      let mode: MediaMode = "mesh";
      if (client && (await client.reachable())) {
        try {
          const handle = await client.attach();
          await client
            .request(handle, {
              request: "create",
              room: janusRoom(meeting.id),
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
          mode = "sfu";
        } catch (error) {
          log.warn({ err: error }, "janus refused the meeting room: mesh instead");
        }
      }
      const room: Room = { meeting, mode, members: new Map() };
      rooms.set(meeting.id, room);
      return room;
    })().finally(() => opening.delete(meeting.id));
    opening.set(meeting.id, pending);
  }
  return pending;
}

const peopleIn = (room: Room) => new Set([...room.members.values()].map((m) => m.key)).size;
const memberView = (m: Member) => ({ peerId: m.peerId, name: m.name, audio: m.audio, video: m.video });

/** Closes a member's Janus handles (their publisher and the feeds they received, and others' feeds of them). */
async function dropMedia(room: Room, member: Member) {
  const client = janusClient();
  if (room.mode !== "sfu" || !client) return;
  const handles = [...member.feeds.values(), ...(member.publisher ? [member.publisher] : [])];
  for (const other of room.members.values()) {
    const feed = other.feeds.get(member.peerId);
    if (feed) {
      other.feeds.delete(member.peerId);
      handles.push(feed);
    }
  }
  member.feeds.clear();
  member.publisher = undefined;
  await Promise.all(handles.map((h) => client.detach(h)));
}

async function leave(room: Room, member: Member, io: Server) {
  if (!room.members.delete(member.peerId)) return;
  member.socket.leave(meetingRoom(room.meeting.id));
  await dropMedia(room, member);
  toRoom(io, room, SERVER_EVENTS.meetingPeerLeft, { peerId: member.peerId });
  if (room.members.size) return;
  clearTimeout(room.emptyTimer);
  room.emptyTimer = setTimeout(() => {
    if (room.members.size || rooms.get(room.meeting.id) !== room) return;
    rooms.delete(room.meeting.id);
    void endMeeting(room.meeting.id, { name: member.name, username: member.username }).catch((error) => log.error({ err: error }, "meeting end failed"));
  }, emptyGraceMs());
  room.emptyTimer.unref?.();
}

/** Both namespaces: the agents' (default) and the guests'. */
function toRoom(io: Server, room: Room, event: string, payload: unknown, except?: string) {
  for (const nsp of [io.of("/"), io.of(GUEST_NAMESPACE)])
    (except ? nsp.to(meetingRoom(room.meeting.id)).except(except) : nsp.to(meetingRoom(room.meeting.id))).emit(event, payload);
}

let server: Server | undefined;

/** The meeting was ended (its End button): everyone's page is told and the room is forgotten. */
export async function closeMeetingRoom(meetingId: number, io: Server | undefined = server) {
  const room = rooms.get(meetingId);
  rooms.delete(meetingId);
  if (!room) return;
  clearTimeout(room.emptyTimer);
  if (io) toRoom(io, room, SERVER_EVENTS.meetingEnded, {});
  for (const m of [...room.members.values()]) {
    room.members.delete(m.peerId);
    m.socket.leave(meetingRoom(meetingId));
    await dropMedia(room, m);
  }
}

/** Subscribes `viewer` to `source`'s published feed: Janus offers, the viewer's page answers (meetingFeedAnswer). */
async function sendFeed(room: Room, viewer: Member, source: Member) {
  const client = janusClient();
  if (!client || viewer.feeds.has(source.peerId) || viewer === source) return;
  const handle = await client.attach();
  viewer.feeds.set(source.peerId, handle);
  // a publisher is a feed once its media is up (a moment after Janus answered its offer)
  let jsep: Jsep | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      ({ jsep } = await client.request(handle, { request: "join", ptype: "subscriber", room: janusRoom(room.meeting.id), streams: [{ feed: source.peerId }] }));
      break;
    } catch (error) {
      if (attempt >= 60 || !/No such feed/i.test((error as Error).message) || !room.members.has(source.peerId)) {
        viewer.feeds.delete(source.peerId);
        await client.detach(handle);
        throw error;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  if (!jsep || !room.members.has(viewer.peerId)) return void client.detach(handle);
  viewer.socket.emit(SERVER_EVENTS.meetingFeed, { peerId: source.peerId, name: source.name, sdp: jsep.sdp });
}

const sdpOf = (payload: unknown) => {
  const sdp = (payload as { sdp?: unknown } | null)?.sdp;
  return typeof sdp === "string" && sdp.length < 100_000 ? sdp : null;
};
const peerOf = (payload: unknown, key: "to" | "peerId") => {
  const id = Number((payload as Record<string, unknown> | null)?.[key]);
  return Number.isInteger(id) && id > 0 ? id : null;
};

type Ack = (answer: Record<string, unknown>) => void;

function attachMeetingHandlers(io: Server, socket: Socket, identity: () => Promise<Identity | null>) {
  // this socket's place in at most one meeting
  let current: { room: Room; member: Member } | null = null;
  const reply = (ack: unknown, answer: Record<string, unknown>) => typeof ack === "function" && (ack as Ack)(answer);

  const findMeeting = async (payload: unknown) => {
    const token = (payload as { token?: unknown } | null)?.token;
    return typeof token === "string" ? meetingByToken(token) : undefined;
  };

  socket.on(
    CLIENT_EVENTS.getMeetingCount,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const [meeting, who] = await Promise.all([findMeeting(payload), identity()]);
      if (!meeting || !who || !(await who.mayJoin(meeting))) return void reply(ack, { ok: false });
      const room = rooms.get(meeting.id);
      reply(ack, { ok: true, count: room ? peopleIn(room) : 0, ended: Boolean(meeting.endedAt) });
    }),
  );

  socket.on(
    CLIENT_EVENTS.joinMeeting,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const [meeting, who] = await Promise.all([findMeeting(payload), identity()]);
      if (!meeting) return void reply(ack, { ok: false, reason: "notFound" });
      if (meeting.endedAt) return void reply(ack, { ok: false, reason: "ended" });
      if (!who || !(await who.mayJoin(meeting))) return void reply(ack, { ok: false, reason: "notInvited" });
      if (current) await leave(current.room, current.member, io);
      const room = await openRoom(meeting);
      clearTimeout(room.emptyTimer);
      const already = [...room.members.values()].some((m) => m.key === who.key);
      const admitted = admits(room.mode, peopleIn(room), already, process.env);
      if (!admitted.ok) return void reply(ack, { ok: false, reason: "full", limit: admitted.limit, mode: room.mode });
      const member: Member = { peerId: nextPeerId++, socket, key: who.key, name: who.name, username: who.username, audio: true, video: true, feeds: new Map() };
      const peers = [...room.members.values()].map(memberView);
      room.members.set(member.peerId, member);
      current = { room, member };
      await socket.join(meetingRoom(meeting.id));
      toRoom(io, room, SERVER_EVENTS.meetingPeerJoined, memberView(member), socket.id);
      await recordAttendee(meeting.id, who.name);
      reply(ack, {
        ok: true,
        peerId: member.peerId,
        mode: room.mode,
        limit: admitted.limit,
        peers,
        iceServers: iceServersFor(who.key),
        turn: turnConfigured(),
      });
    }),
  );

  const leaveCurrent = async () => {
    if (!current) return;
    const { room, member } = current;
    current = null;
    await leave(room, member, io);
  };
  socket.on(
    CLIENT_EVENTS.leaveMeeting,
    safely(socket, async (_payload: unknown, ack?: Ack) => {
      await leaveCurrent();
      reply(ack, { ok: true });
    }),
  );
  socket.on("disconnect", () => void leaveCurrent().catch((error) => log.error({ err: error }, "meeting leave failed")));

  // mesh: an offer, answer or candidate for one other member, relayed as it is (SDP is opaque here)
  socket.on(
    CLIENT_EVENTS.meetingSignal,
    safely(socket, async (payload: unknown) => {
      const to = peerOf(payload, "to");
      const target = to && current?.room.members.get(to);
      if (!current || !target || current.room.mode !== "mesh") return;
      const { description, candidate } = (payload ?? {}) as { description?: { type?: unknown; sdp?: unknown }; candidate?: unknown };
      const clean =
        description &&
        (description.type === "offer" || description.type === "answer") &&
        typeof description.sdp === "string" &&
        description.sdp.length < 100_000
          ? { description: { type: description.type, sdp: description.sdp } }
          : candidate && typeof candidate === "object"
            ? { candidate }
            : null;
      if (clean) target.socket.emit(SERVER_EVENTS.meetingSignal, { from: current.member.peerId, name: current.member.name, ...clean });
    }),
  );

  // mute, camera: everyone's participant list shows it
  socket.on(
    CLIENT_EVENTS.meetingMedia,
    safely(socket, async (payload: unknown) => {
      if (!current) return;
      const { audio, video } = (payload ?? {}) as { audio?: unknown; video?: unknown };
      if (typeof audio === "boolean") current.member.audio = audio;
      if (typeof video === "boolean") current.member.video = video;
      toRoom(io, current.room, SERVER_EVENTS.meetingPeerJoined, memberView(current.member));
    }),
  );

  // sfu: the browser's offer to publish; Janus's answer back, then feeds both ways
  socket.on(
    CLIENT_EVENTS.meetingPublish,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const sdp = sdpOf(payload);
      const client = janusClient();
      if (!current || current.room.mode !== "sfu" || !sdp || !client) return void reply(ack, { ok: false });
      const { room, member } = current;
      if (member.publisher) await client.detach(member.publisher);
      member.publisher = await client.attach();
      await client.request(member.publisher, {
        request: "join",
        ptype: "publisher",
        room: janusRoom(room.meeting.id),
        id: member.peerId,
        display: member.name,
      });
      const offer: Jsep = { type: "offer", sdp, trickle: false };
      const { jsep } = await client.request(member.publisher, { request: "publish", audio: true, video: true }, offer);
      if (!jsep) return void reply(ack, { ok: false });
      member.publishing = true;
      reply(ack, { ok: true, sdp: jsep.sdp });
      // the others' feeds to this member, and this member's feed to the others
      for (const other of room.members.values()) {
        if (other === member || !other.publishing) continue;
        await sendFeed(room, member, other).catch((error) => log.warn({ err: error }, "janus feed failed"));
        await sendFeed(room, other, member).catch((error) => log.warn({ err: error }, "janus feed failed"));
      }
    }),
  );

  socket.on(
    CLIENT_EVENTS.meetingFeedAnswer,
    safely(socket, async (payload: unknown, ack?: Ack) => {
      const peerId = peerOf(payload, "peerId");
      const sdp = sdpOf(payload);
      const handle = peerId && current?.member.feeds.get(peerId);
      const client = janusClient();
      if (!handle || !sdp || !client) return void reply(ack, { ok: false });
      await client.request(handle, { request: "start" }, { type: "answer", sdp, trickle: false });
      reply(ack, { ok: true });
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
