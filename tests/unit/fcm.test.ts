// Mobile push through Firebase Cloud Messaging (HTTP v1), on both dialects, against a stand-in
// that speaks the FCM API and Google's OAuth token endpoint (tests/support/fcm-standin.ts; it
// verifies the RS256 JWT grant against the test service account's key): a notification queues one
// job per mobile device and sends FCM's message shape; the access token is kept (a renewal only
// when it nears expiry); a 401 renews it and sends once more; UNREGISTERED and an invalid token
// remove the device; 429 and 503 try again when Retry-After says, through the job queue; without
// FCM_SERVICE_ACCOUNT nothing is queued or sent and an admin sees the notice on /notifications.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { addNotification, FCM_JOB, PUSH_JOB, type NewNotification } from "~/conversation/notifications.server";
import { definePushJob, runFcmPush, saveSubscription, savePrefs } from "~/conversation/push.server";
import { fcmConfigured, forgetFcmState } from "~/conversation/fcm.server";
import { createJobWorker } from "~/jobs/queue.server";
import { loader as pageLoader } from "~/conversation/routes/notifications";
import { startFcmStandin } from "../support/fcm-standin";

const allOn = { pushSla: "on", pushSystem: "on", pushTrade: "on", quietStart: "", quietEnd: "", newTicketChannel: "", newTicketPriority: "" } as const;

async function page(cookie: string) {
  const context = {} as unknown as AppLoadContext;
  const res = (await pageLoader({
    request: new Request("http://localhost/notifications", { headers: { Cookie: cookie } }),
    context,
    params: {},
  } as LoaderFunctionArgs)) as Response;
  return (await res.json()) as { mobilePushMissing: boolean };
}

