// Browser push through the standard Web Push protocol (RFC 8030/8291/8292, the `web-push`
// package): VAPID keys made on first use and kept in the settings table (the private key sealed),
// subscriptions stored by /api/fcm/token, one durable job per notification and subscription
// (queued with the notification: notifications.server.ts) that respects the user's per-category
// choices and quiet hours (a push in quiet hours waits for their end), removes a subscription the push service answers 404/410 for, and tries
// again later on 429/5xx. Mobile apps' FCM tokens get the same per-device job, sent by runFcmPush
// through Firebase Cloud Messaging (fcm.server.ts).
import { and, eq } from "drizzle-orm";
import webpush from "web-push";
import type { Agent } from "node:https";
import { z } from "zod";
import { getDb } from "@db/client";
import { seal, unseal } from "~/secrets.server";
import { defineJobKind, PermanentFailure, RetryAfter, WaitAndRetry } from "~/jobs/queue.server";
import { getWorkspace } from "~/models/settings.server";
import { translatorFor } from "~/i18n.server";
import { isLanguage } from "~/i18n";
import { FCM_JOB, PUSH_JOB, isCategory, type NotificationCategory } from "./notifications.server";
import { fcmConfig, FcmError, sendFcmMessage, type FcmMessage } from "./fcm.server";
import { conversationPath } from "./channels";

const VAPID_KEY = "push_vapid";
const SUBJECT = process.env.PUSH_SUBJECT || "mailto:admin@omnidesk.invalid";

let vapidCache: { publicKey: string; privateKey: string } | undefined;

/** The workspace's VAPID key pair: made once (first run), then read; two nodes racing keep the first. */
export async function vapidKeys() {
  if (vapidCache) return vapidCache;
  const { db, schema } = getDb();
  const read = async () => {
    const [row] = await db.select().from(schema.settings).where(eq(schema.settings.key, VAPID_KEY));
    if (!row) return undefined;
    const parsed = JSON.parse(row.value) as { publicKey: string; privateKey: string };
    const privateKey = unseal(parsed.privateKey);
    return privateKey ? { publicKey: parsed.publicKey, privateKey } : undefined;
  };
  let keys = await read();
  if (!keys) {
    const made = webpush.generateVAPIDKeys();
    await db
      .insert(schema.settings)
      .values({ key: VAPID_KEY, value: JSON.stringify({ publicKey: made.publicKey, privateKey: seal(made.privateKey) }) })
      .onConflictDoNothing();
    keys = await read();
  }
  if (!keys) throw new Error("push: the VAPID keys cannot be opened (SESSION_SECRET changed?)");
  vapidCache = keys;
  return keys;
}
/** Tests: forget the cached keys (a new database). */
export const forgetVapidKeys = () => (vapidCache = undefined);

/** POST /api/fcm/token: a Web Push subscription {endpoint, keys: {p256dh, auth}}, or the spec's {token, type, domain}. */
export const subscriptionInput = z.union([
  z.object({
    endpoint: z.string().url().max(2000).startsWith("https://"),
    keys: z.object({ p256dh: z.string().min(1).max(200), auth: z.string().min(1).max(100) }),
    domain: z.string().max(200).optional(),
  }),
  z.object({ token: z.string().min(1).max(4000), type: z.string().max(40).optional(), domain: z.string().max(200).optional() }),
]);
export type SubscriptionInput = z.infer<typeof subscriptionInput>;

/** The spec's token may itself be a subscription's JSON (a browser's PushSubscription.toJSON()). */
export function parseSubscription(body: Record<string, unknown>) {
  let raw: unknown = body;
  if (typeof body.subscription === "string" || typeof body.subscription === "object") raw = body.subscription;
  else if (typeof body.token === "string" && body.token.trim().startsWith("{")) {
    try {
      raw = { ...(JSON.parse(body.token) as object), domain: body.domain };
    } catch {
      raw = body;
    }
  }
  if (typeof raw === "string") {
    try {
      raw = JSON.parse(raw);
    } catch {
      /* the schema refuses it */
    }
  }
  return subscriptionInput.safeParse(raw);
}

