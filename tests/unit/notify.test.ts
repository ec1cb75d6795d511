// The notification centre on both dialects: every kind lands in its category with per-category
// unread counts; pages of 10 (offset and lastId); read up to an id and remove, only one's own; the
// JSON twins of spec section 7 (/notification/check, /notification/get, /api/notification/read,
// /api/notification/remove, /api/fcm/token); the page's forms (read, remove, preferences kept on
// a refusal); quiet hours across midnight; and the push job against a stand-in push service that
// checks the VAPID Authorization header: 201 sent, 429/5xx tried again, 410 removes the
// subscription, a category switched off sends nothing, quiet hours make it wait.
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { createECDH, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import {
  addNotification,
  listNotifications,
  markCategoryRead,
  notificationPage,
  removeNotification,
  unreadByCategory,
  PUSH_JOB,
  type NewNotification,
} from "~/conversation/notifications.server";
import { forgetVapidKeys, inQuietHours, runPush, saveSubscription, savePrefs, setPushAgent, vapidKeys } from "~/conversation/push.server";
import { loader as apiLoader, action as apiAction } from "~/conversation/routes/api.notifications";
import { loader as fcmLoader, action as fcmAction } from "~/conversation/routes/api.fcm-token";
import { loader as pageLoader, action as pageAction } from "~/conversation/routes/notifications";
import { startPushStandin } from "../support/push-standin";

async function call<T extends ActionFunctionArgs | LoaderFunctionArgs>(fn: (args: T) => unknown, request: Request) {
  try {
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params: {} } as T)) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const get = (url: string, cookie = "") => new Request(`http://localhost${url}`, { headers: cookie ? { Cookie: cookie } : {} });
const postJson = (url: string, body: unknown) =>
  new Request(`http://localhost${url}`, { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
const postForm = (url: string, cookie: string, fields: Record<string, string>) =>
  new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
  });

/** A browser's subscription keys: a P-256 public key and 16 bytes of auth secret. */
const browserKeys = () => {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") };
};

