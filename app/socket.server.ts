// The host's socket handlers: rate limit, presence, the build version and announcements; then
// the conversation's handlers and those of every plugin whose manifest names a `socket` module.
import type { Server, Socket } from "socket.io";
import { currentAnnouncement } from "./models/announcement.server";
import { socketDown, socketUp } from "./realtime.server";
import { attachConversationSocket } from "./conversation/socket.server";
import { attachDebugSocket } from "./debug-socket.server";
import { plugins } from "./plugins/registry.server";
import { pluginModule } from "./plugins/modules.server";
import { rateLimited, safely } from "./socket-tools.server";
import { serverVersion } from "./version.server";
import { SERVER_EVENTS } from "~/realtime-events";

/** What a plugin's socket module may export. */
export interface PluginSocketModule {
  /** Called for every agent's socket as it connects. */
  attachSocket?(socket: Socket, io: Server): void;
  /** Called once: namespaces of the plugin's own (live chat visitors). */
  attachNamespaces?(io: Server): void;
}

export async function attachSocketHandlers(io: Server) {
  // every plugin's module, whether or not an edition enables it: sockets are not per host
  const modules = await Promise.all(
    plugins()
      .filter((p) => p.socket)
      .map((p) => pluginModule<PluginSocketModule>(p.id, p.socket!)),
  );
  io.on("connection", (socket) => {
    const overLimit = rateLimited(socket);
    socket.use((_packet, next) => (overLimit() ? next(new Error("rate limited")) : next()));

    // presence: per user and coalesced (realtime.server.ts); shadow admins are not seen
    const userId = Number(socket.data.userId);
    if (!socket.data.shadow) {
      socketUp(userId);
      socket.on("disconnect", () => socketDown(userId));
    }
    // the build this server runs: a page from an older one offers to refresh
    socket.emit(SERVER_EVENTS.newVersion, serverVersion());

    // getAnnouncement: the current announcement, if any (the page shows it from its loader too)
    socket.on(
      "getAnnouncement",
      safely(socket, async () => void socket.emit(SERVER_EVENTS.announcement, (await currentAnnouncement()) ?? {})),
    );

    attachConversationSocket(io, socket);
    attachDebugSocket(socket);
    for (const m of modules) m.attachSocket?.(socket, io);
  });
  for (const m of modules) m.attachNamespaces?.(io);
}