/** Stores (or moves to this user) a subscription; answers its id. */
export async function saveSubscription(userId: number, input: SubscriptionInput) {
  const { db, schema } = getDb();
  const ps = schema.pushSubscriptions;
  const row =
    "endpoint" in input
      ? { endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth, type: "webpush", domain: input.domain ?? "" }
      : { endpoint: `token:${input.token}`, p256dh: "", auth: "", type: input.type || "token", domain: input.domain ?? "" };
  const [saved] = await db
    .insert(ps)
    .values({ ...row, userId, createdAt: Date.now() })
    .onConflictDoUpdate({ target: ps.endpoint, set: { ...row, userId } })
    .returning({ id: ps.id });
  return saved.id;
}

export async function removeSubscription(userId: number, endpoint: string) {
  const { db, schema } = getDb();
  const ps = schema.pushSubscriptions;
  await db.delete(ps).where(and(eq(ps.userId, userId), eq(ps.endpoint, endpoint)));
}

export type NotificationPrefs = typeof import("@db/schema/sqlite").notificationPrefs.$inferSelect;

const DEFAULT_PREFS = {
  pushSla: true,
  pushSystem: true,
  pushTrade: true,
  quietStart: null,
  quietEnd: null,
  newTickets: false,
  newTicketChannel: "",
  newTicketDepartment: null,
  newTicketCampaign: null,
  newTicketPriority: "",
};

export async function getPrefs(userId: number): Promise<NotificationPrefs> {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.notificationPrefs).where(eq(schema.notificationPrefs.userId, userId));
  return row ?? { userId, ...DEFAULT_PREFS };
}

const time = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "notifications.prefs.badTime")
  .or(z.literal(""));
/** The preferences form (/notifications): checkboxes are "on" or absent, times HH:MM or empty. */
export const prefsForm = z
  .object({
    pushSla: z.string().optional(),
    pushSystem: z.string().optional(),
    pushTrade: z.string().optional(),
    quietStart: time.default(""),
    quietEnd: time.default(""),
    newTickets: z.string().optional(),
    newTicketChannel: z.string().max(40).default(""),
    newTicketPriority: z.enum(["", "H", "M", "L", "none"]).default(""),
    newTicketDepartment: z
      .string()
      .regex(/^\d{0,9}$/, "notifications.prefs.badChoice")
      .default(""),
    newTicketCampaign: z
      .string()
      .regex(/^\d{0,9}$/, "notifications.prefs.badChoice")
      .default(""),
  })
  .refine((v) => !v.quietStart === !v.quietEnd, { path: ["quietEnd"], message: "notifications.prefs.bothTimes" });

/** The departments and campaigns the new-ticket filters offer. */
export async function newTicketChoices() {
  const { db, schema } = getDb();
  const [departments, campaigns] = await Promise.all([
    db.select({ id: schema.departments.id, name: schema.departments.name }).from(schema.departments).orderBy(schema.departments.name),
    db.select({ id: schema.campaigns.id, name: schema.campaigns.name }).from(schema.campaigns).orderBy(schema.campaigns.name).limit(200),
  ]);
  return { departments, campaigns };
}

const minutes = (hhmm: string) => (hhmm ? Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)) : null);
export const hhmm = (m: number | null) => (m === null ? "" : `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`);

export async function savePrefs(userId: number, v: z.input<typeof prefsForm>) {
  const { db, schema } = getDb();
  const row = {
    pushSla: !!v.pushSla,
    pushSystem: !!v.pushSystem,
    pushTrade: !!v.pushTrade,
    quietStart: minutes(v.quietStart ?? ""),
    quietEnd: minutes(v.quietEnd ?? ""),
    newTickets: !!v.newTickets,
    newTicketChannel: v.newTicketChannel ?? "",
    newTicketPriority: v.newTicketPriority ?? "",
    newTicketDepartment: Number(v.newTicketDepartment) || null,
    newTicketCampaign: Number(v.newTicketCampaign) || null,
  };
  await db
    .insert(schema.notificationPrefs)
    .values({ userId, ...row })
    .onConflictDoUpdate({ target: schema.notificationPrefs.userId, set: row });
}

