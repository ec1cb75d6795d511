// Sockets seen by logs and metrics: each socket's lines carry its id and user (every event it
// sends runs in that log context), and the socket gauges count this server's sockets.
import type { Server } from "socket.io";
import { log, withLogContext } from "./log.server";
import { countSocketsOf } from "./metrics.server";

/** server.ts, once the namespaces exist (after the socket handlers are attached). */
export function observeSockets(io: Server) {
  countSocketsOf(io);
  for (const nsp of io._nsps.values()) {
    nsp.on("connection", (socket) => {
      const fields = { socketId: socket.id, userId: Number(socket.data.userId) || undefined };
      // the last middleware, so socket.io runs the event's handler inside this context
      socket.use((_packet, next) => withLogContext(fields, () => next()));
      log.debug({ ...fields, namespace: nsp.name }, "socket connected");
      socket.on("disconnect", (reason) => log.debug({ ...fields, namespace: nsp.name, reason }, "socket disconnected"));
    });
  }
}
