// Notifications (spec 'Notification'): something a user should hear about, kept until removed.
// One model for every kind (assignment, mention, SLA warning and breach, a new ticket that passes
// the user's filters, a live chat waiting, a missed call, announcements, trade alerts), in three
// categories (sla, system, trade: the panel's tabs). Written inside the change that causes them;
// the user's pages hear newNotification with its category, and a browser push job is queued per
// push subscription in the same transaction (app/conversation/push.server.ts).
import { and, count, desc, eq, inArray, lt, lte, ne, notInArray, sql } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { publish } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { enqueue, wakeJobs } from "~/jobs/queue.server";
import { fcmConfigured } from "./fcm.server";
import { BOT_USERNAMES } from "~/accounts/bots";
import { parseNoticeFilter, passesNoticeFilter, type NoticeFilter } from "./notice-filter.server";

/** Spec section 9: notifications come 10 at a time (Show more at 10 or more). */
export const NOTIFICATION_PAGE_SIZE = 10;

export const CATEGORIES = ["sla", "system", "trade"] as const;
export type NotificationCategory = (typeof CATEGORIES)[number];
export const isCategory = (v: unknown): v is NotificationCategory => CATEGORIES.includes(v as NotificationCategory);

/** Every kind; each has its text under notifications.type.<kind> in the locales. */
export const NOTIFICATION_TYPES = [
  "assigned",
  "added",
  "mention",
  "sla_warning",
  "sla_breach",
  "new_ticket",
  "livechat_waiting",
  "call_missed",
  "announcement",
  "trade_alert",
  "reminder",
  "sla_limit",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The category a kind goes to when the caller does not say. */
export const categoryOf = (type: string): NotificationCategory =>
  type === "sla_warning" || type === "sla_breach" || type === "sla_limit" ? "sla" : type === "trade_alert" ? "trade" : "system";

export interface NewNotification {
  userId: number;
  type: NotificationType;
  channel: string;
  ticketNumber: number | null;
  title: string;
  body: string;
  category?: NotificationCategory;
  /** Spec 'img': a picture to show beside it (a user's photo path), optional. */
  img?: string;
}

export const PUSH_JOB = "notifications.push";
/** A notification to one mobile device through FCM (push.server.ts runFcmPush). */
export const FCM_JOB = "notifications.fcm";

/** Adds a notification within the caller's transaction; call `told` after it commits. Answers its id. */
export async function addNotification(tx: Tx, n: NewNotification, at: number): Promise<number> {
  const { schema } = getDb();
  const category = n.category ?? categoryOf(n.type);
  const [row] = await tx
    .insert(schema.notifications)
    .values({ ...n, img: n.img ?? "", category, createdAt: at })
    .returning({ id: schema.notifications.id });
  // one push job per subscription: each one retried (or dropped) on its own
  const ps = schema.pushSubscriptions;
  // (mobile devices' FCM tokens only when FCM is configured: else nothing could send them)
  const subscriptions = await tx
    .select({ id: ps.id, type: ps.type })
    .from(ps)
    .where(fcmConfigured() ? eq(ps.userId, n.userId) : and(eq(ps.userId, n.userId), eq(ps.type, "webpush")));
  for (const s of subscriptions) {
    const kind = s.type === "webpush" ? PUSH_JOB : FCM_JOB;
    await enqueue(tx, { kind, key: `${kind}:${row.id}:${s.id}`, payload: { notificationId: row.id, subscriptionId: s.id } });
  }
  return row.id;
}

/** Adds the same notification for several users (an announcement, a new ticket), in one transaction. */
export async function addNotifications(tx: Tx, userIds: number[], n: Omit<NewNotification, "userId">, at: number) {
  for (const userId of userIds) await addNotification(tx, { ...n, userId }, at);
}

/** The user's open pages hear of a new notification (after its transaction commits). */
export function told(userId: number, category: string = "system") {
  publish(`user:${userId}`, SERVER_EVENTS.newNotification, { category });
  // its push jobs (queued in the same transaction) go out now
  wakeJobs();
}

export type CategoryCounts = Record<NotificationCategory, number>;

/** Unread notifications per category (the tabs' counts). */
export async function unreadByCategory(userId: number): Promise<CategoryCounts> {
  const { db, schema } = getDb();
  const n = schema.notifications;
  const rows = await db
    .select({ category: n.category, unread: count() })
    .from(n)
    .where(and(eq(n.userId, userId), eq(n.read, false)))
    .groupBy(n.category);
  const out: CategoryCounts = { sla: 0, system: 0, trade: 0 };
  for (const r of rows) if (isCategory(r.category)) out[r.category] = Number(r.unread);
  return out;
}

/** One page of a category, newest first: `limit` rows after `offset`, or older than `lastId`. */
export async function notificationPage(userId: number, category: NotificationCategory, { limit = NOTIFICATION_PAGE_SIZE, offset = 0, lastId = 0 } = {}) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  const rows = await db
    .select()
    .from(n)
    .where(and(eq(n.userId, userId), eq(n.category, category), lastId > 0 ? lt(n.id, lastId) : undefined))
    .orderBy(desc(n.id))
    .limit(limit + 1)
    .offset(lastId > 0 ? 0 : offset);
  return { items: rows.slice(0, limit), more: rows.length > limit };
}