/** The minute of the day at `at` in `timeZone`. */
export function minuteOfDay(at: number, timeZone: string) {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get("hour") * 60 + get("minute");
}

/** Inside the quiet hours [start, end) (they may cross midnight: 22:00 to 07:00). */
export function inQuietHours(prefs: Pick<NotificationPrefs, "quietStart" | "quietEnd">, at: number, timeZone: string) {
  const { quietStart: start, quietEnd: end } = prefs;
  if (start === null || end === null || start === end) return false;
  const m = minuteOfDay(at, timeZone);
  return start < end ? m >= start && m < end : m >= start || m < end;
}

/**
 * When the quiet hours that `at` falls in end (ms, the first minute whose local time is past
 * them), or null outside them. Local wall-clock minutes of the time zone, so a DST change inside
 * the quiet hours is followed (the end comes an hour earlier or later in UTC).
 */
export function quietEndsAt(prefs: Pick<NotificationPrefs, "quietStart" | "quietEnd">, at: number, timeZone: string): number | null {
  if (!inQuietHours(prefs, at, timeZone)) return null;
  const end = prefs.quietEnd as number;
  let low = at - (at % 60_000);
  // a first guess that is past the end: the minutes to it, an hour more for a clock that fell back
  let high = low + (((end - minuteOfDay(low, timeZone) + 1440) % 1440) + 60) * 60_000;
  while (inQuietHours(prefs, high, timeZone)) high += 60 * 60_000;
  // the quiet stretch is one run of minutes: the first minute out of it, by halving
  while (high - low > 60_000) {
    const mid = low + Math.floor((high - low) / 120_000) * 60_000;
    if (inQuietHours(prefs, mid, timeZone)) low = mid;
    else high = mid;
  }
  return high;
}

export const pushAllowed = (prefs: NotificationPrefs, category: NotificationCategory) =>
  category === "sla" ? prefs.pushSla : category === "trade" ? prefs.pushTrade : prefs.pushSystem;

/** Tests: an https agent that trusts the stand-in push service's own certificate. */
let agent: Agent | undefined;
export const setPushAgent = (a: Agent | undefined) => (agent = a);

export type PushOutcome = "sent" | "gone" | "skipped";

/** Thrown by a push job inside the user's quiet hours: the queue keeps the job and runs it when they end. */
export class QuietHours extends WaitAndRetry {}

/**
 * What one push job would show (title, text, the page it opens), or "skipped": the notification or
 * the device is gone, it was read, or the user switched its category off. Inside the user's quiet
 * hours it throws QuietHours (the job waits, durably, until they end).
 */
async function pushContent(payload: unknown, now: number) {
  const { notificationId, subscriptionId } = (payload ?? {}) as { notificationId?: number; subscriptionId?: number };
  const { db, schema } = getDb();
  const [n] = await db
    .select()
    .from(schema.notifications)
    .where(eq(schema.notifications.id, Number(notificationId)));
  const [sub] = await db
    .select()
    .from(schema.pushSubscriptions)
    .where(eq(schema.pushSubscriptions.id, Number(subscriptionId)));
  // removed, already read, or the subscription is gone: nothing to say
  if (!n || !sub || n.read || sub.userId !== n.userId) return "skipped" as const;
  const prefs = await getPrefs(n.userId);
  const { timeZone } = await getWorkspace();
  if (!isCategory(n.category) || !pushAllowed(prefs, n.category)) return "skipped" as const;
  // quiet hours delay the push (the job waits, durably, in the queue) rather than drop it; if the
  // user reads it meanwhile, it is not pushed at all (above)
  const until = quietEndsAt(prefs, now, timeZone);
  if (until !== null) throw new QuietHours(`quiet hours until ${new Date(until).toISOString()}`, until - now);
  const [user] = await db.select({ language: schema.users.language }).from(schema.users).where(eq(schema.users.id, n.userId));
  const t = translatorFor(isLanguage(user?.language) ? user.language : "en");
  const text = n.ticketNumber
    ? t(`notifications.type.${n.type}`, { by: n.body, number: n.ticketNumber, title: n.title })
    : n.title || t(`notifications.type.${n.type}`, { by: n.body, number: "", title: n.title });
  return {
    n,
    sub,
    title: t(`notifications.tab.${n.category}`),
    body: text,
    tag: `notification-${n.id}`,
    url: n.ticketNumber ? conversationPath(n.channel, n.ticketNumber) : "/notifications",
  };
}

