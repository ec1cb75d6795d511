// Shared pieces of socket handlers (the host's, the conversation's and plugins'): a per-socket
// rate limit, ids read from payloads, and async handlers whose errors are logged, not fatal.
import type { Socket } from "socket.io";
import { log } from "./ops/log.server";

/** Events a socket may send per second before they are dropped (and, far over, it is cut off). */
const EVENTS_PER_SECOND = 20;
const MAX_ID = 2 ** 31 - 1;

export function rateLimited(socket: Socket) {
  let windowStart = Date.now();
  let count = 0;
  return () => {
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      count = 0;
    }
    count++;
    if (count > EVENTS_PER_SECOND * 5) socket.disconnect(true);
    return count > EVENTS_PER_SECOND;
  };
}

export const ticketRoom = (id: number) => `ticket:${id}`;

/** The ticket id of an event's payload, when it is one the database can hold. */
export function ticketIdOf(payload: unknown) {
  const id = Number((payload as { ticketId?: unknown } | null)?.ticketId);
  return Number.isInteger(id) && id > 0 && id <= MAX_ID ? id : undefined;
}

/** socket.io does not catch errors of async handlers; one would end the process. */
export function safely<A extends unknown[]>(socket: Socket, handler: (...args: A) => Promise<void>) {
  return (...args: A) => {
    handler(...args).catch((error) => {
      log.error({ err: error, socketId: socket.id, userId: Number(socket.data.userId) || undefined }, "socket handler failed");
      const ack = args.at(-1);
      if (typeof ack === "function") ack({ ok: false });
    });
  };
}