/** The panel's data: one category's latest `limit`, the bell's unseen count and each tab's unread count. */
export async function listNotifications(userId: number, limit = NOTIFICATION_PAGE_SIZE, asked?: NotificationCategory) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  // the panel opens on the tab of the newest unread notification (else system)
  let category = asked;
  if (!category) {
    const [newest] = await db
      .select({ category: n.category })
      .from(n)
      .where(and(eq(n.userId, userId), eq(n.read, false)))
      .orderBy(desc(n.id))
      .limit(1);
    category = isCategory(newest?.category) ? newest.category : "system";
  }
  const [page, [{ unseen }], unread] = await Promise.all([
    notificationPage(userId, category, { limit }),
    db
      .select({ unseen: count() })
      .from(n)
      .where(and(eq(n.userId, userId), eq(n.seen, false))),
    unreadByCategory(userId),
  ]);
  return { ...page, category, unseen: Number(unseen), unread };
}
export type NotificationList = Awaited<ReturnType<typeof listNotifications>>;

/** The bell's count goes (closing the panel: every notification seen). */
export async function markNotificationsSeen(userId: number) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  await db
    .update(n)
    .set({ seen: true })
    .where(and(eq(n.userId, userId), eq(n.seen, false)));
  told(userId);
}

/**
 * A category read up to `lastId` (its newest shown; 0 or absent: all of it), and seen. Answers how
 * many changed. Opening the panel reads its first tab; opening a tab reads that tab.
 */
export async function markCategoryRead(userId: number, category: NotificationCategory, lastId = 0) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  const changed = await db
    .update(n)
    .set({ read: true, seen: true })
    .where(and(eq(n.userId, userId), eq(n.category, category), lastId > 0 ? lte(n.id, lastId) : undefined, eq(n.read, false)))
    .returning({ id: n.id });
  if (changed.length) told(userId, category);
  return changed.length;
}

/** Removes one of the user's notifications; false when it is not theirs (or gone). */
export async function removeNotification(userId: number, id: number) {
  const { db, schema } = getDb();
  const n = schema.notifications;
  const gone = await db
    .delete(n)
    .where(and(eq(n.id, id), eq(n.userId, userId)))
    .returning({ id: n.id, category: n.category });
  if (gone[0]) told(userId, gone[0].category);
  return gone.length > 0;
}

/** Active users (every one but `except`), for notifications that go to all (an announcement). */
export async function activeUserIds(tx: Tx, except?: number) {
  const { schema } = getDb();
  const u = schema.users;
  const rows = await tx
    .select({ id: u.id })
    .from(u)
    .where(and(sql`${u.disabledAt} is null`, notInArray(u.username, [...BOT_USERNAMES]), except ? ne(u.id, except) : undefined));
  return rows.map((r) => r.id);
}

/** Users by username (a mention's @names), active only. */
export async function userIdsByUsername(tx: Tx, usernames: string[]) {
  if (!usernames.length) return [];
  const { schema } = getDb();
  const u = schema.users;
  const rows = await tx
    .select({ id: u.id })
    .from(u)
    .where(and(inArray(u.username, usernames), sql`${u.disabledAt} is null`));
  return rows.map((r) => r.id);
}

// ---------- sources: who hears of what (each within the change's own transaction) ----------

/** The @names in a note or a chat message ("@amy.lee," names amy.lee), each once, lowercased. */
export function mentionedUsernames(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/(?:^|[^\w@.])@([A-Za-z0-9_][A-Za-z0-9_.-]{0,63})/g)) names.add(m[1].replace(/[.-]+$/, "").toLowerCase());
  return [...names].filter(Boolean);
}

