// The bridge from model code to socket.io. server.ts registers the io instance; models publish
// after their writes. Rooms: user:<id>, session:<idHash>, and feature rooms added by plugins.
import type { Server } from "socket.io";

const g = globalThis as unknown as { __omnideskIo?: Server };

export function registerRealtime(io: Server | undefined) {
  g.__omnideskIo = io;
}

export function publish(room: string, event: string, payload: unknown) {
  g.__omnideskIo?.to(room).emit(event, payload);
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

/** Ids of users with at least one connected socket, on every node (via the adapter). */
export async function onlineUserIds(): Promise<Set<number>> {
  const io = g.__omnideskIo;
  if (!io) return new Set();
  const sockets = await io.fetchSockets();
  return new Set(sockets.map((s) => Number(s.data.userId)).filter(Number.isInteger));
}

/**
 * Live chat visitors connect to the "/visitor" namespace with their visit token; their sockets
 * sit in `livechat:<ticketId>` once the visit has a chat. They hear only that something changed
 * (no payload), and fetch what they may see over HTTP.
 */
export const VISITOR_NAMESPACE = "/visitor";
export const visitorRoom = (ticketId: number) => `livechat:${ticketId}`;
export function publishToVisitor(ticketId: number, event: string, payload: Record<string, unknown> = {}) {
  g.__omnideskIo?.of(VISITOR_NAMESPACE).to(visitorRoom(ticketId)).emit(event, payload);
}

/** The visitor's sockets stop hearing of a chat that is over. */
export function closeVisitorRoom(ticketId: number) {
  g.__omnideskIo?.of(VISITOR_NAMESPACE).in(visitorRoom(ticketId)).socketsLeave(visitorRoom(ticketId));
}

/** Every agent's and admin's sockets sit in this room (live chat queue news). */
export const STAFF_ROOM = "staff";

/** To every connected socket. */
export function broadcast(event: string, payload: unknown) {
  g.__omnideskIo?.emit(event, payload);
}