for (const dialect of DIALECTS) {
  describe(`mobile push through FCM (${dialect})`, () => {
    let db: TestDb;
    let agent: UserRow;
    let adminCookie: string;
    let agentCookie: string;
    let standin: Awaited<ReturnType<typeof startFcmStandin>>;
    const saved = { account: process.env.FCM_SERVICE_ACCOUNT, endpoint: process.env.FCM_ENDPOINT };
    const add = async (n: Partial<NewNotification> = {}) =>
      db.handle.transaction((tx) =>
        addNotification(
          tx,
          { userId: agent.id, type: "sla_breach", channel: "ticket", ticketNumber: 100001, title: "Printer", body: "Demo Admin", ...n },
          Date.now(),
        ),
      );
    const device = (token: string, type = "android") => saveSubscription(agent.id, { token, type });
    const devices = async () => (await db.handle.db.select().from(db.handle.schema.pushSubscriptions)).map((s) => s.endpoint).sort();
    const jobs = async (kind: string) => db.handle.db.select().from(db.handle.schema.jobs).where(eq(db.handle.schema.jobs.kind, kind));

    beforeAll(async () => {
      db = await createTestDb(dialect);
      await seedDemo(db.handle, { tickets: 0 });
      agent = (await findUserByUsername("agent"))!;
      const admin = (await findUserByUsername("admin"))!;
      adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
      agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
      await savePrefs(agent.id, allOn);
      definePushJob();
      standin = await startFcmStandin();
    });
    beforeEach(async () => {
      // configured with the service account's JSON itself (a path works too: below)
      process.env.FCM_SERVICE_ACCOUNT = JSON.stringify(standin.account);
      process.env.FCM_ENDPOINT = standin.base;
      forgetFcmState();
      await db.handle.db.delete(db.handle.schema.pushSubscriptions);
      await db.handle.db.delete(db.handle.schema.jobs);
    });
    afterEach(() => {
      standin.setExpiresIn(3600);
    });
    afterAll(async () => {
      process.env.FCM_SERVICE_ACCOUNT = saved.account;
      process.env.FCM_ENDPOINT = saved.endpoint;
      if (saved.account === undefined) delete process.env.FCM_SERVICE_ACCOUNT;
      if (saved.endpoint === undefined) delete process.env.FCM_ENDPOINT;
      forgetFcmState();
      await standin.close();
      await db.cleanup();
    });

    it("queues one job per notification and device and sends FCM v1's message, authorised by the service account's token", async () => {
      const phone = await device("phone-token-1", "android");
      const tablet = await device("tablet-token-2", "ios");
      const id = await add();
      const queued = await jobs(FCM_JOB);
      expect(queued.map((j) => j.key).sort()).toEqual([`${FCM_JOB}:${id}:${phone}`, `${FCM_JOB}:${id}:${tablet}`].sort());
      // no browser push job for a mobile token
      expect(await jobs(PUSH_JOB)).toEqual([]);

      const grantsBefore = standin.grants.length;
      const sentBefore = standin.sent.length;
      expect(await runFcmPush({ notificationId: id, subscriptionId: phone })).toBe("sent");
      const [sent] = standin.sent.slice(sentBefore);
      expect(sent.status).toBe(200);
      expect(sent.project).toBe("omnidesk-test");
      expect(sent.message).toMatchObject({
        token: "phone-token-1",
        notification: { title: "SLA", body: expect.stringContaining("#100001") },
        data: { url: "/ticket/100001", notificationId: String(id), category: "sla", tag: `notification-${id}`, ticketNumber: "100001" },
        android: { ttl: "86400s", notification: { tag: `notification-${id}` } },
        apns: { headers: { "apns-collapse-id": `notification-${id}` } },
      });
      // FCM refuses data values that are not strings
      for (const value of Object.values(sent.message.data as Record<string, unknown>)) expect(typeof value).toBe("string");
      // the JWT bearer grant as Google wants it: RS256 with the key's id, iss/aud/scope, an hour
      const grant = standin.grants[grantsBefore];
      expect(grant.header).toMatchObject({ alg: "RS256", kid: "test-key-1" });
      expect(grant.claims).toMatchObject({
        iss: standin.account.client_email,
        aud: standin.account.token_uri,
        scope: "https://www.googleapis.com/auth/firebase.messaging",
      });
      expect(Number(grant.claims.exp) - Number(grant.claims.iat)).toBe(3600);
      expect(sent.authorization).toBe(`Bearer ${grant.accessToken}`);
      expect(standin.refusedGrants).toEqual([]);

      // the job is idempotent per notification and device: queueing the same again adds nothing
      await db.handle.transaction(async (tx) => {
        const { enqueue } = await import("~/jobs/queue.server");
        await enqueue(tx, { kind: FCM_JOB, key: `${FCM_JOB}:${id}:${phone}`, payload: { notificationId: id, subscriptionId: phone } });
      });
      expect(await jobs(FCM_JOB)).toHaveLength(2);
    });

    it("keeps the access token until shortly before it expires, and renews it once on a 401", async () => {
      const phone = await device("phone-token-1");
      const grantsBefore = standin.grants.length;
      for (let i = 0; i < 3; i++) expect(await runFcmPush({ notificationId: await add(), subscriptionId: phone })).toBe("sent");
      // three sends, one token
      expect(standin.grants.length - grantsBefore).toBe(1);

      // Google revokes it: the send is answered 401, a new token is fetched and the send tried again
      standin.revokeTokens();
      standin.setExpiresIn(30);
      const sentBefore = standin.sent.length;
      expect(await runFcmPush({ notificationId: await add(), subscriptionId: phone })).toBe("sent");
      expect(standin.sent.slice(sentBefore).map((s) => s.status)).toEqual([401, 200]);
      expect(standin.grants.length - grantsBefore).toBe(2);

      // that token lives 30 s, under the minute's margin: the next send asks for a new one first
      const again = standin.sent.length;
      expect(await runFcmPush({ notificationId: await add(), subscriptionId: phone })).toBe("sent");
      expect(standin.sent.slice(again).map((s) => s.status)).toEqual([200]);
      expect(standin.grants.length - grantsBefore).toBe(3);
    });

    it("removes a device FCM calls UNREGISTERED or an invalid registration token, and keeps the others", async () => {
      const gone = await device("uninstalled");
      const bad = await device("garbled");
      const fine = await device("phone-token-1");
      standin.answer("uninstalled", { error: "UNREGISTERED" });
      standin.answer("garbled", { error: "INVALID_TOKEN" });
      const id = await add();
      expect(await runFcmPush({ notificationId: id, subscriptionId: gone })).toBe("gone");
      expect(await runFcmPush({ notificationId: id, subscriptionId: bad })).toBe("gone");
      expect(await runFcmPush({ notificationId: id, subscriptionId: fine })).toBe("sent");
      expect(await devices()).toEqual(["token:phone-token-1"]);
      // an internal error is not the token's fault: the device stays, the job tries again later
      standin.answer("phone-token-1", { error: "INTERNAL" });
      await expect(runFcmPush({ notificationId: id, subscriptionId: fine })).rejects.toThrow(/500/);
      expect(await devices()).toEqual(["token:phone-token-1"]);
    });

    it("tries again on 429 and 503 when Retry-After says, through the job queue", async () => {
      const phone = await device("phone-token-1");
      const id = await add();
      const payload = { notificationId: id, subscriptionId: phone };
      standin.answer("phone-token-1", { error: "QUOTA_EXCEEDED", retryAfter: "30" });
      await expect(runFcmPush(payload)).rejects.toMatchObject({ jobOutcome: "retry-after", delayMs: 30_000 });
      const at = Date.now();
      standin.answer("phone-token-1", { error: "UNAVAILABLE", retryAfter: new Date(at + 120_000).toUTCString() });
      const error = (await runFcmPush(payload).catch((e: unknown) => e)) as { jobOutcome: string; delayMs: number };
      expect(error.jobOutcome).toBe("retry-after");
      expect(error.delayMs).toBeGreaterThan(100_000);
      expect(error.delayMs).toBeLessThanOrEqual(120_000);
      // 503 without Retry-After: the queue's own backoff
      standin.answer("phone-token-1", { error: "UNAVAILABLE" });
      await expect(runFcmPush(payload)).rejects.not.toMatchObject({ jobOutcome: "retry-after" });

      // the worker runs the queued job: 429 with Retry-After 90 puts it back 90 s later, and then it goes
      let clock = Date.now() + 1000;
      const worker = createJobWorker({ now: () => clock, log: () => undefined });
      standin.answer("phone-token-1", { error: "QUOTA_EXCEEDED", retryAfter: "90" });
      const key = `${FCM_JOB}:${id}:${phone}`;
      const row = async () => (await db.handle.db.select().from(db.handle.schema.jobs).where(eq(db.handle.schema.jobs.key, key)))[0];
      expect(await worker.runOnce()).toBe(0);
      expect(await row()).toMatchObject({ state: "queued", attempts: 1, runAt: clock + 90_000 });
      clock += 89_000;
      const before = standin.sent.length;
      expect(await worker.runOnce()).toBe(0);
      expect(standin.sent.length).toBe(before);
      clock += 1_000;
      expect(await worker.runOnce()).toBe(1);
      expect(await row()).toMatchObject({ state: "done", attempts: 2 });
      expect(standin.sent.at(-1)).toMatchObject({ status: 200, message: { token: "phone-token-1" } });
      await worker.stop();
    });

    it("reads the service account from a file path too", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fcm-account-"));
      const file = path.join(dir, "account.json");
      fs.writeFileSync(file, JSON.stringify(standin.account));
      try {
        process.env.FCM_SERVICE_ACCOUNT = file;
        forgetFcmState();
        expect(fcmConfigured()).toBe(true);
        expect(await runFcmPush({ notificationId: await add(), subscriptionId: await device("phone-token-1") })).toBe("sent");
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("without FCM_SERVICE_ACCOUNT queues and sends nothing, and an admin sees that mobile push is not configured", async () => {
      expect((await page(adminCookie)).mobilePushMissing).toBe(false);
      delete process.env.FCM_SERVICE_ACCOUNT;
      forgetFcmState();
      expect(fcmConfigured()).toBe(false);
      const phone = await device("phone-token-1");
      const id = await add();
      expect(await jobs(FCM_JOB)).toEqual([]);
      const before = standin.sent.length;
      expect(await runFcmPush({ notificationId: id, subscriptionId: phone })).toBe("skipped");
      expect(standin.sent.length).toBe(before);
      // the admin is told; an agent, who cannot change it, is not
      expect((await page(adminCookie)).mobilePushMissing).toBe(true);
      expect((await page(agentCookie)).mobilePushMissing).toBe(false);
      // an unreadable account is the same as none
      process.env.FCM_SERVICE_ACCOUNT = "/nonexistent/account.json";
      forgetFcmState();
      expect(fcmConfigured()).toBe(false);
      // the notice in all five languages
      for (const language of ["en", "ms", "zh", "ko", "ja"]) {
        const texts = JSON.parse(fs.readFileSync(path.join("public/locales", language, "notifications.json"), "utf8"));
        expect(texts.notifications.push.mobileMissing, language).toMatch(/FCM_SERVICE_ACCOUNT/);
      }
    });
  });
}
