// The conversation's socket handlers, for every agent socket. They only relay: joining a room
// asks the same access rule as the pages (canRead), and typing is the one event that does not
// go through a model write.
import type { Server, Socket } from "socket.io";
import { findUserById } from "~/accounts/users.server";
import { VISITOR_NAMESPACE, visitorRoom } from "~/realtime.server";
import { safely, ticketIdOf, ticketRoom } from "~/socket-tools.server";
import { canRead } from "./access.server";
import { conversationById, markConversationRead } from "./model.server";
import { messagesAfter, shownMessages } from "./message-view.server";
import { getWorkspace } from "~/models/settings.server";
import { unreadCounts } from "./unread.server";
import { attachNoticeFilter } from "./notice-filter.server";
import { CLIENT_EVENTS, SERVER_EVENTS } from "~/realtime-events";

/** joinRoom's answer: the messages after `after` only when it was asked with one. */
export type JoinAnswer = { ok: boolean; messages?: { id: number }[]; more?: boolean };

/** The last message id a joining page shows (0: none yet), or undefined when it asked no replay. */
function replayFrom(payload: unknown) {
  const after = (payload as { after?: unknown } | null)?.after;
  return typeof after === "number" && Number.isSafeInteger(after) && after >= 0 ? after : undefined;
}

export function attachConversationSocket(io: Server, socket: Socket) {
  const userId = socket.data.userId as number;
  const me = { username: socket.data.username as string, name: socket.data.name as string };
  attachNoticeFilter(socket);

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

  // joinRoom {ticketId, after?}: only conversations this user may read; answers {ok} to the ack.
  // Access is checked again after joining: a removal that landed in between wins. With `after`
  // (the last message the page shows) the answer also carries the messages after it, as the page
  // shows them: a page back after a cut catches up in its join, not in a request of its own, so a
  // storm of 1,000 reconnects costs no HTTP round at all (what is written after the join comes as
  // events; a message in both is shown once).
  socket.on(
    "joinRoom",
    safely(
      socket,
      inOrder(async (payload: unknown, ack?: (answer: JoinAnswer) => void) => {
        const ticketId = ticketIdOf(payload);
        const user = ticketId ? await findUserById(userId) : undefined;
        let ok = !!user && (await canRead(user, ticketId!));
        if (ok) {
          await socket.join(ticketRoom(ticketId!));
          ok = await canRead(user!, ticketId!);
          if (!ok) await socket.leave(ticketRoom(ticketId!));
        }
        if (typeof ack !== "function") return;
        const after = replayFrom(payload);
        if (!ok || after === undefined) return ack({ ok });
        const { messages, more } = await messagesAfter(await conversationById(user!, ticketId!), after);
        ack({ ok, messages: shownMessages(messages, (await getWorkspace()).timeZone), more });
      }),
    ),
  );

  socket.on(
    "leaveRoom",
    safely(
      socket,
      inOrder(async (payload: unknown) => {
        const ticketId = ticketIdOf(payload);
        if (ticketId) await socket.leave(ticketRoom(ticketId));
      }),
    ),
  );

  // refresh*UnreadCount: the counts of this user, answered as unreadCount2 {ticket, livechat, chat}
  for (const event of [CLIENT_EVENTS.refreshTicketUnreadCount, CLIENT_EVENTS.refreshLiveChatUnreadCount, CLIENT_EVENTS.refreshChatUnreadCount]) {
    socket.on(
      event,
      safely(socket, async () => void socket.emit(SERVER_EVENTS.unreadCount2, await unreadCounts(userId))),
    );
  }

  // readMessage / readMessage2 {ticketId}: the user looked at the conversation; every tab of
  // theirs gets the new unread counts
  for (const event of [CLIENT_EVENTS.readMessage, CLIENT_EVENTS.readMessage2]) {
    socket.on(
      event,
      safely(socket, async (payload: unknown) => {
        const ticketId = ticketIdOf(payload);
        const user = ticketId ? await findUserById(userId) : undefined;
        if (!user || !(await canRead(user, ticketId!))) return;
        if (await markConversationRead(user, await conversationById(user, ticketId!)))
          io.to(`user:${userId}`).emit(SERVER_EVENTS.unreadCount2, await unreadCounts(userId));
      }),
    );
  }

  // typing goes only to rooms the socket has joined (and so was allowed into)
  for (const [incoming, outgoing] of [
    [CLIENT_EVENTS.sendTyping, SERVER_EVENTS.setTyping],
    [CLIENT_EVENTS.removeTyping, SERVER_EVENTS.removeTyping],
  ] as const) {
    socket.on(incoming, (payload: unknown) => {
      const ticketId = ticketIdOf(payload);
      if (!ticketId || !socket.rooms.has(ticketRoom(ticketId))) return;
      socket.to(ticketRoom(ticketId)).emit(outgoing, { ticketId, ...me });
      // a live chat's visitor sees the agent typing too (no-op for other conversations)
      io.of(VISITOR_NAMESPACE).to(visitorRoom(ticketId)).emit(outgoing, { name: me.name });
    });
  }
}
