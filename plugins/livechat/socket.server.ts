// The live chat's socket handlers (plugin.json "socket"): Accept and the queue size for agents,
// and the "/visitor" namespace where visitors wait and chat.
import type { Server, Socket } from "socket.io";
import { findUserById } from "~/accounts/users.server";
import { VISITOR_NAMESPACE, visitorRoom } from "~/realtime.server";
import { rateLimited, safely, ticketIdOf, ticketRoom } from "~/socket-tools.server";
import { acceptLiveChat, findVisit, liveChatOf, queueNumber, validVisitCsrf, waitingChats } from "./livechat.server";
import { CLIENT_EVENTS, SERVER_EVENTS } from "~/realtime-events";

/** Every agent's socket. */
export function attachSocket(socket: Socket) {
  const userId = socket.data.userId as number;

  // acceptLiveChat {ticketId}: the desk's Accept over the socket (the same model call as the form)
  socket.on(
    "acceptLiveChat",
    safely(socket, async (payload: unknown, ack?: (answer: { ok: boolean; ticketNumber?: number }) => void) => {
      const ticketId = ticketIdOf(payload);
      const user = ticketId ? await findUserById(userId) : undefined;
      // (the model refuses a chat the user may not read: the ack says no)
      const accepted = user ? await acceptLiveChat(user, ticketId!) : false;
      if (typeof ack === "function") ack(accepted ? { ok: true, ticketNumber: accepted.ticketNumber } : { ok: false });
    }),
  );
  // getLiveChatQueue: how many visitors wait (in the chats this user may read)
  socket.on(
    "getLiveChatQueue",
    safely(socket, async () => {
      const user = await findUserById(userId);
      if (user) socket.emit(SERVER_EVENTS.liveChatQueue, { count: (await waitingChats(user)).length });
    }),
  );
}

/**
 * Live chat visitors: no session, only the visit token (handshake auth). A socket hears of its
 * own chat only; what it may see is fetched over HTTP with the same token.
 */
export function attachNamespaces(io: Server) {
  const visitors = io.of(VISITOR_NAMESPACE);
  visitors.use(async (socket, next) => {
    try {
      const visit = await findVisit(String((socket.handshake.auth as { token?: unknown })?.token ?? ""));
      if (!visit) return next(new Error("unauthorized"));
      socket.data.visitToken = visit.token;
      // a token outlives its chat: the room only while the chat waits or runs
      const ticketId = liveChatOf(visit);
      if (ticketId) socket.join(visitorRoom(ticketId));
      next();
    } catch (error) {
      next(error as Error);
    }
  });
  visitors.on("connection", (socket) => {
    const overLimit = rateLimited(socket);
    socket.use((_packet, next) => (overLimit() ? next(new Error("rate limited")) : next()));
    const token = socket.data.visitToken as string;

    // registerQueue {token, csrf}: after registering, the socket joins its chat and hears its place
    socket.on(
      "registerQueue",
      safely(socket, async (payload: unknown, ack?: (answer: { ok: boolean; number?: number }) => void) => {
        const { csrf } = (payload ?? {}) as { csrf?: unknown };
        const visit = validVisitCsrf(token, csrf) ? await findVisit(token) : undefined;
        const ticketId = visit && liveChatOf(visit);
        if (!ticketId) return void (typeof ack === "function" && ack({ ok: false }));
        await socket.join(visitorRoom(ticketId));
        const number = visit.state === "queued" ? await queueNumber(visit) : 0;
        if (number) socket.emit(SERVER_EVENTS.queueNumber, { number });
        if (typeof ack === "function") ack({ ok: true, number });
      }),
    );

    for (const [incoming, outgoing] of [
      [CLIENT_EVENTS.sendTyping, SERVER_EVENTS.setTyping],
      [CLIENT_EVENTS.removeTyping, SERVER_EVENTS.removeTyping],
    ] as const) {
      socket.on(
        incoming,
        safely(socket, async () => {
          const visit = await findVisit(token);
          if (visit?.state !== "active" || !visit.ticket) return;
          io.to(ticketRoom(visit.ticket.id)).emit(outgoing, { ticketId: visit.ticket.id, username: "", name: visit.ticket.contactName });
        }),
      );
    }
  });
}
