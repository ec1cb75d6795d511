// The board's socket side: an admin's socket (not with hide_kanban) joins the board's room, so
// every open board hears receiveKanbanNotification when a card moves (and reloads).
import type { Socket } from "socket.io";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { permissionsOf } from "~/accounts/users.server";
import { log } from "~/ops/log.server";
import { KANBAN_ROOM } from "./kanban.server";

/** The menu rule of plugin.json ({ admin } and not hide_kanban), for a user row. */
export function mayUseBoard(user: { type: string; permissions: string }) {
  return user.type === "admin" && !permissionsOf(user).includes("hide_kanban");
}

export function attachSocket(socket: Socket) {
  const userId = socket.data.userId as number | undefined;
  if (!userId) return;
  const { db, schema } = getDb();
  db.select({ type: schema.users.type, permissions: schema.users.permissions })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .then(([user]) => {
      if (user && mayUseBoard(user)) return socket.join(KANBAN_ROOM);
    })
    .catch((error) => log.error({ err: error }, "kanban room join failed"));
}
