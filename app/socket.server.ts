// socket.io handlers. They only relay: joining a room asks the same access rule as the pages
// (canRead), and typing is the one event that does not go through a model write.
import type { Server, Socket } from "socket.io";
import { canRead } from "~/conversation/access.server";
import { currentAnnouncement } from "./models/announcement.server";
import { conversationById, markConversationRead } from "~/conversation/model.server";
import { findUserById } from "./models/users.server";
import { unreadCounts } from "~/conversation/unread.server";
import { broadcast, VISITOR_NAMESPACE, visitorRoom } from "./realtime.server";
import { acceptLiveChat, findVisit, queueNumber, validVisitCsrf, waitingChats } from "@plugins/livechat/livechat.server";
import { VERSION } from "./version";

/** Events a socket may send per second before they are dropped (and, far over, it is cut off). */
const EVENTS_PER_SECOND = 20;
/** Presence news from one socket at most this often. */
const PRESENCE_EVERY_MS = 10_000;
const MAX_ID = 2 ** 31 - 1;

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

/** The ticket id of an event's payload, when it is one the database can hold. */
function ticketIdOf(payload: unknown) {
  const id = Number((payload as { ticketId?: unknown } | null)?.ticketId);
  return Number.isInteger(id) && id > 0 && id <= MAX_ID ? id : undefined;
}

/** socket.io does not catch errors of async handlers; one would end the process. */
function safely<A extends unknown[]>(socket: Socket, handler: (...args: A) => Promise<void>) {
  return (...args: A) => {
    handler(...args).catch((error) => {
      console.error(`socket ${socket.id}:`, error);
      const ack = args.at(-1);
      if (typeof ack === "function") ack({ ok: false });
    });
  };
}

export function attachSocketHandlers(io: Server) {
  io.on("connection", (socket) => {
    const overLimit = rateLimited(socket);
    const userId = socket.data.userId as number;
    const me = { username: socket.data.username as string, name: socket.data.name as string };
    socket.use((_packet, next) => (overLimit() ? next(new Error("rate limited")) : next()));

    // presence: lists of online agents refresh when someone comes or goes (no ids: shadow
    // admins are not to be seen coming and going)
    let lastPresence = 0;
    const presence = () => {
      if (socket.data.shadow || Date.now() - lastPresence < PRESENCE_EVERY_MS) return;
      lastPresence = Date.now();
      broadcast("statusUpdated", {});
    };
    presence();
    // the build this server runs: a page from an older one offers to refresh
    socket.emit("newVersion", { id: VERSION.id, description: VERSION.description });
    socket.on("disconnect", () => {
      lastPresence = 0;
      presence();
    });
    socket.on("tellOnline", presence);

    // room changes of one socket happen in the order they were asked for (a quick A -> B must
    // not leave it in A because the leave overtook the join)
    let roomOps: Promise<unknown> = Promise.resolve();
    const inOrder =
      <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
      (...args: A) => {
        const next = roomOps.then(() => fn(...args));
        roomOps = next.catch(() => undefined); // a failed op must not stall the ones after it
        return next;
      };

    // joinRoom {ticketId}: only conversations this user may read; answers {ok} to the ack.
    // Access is checked again after joining: a removal that landed in between wins.
    socket.on(
      "joinRoom",
      safely(socket, inOrder(async (payload: unknown, ack?: (answer: { ok: boolean }) => void) => {
        const ticketId = ticketIdOf(payload);
        const user = ticketId ? await findUserById(userId) : undefined;
        let ok = !!user && (await canRead(user, ticketId!));
        if (ok) {
          await socket.join(ticketRoom(ticketId!));
          ok = await canRead(user!, ticketId!);
          if (!ok) await socket.leave(ticketRoom(ticketId!));
        }
        if (typeof ack === "function") ack({ ok });
      })),
    );

    socket.on(
      "leaveRoom",
      safely(socket, inOrder(async (payload: unknown) => {
        const ticketId = ticketIdOf(payload);
        if (ticketId) await socket.leave(ticketRoom(ticketId));
      })),
    );

    // refresh*UnreadCount: the counts of this user, answered as unreadCount2 {ticket, livechat, chat}
    for (const event of ["refreshTicketUnreadCount", "refreshLiveChatUnreadCount", "refreshChatUnreadCount"]) {
      socket.on(event, safely(socket, async () => void socket.emit("unreadCount2", await unreadCounts(userId))));
    }

    // readMessage / readMessage2 {ticketId}: the user looked at the conversation; every tab of
    // theirs gets the new unread counts
    for (const event of ["readMessage", "readMessage2"]) {
      socket.on(
        event,
        safely(socket, async (payload: unknown) => {
          const ticketId = ticketIdOf(payload);
          const user = ticketId ? await findUserById(userId) : undefined;
          if (!user || !(await canRead(user, ticketId!))) return;
          if (await markConversationRead(user, await conversationById(user, ticketId!)))
            io.to(`user:${userId}`).emit("unreadCount2", await unreadCounts(userId));
        }),
      );
    }

    // getAnnouncement: the current announcement, if any (the page shows it from its loader too)
    socket.on(
      "getAnnouncement",
      safely(socket, async () => void socket.emit("announcement", (await currentAnnouncement()) ?? {})),
    );

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
        if (user) socket.emit("liveChatQueue", { count: (await waitingChats(user)).length });
      }),
    );

    // typing goes only to rooms the socket has joined (and so was allowed into)
    for (const [incoming, outgoing] of [["sendTyping", "setTyping"], ["removeTyping", "removeTyping"]] as const) {
      socket.on(incoming, (payload: unknown) => {
        const ticketId = ticketIdOf(payload);
        if (!ticketId || !socket.rooms.has(ticketRoom(ticketId))) return;
        socket.to(ticketRoom(ticketId)).emit(outgoing, { ticketId, ...me });
        // a live chat's visitor sees the agent typing too (no-op for other conversations)
        io.of(VISITOR_NAMESPACE).to(visitorRoom(ticketId)).emit(outgoing, { name: me.name });
      });
    }
  });

  attachVisitorHandlers(io);
}

/**
 * Live chat visitors: no session, only the visit token (handshake auth). A socket hears of its
 * own chat only; what it may see is fetched over HTTP with the same token.
 */
function attachVisitorHandlers(io: Server) {
  const visitors = io.of(VISITOR_NAMESPACE);
  visitors.use(async (socket, next) => {
    try {
      const visit = await findVisit(String((socket.handshake.auth as { token?: unknown })?.token ?? ""));
      if (!visit) return next(new Error("unauthorized"));
      socket.data.visitToken = visit.token;
      if (visit.ticketId) socket.join(visitorRoom(visit.ticketId));
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
        if (!visit?.ticketId) return void (typeof ack === "function" && ack({ ok: false }));
        await socket.join(visitorRoom(visit.ticketId));
        const number = visit.state === "queued" ? await queueNumber(visit) : 0;
        if (number) socket.emit("queueNumber", { number });
        if (typeof ack === "function") ack({ ok: true, number });
      }),
    );

    for (const [incoming, outgoing] of [["sendTyping", "setTyping"], ["removeTyping", "removeTyping"]] as const) {
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
