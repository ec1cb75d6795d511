// The bridge from model code to socket.io. server.ts registers the io instance; models publish
// after their writes. Rooms: user:<id>, session:<idHash>, and feature rooms added by plugins.
import type { Server } from "socket.io";
import { SERVER_EVENTS } from "./realtime-events";
import { log } from "./ops/log.server";
import { metrics } from "./ops/metrics.server";

const g = globalThis as unknown as { __omnideskIo?: Server };

export function registerRealtime(io: Server | undefined) {
  g.__omnideskIo = io;
}

/** An emit, timed (omnidesk_realtime_emit_seconds: what it measures is said in app/ops/metrics.server.ts). */
function timedEmit(event: string, emit: () => void) {
  const end = metrics.realtimeEmit.startTimer({ event });
  emit();
  end();
}

export function publish(room: string, event: string, payload: unknown) {
  const io = g.__omnideskIo;
  if (io) timedEmit(event, () => io.to(room).emit(event, payload));
}

export function disconnectSessionSockets(sessionIdHash: string) {
  g.__omnideskIo?.in(`session:${sessionIdHash}`).disconnectSockets(true);
}

export function disconnectUserSockets(userId: number) {
  g.__omnideskIo?.in(`user:${userId}`).disconnectSockets(true);
}

/** Takes out of `room` every socket (on any node) whose user no longer passes `allowed`. */
export async function pruneRoom(room: string, allowed: (userId: number) => Promise<boolean>) {
  const io = g.__omnideskIo;
  if (!io) return;
  const verdicts = new Map<number, Promise<boolean>>();
  for (const socket of await io.in(room).fetchSockets()) {
    const userId = Number(socket.data.userId);
    if (!verdicts.has(userId)) verdicts.set(userId, allowed(userId));
    if (!(await verdicts.get(userId))) socket.leave(room);
  }
}

/** The sockets in `room` on every node (via the adapter), to send each its own share. */
export async function fetchRoomSockets(room: string) {
  return (await g.__omnideskIo?.in(room).fetchSockets()) ?? [];
}

/** Ids of users with at least one connected socket, on every node (via the adapter); `visible`: shadow admins left out. */
export async function onlineUserIds({ visible = false } = {}): Promise<Set<number>> {
  const io = g.__omnideskIo;
  if (!io) return new Set();
  const sockets = await io.fetchSockets();
  return new Set(
    sockets
      .filter((s) => !(visible && s.data.shadow))
      .map((s) => Number(s.data.userId))
      .filter(Number.isInteger),
  );
}

/**
 * Presence news (statusUpdated, no ids: shadow admins are not to be seen coming and going) is per
 * user and coalesced: only a user's first socket up or last socket down on this node counts, the
 * changes of a window go out as one broadcast, and only if the set of online users (on every
 * node) or someone's status changed. A reconnect storm of 1,000 sockets costs one broadcast, not
 * one per connect to every socket.
 */
const presence = { windowMs: 1_000, local: new Map<number, number>(), timer: undefined as ReturnType<typeof setTimeout> | undefined, forced: false, last: "" };

/** A socket of `userId` connected (shadow admins are not counted). */
export function socketUp(userId: number) {
  const n = (presence.local.get(userId) ?? 0) + 1;
  presence.local.set(userId, n);
  if (n === 1) schedulePresence();
}

export function socketDown(userId: number) {
  const n = (presence.local.get(userId) ?? 0) - 1;
  if (n > 0) return void presence.local.set(userId, n);
  presence.local.delete(userId);
  schedulePresence();
}

/** Someone's status changed: the next window tells every page. */
export function presenceChanged() {
  presence.forced = true;
  schedulePresence();
}

function schedulePresence() {
  presence.timer ??= setTimeout(() => void flushPresence().catch((error) => log.error({ err: error }, "presence news not sent")), presence.windowMs);
}

/** Sends the window's presence news now (tests call it instead of waiting). */
export async function flushPresence() {
  clearTimeout(presence.timer);
  presence.timer = undefined;
  const forced = presence.forced;
  presence.forced = false;
  const online = [...(await onlineUserIds({ visible: true }))].sort((a, b) => a - b).join(",");
  if (!forced && online === presence.last) return;
  presence.last = online;
  broadcast(SERVER_EVENTS.statusUpdated, {});
}

/** For tests: the coalescing window. */
export function setPresenceWindow(ms: number) {
  presence.windowMs = ms;
}

/**
 * Live chat visitors connect to the "/visitor" namespace with their visit token; their sockets
 * sit in `livechat:<ticketId>` once the visit has a chat. They hear only that something changed
 * (no payload), and fetch what they may see over HTTP.
 */
export const VISITOR_NAMESPACE = "/visitor";
export const visitorRoom = (ticketId: number) => `livechat:${ticketId}`;
export function publishToVisitor(ticketId: number, event: string, payload: Record<string, unknown> = {}) {
  const io = g.__omnideskIo;
  if (io) timedEmit(event, () => io.of(VISITOR_NAMESPACE).to(visitorRoom(ticketId)).emit(event, payload));
}

/** The visitor's sockets stop hearing of a chat that is over. */
export function closeVisitorRoom(ticketId: number) {
  g.__omnideskIo?.of(VISITOR_NAMESPACE).in(visitorRoom(ticketId)).socketsLeave(visitorRoom(ticketId));
}

/** Every agent's and admin's sockets sit in this room (live chat queue news). */
export const STAFF_ROOM = "staff";

/** To every connected socket. */
export function broadcast(event: string, payload: unknown) {
  const io = g.__omnideskIo;
  if (io) timedEmit(event, () => io.emit(event, payload));
}
