// Notifications (spec 'Notification'): something a user should hear about, kept until read.
// Written inside the change that causes them; the user's pages hear newNotification.
import { and, count, desc, eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { publish } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";

/** Spec section 9: notifications come 10 at a time (Show more at 10 or more). */
export const NOTIFICATION_PAGE_SIZE = 10;

export type NotificationType = "assigned" | "added" | "sla";

export interface NewNotification {
  userId: number;
  type: NotificationType;
  channel: string;
  ticketNumber: number;
  title: string;
  body: string;
  category?: "sla" | "system" | "trade";
}

/** Adds a notification within the caller's transaction; call `told` after it commits. */
export async function addNotification(tx: Tx, n: NewNotification, at: number) {
  const { schema } = getDb();
  await tx.insert(schema.notifications).values({ ...n, category: n.category ?? "system", createdAt: at });
}

export function told(userId: number, category = "system") {
  publish(`user:${userId}`, SERVER_EVENTS.newNotification, { category });
}

export async function listNotifications(userId: number, limit = NOTIFICATION_PAGE_SIZE) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  const [rows, [{ unseen }]] = await Promise.all([
    db
      .select()
      .from(n)
      .where(eq(n.userId, userId))
      .orderBy(desc(n.createdAt), desc(n.id))
      .limit(limit + 1),
    db
      .select({ unseen: count() })
      .from(n)
      .where(and(eq(n.userId, userId), eq(n.seen, false))),
  ]);
  return { items: rows.slice(0, limit), more: rows.length > limit, unseen: Number(unseen) };
}
export type NotificationList = Awaited<ReturnType<typeof listNotifications>>;

export async function markNotificationsSeen(userId: number) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  await db
    .update(n)
    .set({ seen: true })
    .where(and(eq(n.userId, userId), eq(n.seen, false)));
  told(userId);
}
