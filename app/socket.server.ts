// The host's socket handlers: rate limit, presence, the build version and announcements; then
// the conversation's handlers and those of every plugin whose manifest names a `socket` module.
import type { Server, Socket } from "socket.io";
import { currentAnnouncement } from "./models/announcement.server";
import { broadcast } from "./realtime.server";
import { attachConversationSocket } from "./conversation/socket.server";
import { plugins } from "./plugins/registry.server";
import { pluginModule } from "./plugins/modules.server";
import { rateLimited, safely } from "./socket-tools.server";
import { VERSION } from "./version";
import { SERVER_EVENTS, CLIENT_EVENTS } from "~/realtime-events";

/** Presence news from one socket at most this often. */
const PRESENCE_EVERY_MS = 10_000;

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

    // presence: lists of online agents refresh when someone comes or goes (no ids: shadow
    // admins are not to be seen coming and going)
    let lastPresence = 0;
    const presence = () => {
      if (socket.data.shadow || Date.now() - lastPresence < PRESENCE_EVERY_MS) return;
      lastPresence = Date.now();
      broadcast(SERVER_EVENTS.statusUpdated, {});
    };
    presence();
    // the build this server runs: a page from an older one offers to refresh
    socket.emit(SERVER_EVENTS.newVersion, { id: VERSION.id, description: VERSION.description });
    socket.on("disconnect", () => {
      lastPresence = 0;
      presence();
    });
    socket.on(CLIENT_EVENTS.tellOnline, presence);

    // getAnnouncement: the current announcement, if any (the page shows it from its loader too)
    socket.on(
      "getAnnouncement",
      safely(socket, async () => void socket.emit(SERVER_EVENTS.announcement, (await currentAnnouncement()) ?? {})),
    );

    attachConversationSocket(io, socket);
    for (const m of modules) m.attachSocket?.(socket, io);
  });
  for (const m of modules) m.attachNamespaces?.(io);
}