for (const dialect of DIALECTS) {
  describe(`notification centre (${dialect})`, () => {
    let db: TestDb;
    let agent: UserRow;
    let admin: UserRow;
    let token: string;
    let adminToken: string;
    let cookie: string;
    const add = async (n: Partial<NewNotification> & { type: NewNotification["type"] }, userId = agent.id, at = Date.now()) =>
      db.handle.transaction((tx) => addNotification(tx, { userId, channel: "ticket", ticketNumber: 100001, title: "Printer", body: "Demo Admin", ...n }, at));

    beforeAll(async () => {
      db = await createTestDb(dialect);
      await seedDemo(db.handle, { tickets: 0 });
      forgetVapidKeys();
      agent = (await findUserByUsername("agent"))!;
      admin = (await findUserByUsername("admin"))!;
      token = (await createSession(agent.id)).token;
      adminToken = (await createSession(admin.id)).token;
      cookie = await sessionCookie().serialize(token);
      await db.handle.db.delete(db.handle.schema.notifications);
    });
    afterAll(() => db.cleanup());

    it("puts every kind in its category and counts unread per category", async () => {
      await add({ type: "assigned" });
      await add({ type: "sla_warning", body: "less than 5 minutes to resolve" });
      await add({ type: "sla_breach" });
      await add({ type: "trade_alert", ticketNumber: null, title: "EURUSD" });
      await add({ type: "announcement", ticketNumber: null, title: "Lunch at one" });
      await add({ type: "mention", category: "sla" }); // an explicit category wins
      expect(await unreadByCategory(agent.id)).toEqual({ sla: 3, system: 2, trade: 1 });
      expect(await unreadByCategory(admin.id)).toEqual({ sla: 0, system: 0, trade: 0 });
      const list = await listNotifications(agent.id);
      // the panel opens on the newest unread one's tab
      expect(list.category).toBe("sla");
      expect(list.items.map((i) => i.type)).toEqual(["mention", "sla_breach", "sla_warning"]);
      expect(list.unseen).toBe(6);
    });

    it("pages by 10 with offset or lastId, reads up to an id, removes only one's own", async () => {
      for (let i = 0; i < 12; i++) await add({ type: "new_ticket", ticketNumber: 200000 + i });
      const first = await notificationPage(agent.id, "system");
      expect(first.items).toHaveLength(10);
      expect(first.more).toBe(true);
      const byOffset = await notificationPage(agent.id, "system", { offset: 10 });
      const byLastId = await notificationPage(agent.id, "system", { lastId: first.items[9].id });
      expect(byLastId.items.map((i) => i.id)).toEqual(byOffset.items.map((i) => i.id));
      expect(byOffset.items).toHaveLength(4);
      expect(byOffset.more).toBe(false);
      // read up to the 5th newest: those and older are read, the 4 newer stay unread
      expect(await markCategoryRead(agent.id, "system", first.items[4].id)).toBe(10);
      expect((await unreadByCategory(agent.id)).system).toBe(4);
      expect(await removeNotification(admin.id, first.items[0].id)).toBe(false);
      expect(await removeNotification(agent.id, first.items[0].id)).toBe(true);
      expect(await removeNotification(agent.id, first.items[0].id)).toBe(false);
      expect((await unreadByCategory(agent.id)).system).toBe(3);
    });

    it("answers the JSON twins of spec section 7", async () => {
      const check = await call(apiLoader, get(`/notification/check?_token=${token}`));
      expect(await check.json()).toEqual({ result: "success", unread: 3, unread_2: 3, unread_3: 1 });
      expect((await call(apiLoader, get("/notification/check"))).status).toBe(403);
      const got = await (await call(apiLoader, get(`/notification/get?token=${token}&type=sla&offset=0`))).json();
      expect(got.data).toHaveLength(3);
      expect(got.data[0]).toMatchObject({ type: "mention", category: "sla", seen: 0, ticket_number: 100001, img: "" });
      expect(typeof got.data[0].ts).toBe("number");
      expect((await call(apiLoader, get(`/notification/get?token=${token}&type=bogus`))).status).toBe(400);
      const read = await call(apiAction, postJson("/api/notification/read", { _token: token, category: "sla", lastId: got.data[1].id }));
      expect(await read.json()).toEqual({ result: "success", changed: 2 });
      expect((await call(apiAction, postJson("/api/notification/read", { _token: token, category: "nope" }))).status).toBe(400);
      // someone else's notification is not found; one's own goes
      const theirs = await call(apiAction, postJson("/api/notification/remove", { _token: adminToken, id: got.data[0].id }));
      expect(theirs.status).toBe(404);
      const removed = await call(apiAction, postJson("/api/notification/remove", { _token: token, id: got.data[0].id }));
      expect(await removed.json()).toEqual({ result: "success" });
      expect(await (await call(apiLoader, get(`/notification/check?_token=${token}`))).json()).toMatchObject({ unread: 0 });
    });

    it("stores a Web Push subscription or the spec's token through /api/fcm/token", async () => {
      const key = await (await call(fcmLoader, get(`/api/fcm/token?_token=${token}`))).json();
      expect(key.publicKey).toBe((await vapidKeys()).publicKey);
      // kept: the same keys on the next read (first run made them), the private one sealed
      forgetVapidKeys();
      expect((await vapidKeys()).publicKey).toBe(key.publicKey);
      const [stored] = await db.handle.db.select().from(db.handle.schema.settings).where(eq(db.handle.schema.settings.key, "push_vapid"));
      expect(stored.value).toContain("sealed:v1:");
      const sub = { endpoint: "https://push.example/abc", keys: browserKeys() };
      const saved = await call(fcmAction, postJson("/api/fcm/token", { _token: token, subscription: sub }));
      expect((await saved.json()).result).toBe("success");
      const spec = await call(fcmAction, postJson("/api/fcm/token", { _token: token, token: "device-token-1", type: "agent", domain: "desk.example" }));
      expect((await spec.json()).result).toBe("success");
      const asJson = await call(
        fcmAction,
        postJson("/api/fcm/token", { _token: token, token: JSON.stringify({ ...sub, endpoint: "https://push.example/def" }) }),
      );
      expect((await asJson.json()).result).toBe("success");
      expect((await call(fcmAction, postJson("/api/fcm/token", { _token: token, endpoint: "http://insecure.example/x", keys: browserKeys() }))).status).toBe(
        400,
      );
      expect((await call(fcmAction, postJson("/api/fcm/token", { token: "x" }))).status).not.toBe(200);
      const rows = await db.handle.db.select().from(db.handle.schema.pushSubscriptions);
      expect(rows.map((r) => [r.endpoint, r.type]).sort()).toEqual([
        ["https://push.example/abc", "webpush"],
        ["https://push.example/def", "webpush"],
        ["token:device-token-1", "agent"],
      ]);
      await db.handle.db.delete(db.handle.schema.pushSubscriptions);
    });

    it("reads, removes and keeps preferences through the page's forms", async () => {
      const id = await add({ type: "livechat_waiting", channel: "livechat", body: "Visitor" });
      let res = await call(pageAction, postForm("/notifications", cookie, { intent: "remove", id: String(id), redirectTo: "/notifications?tab=system" }));
      expect(res.headers.get("Location")).toBe("/notifications?tab=system");
      expect((await notificationPage(agent.id, "system")).items.some((i) => i.id === id)).toBe(false);
      await add({ type: "call_missed", body: "+60123" });
      res = await call(pageAction, postForm("/notifications", cookie, { intent: "read", category: "system", lastId: "0", redirectTo: "/notifications" }));
      expect((await unreadByCategory(agent.id)).system).toBe(0);
      res = await call(pageAction, postForm("/notifications", cookie, { intent: "prefs", pushSla: "on", quietStart: "22:00", quietEnd: "" }));
      expect(res.status).toBe(400);
      const refused = await res.json();
      expect(refused.errors.quietEnd).toBe("notifications.prefs.bothTimes");
      expect(refused.values.quietStart).toBe("22:00");
      res = await call(pageAction, postForm("/notifications", cookie, { intent: "prefs", pushSla: "on", quietStart: "22:00", quietEnd: "07:00" }));
      expect(res.status).toBe(302);
      const page = await (await call(pageLoader, get("/notifications?tab=trade", cookie))).json();
      expect(page.list.category).toBe("trade");
      expect(page.prefs).toMatchObject({ pushSla: true, pushSystem: false, pushTrade: false, quietStart: "22:00", quietEnd: "07:00" });
      expect((await call(pageLoader, get("/notifications"))).status).toBe(302);
    });

    it("knows quiet hours, across midnight and in the workspace's time zone", () => {
      const kl = "Asia/Kuala_Lumpur"; // UTC+8
      const at = (utc: string) => Date.parse(utc);
      const night = { quietStart: 22 * 60, quietEnd: 7 * 60 };
      expect(inQuietHours(night, at("2026-03-01T15:00:00Z"), kl)).toBe(true); // 23:00
      expect(inQuietHours(night, at("2026-03-01T22:59:00Z"), kl)).toBe(true); // 06:59
      expect(inQuietHours(night, at("2026-03-01T23:00:00Z"), kl)).toBe(false); // 07:00
      expect(inQuietHours(night, at("2026-03-01T13:59:00Z"), kl)).toBe(false); // 21:59
      const lunch = { quietStart: 12 * 60, quietEnd: 13 * 60 };
      expect(inQuietHours(lunch, at("2026-03-01T04:30:00Z"), kl)).toBe(true);
      expect(inQuietHours(lunch, at("2026-03-01T05:00:00Z"), kl)).toBe(false);
      expect(inQuietHours({ quietStart: null, quietEnd: null }, at("2026-03-01T04:30:00Z"), kl)).toBe(false);
    });

    it("pushes through the stand-in: 201 sent, 429 and 500 again later, 410 removes the subscription, preferences hold it back, quiet hours delay it", async () => {
      const standin = await startPushStandin();
      setPushAgent(standin.agent);
      try {
        await savePrefs(agent.id, {
          pushSla: "on",
          pushSystem: "on",
          pushTrade: "",
          quietStart: "",
          quietEnd: "",
          newTicketChannel: "",
          newTicketPriority: "",
        });
        const subId = await saveSubscription(agent.id, { endpoint: standin.url("a"), keys: browserKeys() });
        const goneId = await saveSubscription(agent.id, { endpoint: standin.url("b"), keys: browserKeys() });
        standin.answer("a", 429, 500);
        standin.answer("b", 410);
        const id = await add({ type: "sla_breach" });
        // one push job per subscription, queued with the notification
        const jobs = await db.handle.db.select().from(db.handle.schema.jobs).where(eq(db.handle.schema.jobs.kind, PUSH_JOB));
        expect(jobs.map((j) => j.key).sort()).toEqual([`${PUSH_JOB}:${id}:${subId}`, `${PUSH_JOB}:${id}:${goneId}`].sort());
        const payload = { notificationId: id, subscriptionId: subId };
        await expect(runPush(payload)).rejects.toThrow(/429/);
        await expect(runPush(payload)).rejects.toThrow(/500/);
        expect(await runPush(payload)).toBe("sent");
        expect(await runPush({ notificationId: id, subscriptionId: goneId })).toBe("gone");
        const left = await db.handle.db.select().from(db.handle.schema.pushSubscriptions);
        expect(left.map((s) => s.id)).toEqual([subId]);
        // every request carried a well-formed VAPID header for the push service's origin
        expect(standin.received).toHaveLength(4);
        const { publicKey } = await vapidKeys();
        for (const r of standin.received) {
          expect(r.valid).toBe(true);
          expect(r.key).toBe(publicKey);
          expect(r.encoding).toBe("aes128gcm");
        }
        // trade is switched off: nothing goes
        const trade = await add({ type: "trade_alert", ticketNumber: null, title: "Gold" });
        expect(await runPush({ notificationId: trade, subscriptionId: subId })).toBe("skipped");
        // quiet hours at 23:00 in the workspace's zone (UTC+8): it waits until 07:00 (the job is kept)
        await savePrefs(agent.id, {
          pushSla: "on",
          pushSystem: "on",
          pushTrade: "",
          quietStart: "22:00",
          quietEnd: "07:00",
          newTicketChannel: "",
          newTicketPriority: "",
        });
        const quiet = await add({ type: "sla_warning" });
        await expect(runPush({ notificationId: quiet, subscriptionId: subId }, Date.parse("2026-03-01T15:00:00Z"))).rejects.toMatchObject({
          jobOutcome: "wait",
          delayMs: 8 * 60 * 60_000,
        });
        expect(await runPush({ notificationId: quiet, subscriptionId: subId }, Date.parse("2026-03-01T03:00:00Z"))).toBe("sent");
        // read before the job ran: nothing goes
        await markCategoryRead(agent.id, "sla");
        expect(await runPush({ notificationId: quiet, subscriptionId: subId }, Date.parse("2026-03-01T03:00:00Z"))).toBe("skipped");
        expect(standin.received).toHaveLength(5);
      } finally {
        setPushAgent(undefined);
        await standin.close();
      }
    });
  });
}
