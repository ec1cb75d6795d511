// socket.io handlers. They only relay: joining a room asks the same access rule as the pages
// (canRead), and typing is the one event that does not go through a model write.
import type { Server, Socket } from "socket.io";
import { canRead } from "./models/access.server";
import { findUserById } from "./models/users.server";
import { broadcast } from "./realtime.server";
import { unreadCounts } from "./models/unread.server";

/** Events a socket may send per second before they are dropped (and, far over, it is cut off). */
const EVENTS_PER_SECOND = 20;

function rateLimited(socket: Socket) {
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

const ticketRoom = (id: number) => `ticket:${id}`;

export function attachSocketHandlers(io: Server) {
  io.on("connection", (socket) => {
    const overLimit = rateLimited(socket);
    const userId = socket.data.userId as number;
    socket.use((_packet, next) => (overLimit() ? next(new Error("rate limited")) : next()));

    // presence: lists of online agents refresh when someone comes or goes
    broadcast("statusUpdated", { userId });
    socket.on("disconnect", () => broadcast("statusUpdated", { userId }));
    socket.on("tellOnline", () => broadcast("statusUpdated", { userId }));

    // joinRoom {ticketId}: only conversations this user may read; answers {ok} to the ack
    socket.on("joinRoom", async (payload: unknown, ack?: (answer: { ok: boolean }) => void) => {
      const ticketId = Number((payload as { ticketId?: unknown })?.ticketId);
      const user = Number.isSafeInteger(ticketId) ? await findUserById(userId) : undefined;
      const ok = !!user && (await canRead(user, ticketId));
      if (ok) await socket.join(ticketRoom(ticketId));
      if (typeof ack === "function") ack({ ok });
    });

    socket.on("leaveRoom", async (payload: unknown) => {
      const ticketId = Number((payload as { ticketId?: unknown })?.ticketId);
      if (Number.isSafeInteger(ticketId)) await socket.leave(ticketRoom(ticketId));
    });

    // refresh*UnreadCount: the counts of this user, answered as unreadCount2 {ticket, livechat, chat}
    for (const event of ["refreshTicketUnreadCount", "refreshLiveChatUnreadCount", "refreshChatUnreadCount"]) {
      socket.on(event, async () => socket.emit("unreadCount2", await unreadCounts(userId)));
    }

    // typing goes only to rooms the socket has joined (and so was allowed into)
    for (const [incoming, outgoing] of [["sendTyping", "setTyping"], ["removeTyping", "removeTyping"]] as const) {
      socket.on(incoming, async (payload: unknown) => {
        const ticketId = Number((payload as { ticketId?: unknown })?.ticketId);
        if (!socket.rooms.has(ticketRoom(ticketId))) return;
        const user = await findUserById(userId);
        if (user) socket.to(ticketRoom(ticketId)).emit(outgoing, { ticketId, username: user.username, name: user.name });
      });
    }
  });
}