/**
 * A mention (an @name in a note or a workspace chat message): each named, active person who may
 * read the conversation, other than the writer, gets a "mention" notification. Answers who, for
 * `told` after the transaction commits.
 */
export async function notifyMentions(
  tx: Tx,
  actor: { id: number; name: string },
  c: { id: number; kind: string; ticketNumber: number; title: string; channel: string; departmentId: number | null },
  text: string,
  at: number,
) {
  const names = mentionedUsernames(text);
  if (!names.length) return [];
  const { schema } = getDb();
  const u = schema.users;
  const people = await tx
    .select({ id: u.id, type: u.type, departmentId: u.departmentId })
    .from(u)
    .where(and(inArray(sql`lower(${u.username})`, names), sql`${u.disabledAt} is null`, ne(u.id, actor.id)));
  const p = schema.participants;
  const inIt = new Set((await tx.select({ userId: p.userId }).from(p).where(eq(p.ticketId, c.id))).map((r) => r.userId));
  // the same rule as access.server's canRead, read in this transaction
  const mayRead = (r: (typeof people)[number]) =>
    r.type === "admin" || inIt.has(r.id) || (c.kind !== "chat" && c.channel !== "chat" && r.departmentId != null && r.departmentId === c.departmentId);
  const told_ = people.filter(mayRead).map((r) => r.id);
  await addNotifications(tx, told_, { type: "mention", channel: c.kind, ticketNumber: c.ticketNumber, title: c.title, body: actor.name }, at);
  return told_;
}

/** The new-ticket filters a person keeps in their preferences (spec section 4: channel, department, campaign, priority). */
export function newTicketFilterOf(prefs: {
  newTicketChannel: string;
  newTicketDepartment: number | null;
  newTicketCampaign: number | null;
  newTicketPriority: string;
}): NoticeFilter {
  return parseNoticeFilter({
    channel: prefs.newTicketChannel || undefined,
    department: prefs.newTicketDepartment ?? undefined,
    campaign: prefs.newTicketCampaign ?? undefined,
    priority: prefs.newTicketPriority || undefined,
  });
}

/**
 * A new ticket from outside (a mail, a message, a public form, a live chat): everyone who asked
 * for new-ticket notifications, may read it (admins, its department's agents) and whose filters
 * it passes hears of it. Answers who.
 */
export async function notifyNewTicket(
  tx: Tx,
  c: {
    id: number;
    kind: string;
    ticketNumber: number;
    title: string;
    channel: string;
    departmentId: number | null;
    severity: string;
    campaignId?: number | null;
  },
  at: number,
) {
  if (c.kind === "chat") return [];
  const { schema } = getDb();
  const u = schema.users;
  const np = schema.notificationPrefs;
  const rows = await tx
    .select({ id: u.id, type: u.type, departmentId: u.departmentId, prefs: np })
    .from(np)
    .innerJoin(u, eq(u.id, np.userId))
    .where(and(eq(np.newTickets, true), sql`${u.disabledAt} is null`));
  const ids = rows
    .filter((r) => r.type === "admin" || (r.departmentId != null && r.departmentId === c.departmentId))
    .filter((r) => passesNoticeFilter(newTicketFilterOf(r.prefs), c))
    .map((r) => r.id);
  await addNotifications(tx, ids, { type: "new_ticket", channel: c.kind, ticketNumber: c.ticketNumber, title: c.title, body: "" }, at);
  return ids;
}

/**
 * A live chat waits in the queue: the active agents of its department (without a department: the
 * admins) hear of it, whatever their new-ticket filters, since someone has to take it. Answers who.
 */
export async function notifyLiveChatWaiting(tx: Tx, c: { kind: string; ticketNumber: number; title: string; departmentId: number | null }, at: number) {
  const { schema } = getDb();
  const u = schema.users;
  const rows = await tx
    .select({ id: u.id })
    .from(u)
    .where(
      and(
        sql`${u.disabledAt} is null`,
        notInArray(u.username, [...BOT_USERNAMES]),
        c.departmentId != null ? eq(u.departmentId, c.departmentId) : eq(u.type, "admin"),
      ),
    );
  const ids = rows.map((r) => r.id);
  // "{by} is waiting in live chat #{number}": the visitor's name
  await addNotifications(tx, ids, { type: "livechat_waiting", channel: c.kind, ticketNumber: c.ticketNumber, title: c.title, body: c.title }, at);
  return ids;
}

/** Tells each of `userIds` (after the transaction commits). */
export function toldAll(userIds: number[], category: NotificationCategory = "system") {
  for (const id of userIds) told(id, category);
}
