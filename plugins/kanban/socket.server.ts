// The board's socket side: an admin's socket (not with hide_kanban) joins the board's room, so
// every open board hears receiveKanbanNotification when a card moves (and reloads); an open board
// also asks (watchStatuses) to hear every ticket's status change, made on the ticket page or
// anywhere else, and reloads on it.
import type { Socket } from "socket.io";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { permissionsOf } from "~/accounts/users.server";
import { log } from "~/ops/log.server";
import { KANBAN_ROOM } from "./kanban.server";
import { STATUS_WATCH_ROOM } from "~/conversation/events.server";
import { CLIENT_EVENTS } from "~/realtime-events";

/** The menu rule of plugin.json ({ admin } and not hide_kanban), for a user row. */
export function mayUseBoard(user: { type: string; permissions: string }) {
  return user.type === "admin" && !permissionsOf(user).includes("hide_kanban");
}

export function attachSocket(socket: Socket) {
  const userId = socket.data.userId as number | undefined;
  if (!userId) return;
  const { db, schema } = getDb();
  const allowed = db
    .select({ type: schema.users.type, permissions: schema.users.permissions })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .then(([user]) => !!user && mayUseBoard(user));
  allowed
    .then((ok) => {
      if (ok) return socket.join(KANBAN_ROOM);
    })
    .catch((error) => log.error({ err: error }, "kanban room join failed"));
  socket.on(CLIENT_EVENTS.watchStatuses, (on: unknown) => {
    if (on !== true) return void socket.leave(STATUS_WATCH_ROOM);
    allowed
      .then((ok) => {
        if (ok) return socket.join(STATUS_WATCH_ROOM);
      })
      .catch((error) => log.error({ err: error }, "kanban status watch failed"));
  });
}
