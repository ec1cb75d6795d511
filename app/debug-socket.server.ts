// debugPing: the "test send" debug shortcut's round trip; answers the ack with the server's time.
import type { Socket } from "socket.io";
import { CLIENT_EVENTS } from "./realtime-events";

export function attachDebugSocket(socket: Socket) {
  socket.on(CLIENT_EVENTS.debugPing, (_payload: unknown, ack?: (answer: { at: number }) => void) => {
    if (typeof ack === "function") ack({ at: Date.now() });
  });
}