/** One push job: the notification to one subscription. Throws to be tried again (429, 5xx, network). */
export async function runPush(payload: unknown, now = Date.now()): Promise<PushOutcome> {
  const content = await pushContent(payload, now);
  if (content === "skipped") return "skipped";
  const { sub } = content;
  const { db, schema } = getDb();
  const body = JSON.stringify({ title: content.title, body: content.body, tag: content.tag, url: content.url });
  const keys = await vapidKeys();
  try {
    await webpush.sendNotification({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, body, {
      vapidDetails: { subject: SUBJECT, publicKey: keys.publicKey, privateKey: keys.privateKey },
      TTL: 24 * 60 * 60,
      timeout: 10_000,
      ...(agent ? { agent } : {}),
    });
    return "sent";
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404 || status === 410) {
      await db.delete(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.id, sub.id));
      return "gone";
    }
    // other refusals (400, 401, 403, 413) will not change by trying again
    if (status && status >= 400 && status < 500 && status !== 429) throw new PermanentFailure(`push refused: ${status}`);
    throw new Error(`push failed: ${status ?? (error as Error).message}`);
  }
}

/**
 * One mobile push job: the notification to one device's FCM registration token (a subscription of
 * another type than "webpush", stored as "token:<token>"). The same checks as a browser push; then
 * FCM's answer: UNREGISTERED, or INVALID_ARGUMENT about the token, removes the device; 429 and 503
 * try again when Retry-After says (RetryAfter, a counted attempt), other 5xx and network errors
 * after the queue's backoff; other refusals are final. Without FCM_SERVICE_ACCOUNT it does nothing.
 */
export async function runFcmPush(payload: unknown, now = Date.now()): Promise<PushOutcome> {
  const config = fcmConfig();
  if (!config) return "skipped";
  const content = await pushContent(payload, now);
  if (content === "skipped" || !content.sub.endpoint.startsWith("token:")) return "skipped";
  const { n, sub } = content;
  const message: FcmMessage = {
    token: sub.endpoint.slice("token:".length),
    notification: { title: content.title, body: content.body },
    data: {
      url: content.url,
      tag: content.tag,
      notificationId: String(n.id),
      category: n.category,
      ...(n.ticketNumber ? { ticketNumber: String(n.ticketNumber) } : {}),
    },
    // a newer message of the same notification replaces an older one; a day later it is stale
    android: { ttl: "86400s", notification: { tag: content.tag } },
    apns: { headers: { "apns-collapse-id": content.tag, "apns-expiration": String(Math.floor(now / 1000) + 86400) } },
  };
  try {
    await sendFcmMessage(config, message);
    return "sent";
  } catch (error) {
    if (!(error instanceof FcmError)) throw new Error(`fcm failed: ${(error as Error).message}`);
    if (error.tokenGone) {
      const { db, schema } = getDb();
      await db.delete(schema.pushSubscriptions).where(eq(schema.pushSubscriptions.id, sub.id));
      return "gone";
    }
    if (error.status === 429 || error.status === 503) {
      // FCM asks for Retry-After to be honoured; without one, the queue's backoff
      if (error.retryAfterMs !== null) throw new RetryAfter(error.message, error.retryAfterMs);
      throw new Error(error.message);
    }
    if (error.status >= 500 || error.status === 401) throw new Error(error.message);
    throw new PermanentFailure(error.message);
  }
}

/** Called at server start (app/plugins/start.server.ts), before the job worker runs. */
export function definePushJob() {
  defineJobKind(PUSH_JOB, { maxAttempts: 6, run: async (payload) => void (await runPush(payload)) });
  defineJobKind(FCM_JOB, { maxAttempts: 6, run: async (payload) => void (await runFcmPush(payload)) });
}
