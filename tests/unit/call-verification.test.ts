// /call_verification ('scam call', issues 18 and 21), on both dialects: a call's recording and
// transcript announced through the conversation home's `callRecorded` queue the AI plugin's durable
// job, which stores the call's scam and risk hints; the page lists the flagged calls (a payment-
// pressure phrase in what the caller said, a caller number several unrelated contacts sent) with
// each hint's text, not a clean call; its date and hint-kind filters narrow the list; it pages by
// 30; it is refused (403, as /voicemail refuses) to an agent and to client 1, and on the call
// edition only. A second run of the job leaves the same rows. Calls transcribed before the check
// existed are queued for it by the backfill (at each start, and by an admin's "Check earlier
// calls" on the page), once each however often it runs; the menu shows 'scam call' to exactly
// those the page lets in.
import type { AppLoadContext } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, like, notLike } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { setSetting } from "~/models/settings.server";
import { receive } from "~/conversation/receive.server";
import { createJobWorker } from "~/jobs/queue.server";
import type { CallRecording } from "~/conversation/call-recorded.server";
import { recordCallEvent } from "@plugins/calls/calls.server";
import { loader as verificationLoader } from "@plugins/calls/routes/call_verification";
import { onCallRecorded } from "@plugins/ai/voice-call.server";
import { backfillCallScam, CALL_SCAM_BACKFILL_JOB, CALL_SCAM_JOB, defineCallScamJob, queueCallScamBackfill, scanCall } from "@plugins/ai/call-scam.server";
import { action as verificationAction } from "@plugins/calls/routes/call_verification";
import { buildNav } from "~/nav";
import { plugins } from "~/plugins/registry.server";
import { editionFiles } from "../../editions";
import type { Viewer } from "~/permissions";
import { analysePending, defineAnalyseJob } from "@plugins/ai/analysis.server";
import { resetServiceState } from "@plugins/ai/service.server";
import { forgetSettings } from "@plugins/ai/settings.server";
import { CALL_HINT_KINDS } from "@plugins/calls/verification.server";
import fs from "node:fs";

type Fn = (args: { request: Request; context: AppLoadContext; params: Record<string, string> }) => unknown;
async function call(fn: Fn, request: Request) {
  try {
    return (await fn({ request, context: {} as AppLoadContext, params: {} })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

type Page = {
  total: number;
  page: number;
  pages: number;
  invalid: string[];
  calls: { ticketNumber: number; from: string; agent: string; startedAt: number; hints: { kind: string; values: Record<string, string> }[] }[];
};

/** 10:00 in Kuala Lumpur (the workspace's time zone) on a March 2026 day. */
const at = (day: number) => Date.parse(`2026-03-${String(day).padStart(2, "0")}T02:00:00Z`);

describe.each(DIALECTS)("/call_verification (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    const agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    await setSetting("client_id", "2");
    forgetSettings();
    resetServiceState();
    defineAnalyseJob();
    defineCallScamJob();
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const page = async (query = "", cookie = adminCookie, host = "call.example.com") =>
    call(verificationLoader as Fn, new Request(`http://${host}/call_verification${query}`, { headers: { Cookie: cookie, Host: host } }));
  const list = async (query = "") => {
    const res = await page(query);
    expect(res.status).toBe(200);
    return (await res.json()) as Page;
  };

  /** An answered call from `from`, ended, whose caller said `said`: announced as recorded and transcribed. */
  async function recordedCall(from: string, said: string[], day: number): Promise<{ recording: CallRecording; ticketNumber: number }> {
    const sipCallId = `verify-${++seq}-${dialect}@omnidesk`;
    await recordCallEvent({ event: "invite", call_id: sipCallId, from, to: "+60322223333" }, at(day));
    await recordCallEvent({ event: "answer", call_id: sipCallId }, at(day) + 2000);
    const ended = (await recordCallEvent({ event: "end", call_id: sipCallId, code: 200, by: from }, at(day) + 60_000))!;
    const { db, schema } = t.handle;
    await db.update(schema.calls).set({ agentUserId: admin.id }).where(eq(schema.calls.id, ended.id));
    const [ticket] = await db.select({ n: schema.tickets.ticketNumber }).from(schema.tickets).where(eq(schema.tickets.id, ended.ticketId));
    const recording: CallRecording = {
      ticketId: ended.ticketId,
      callId: ended.id,
      recordingKey: `calls/${ended.id}.ogg`,
      recordingType: "audio/ogg",
      channels: { agent: 0, customer: 1 },
      transcript: [
        { side: "agent", offsetMs: 0, text: "thank you for calling never share your otp with anyone" },
        ...said.map((text, i) => ({ side: "customer" as const, offsetMs: 2000 + i * 1000, text })),
      ],
    };
    return { recording, ticketNumber: ticket.n };
  }

  /** The durable job, as the worker runs it (the calls plugin's and the voice analysis's jobs set aside). */
  async function runScanJob(callId: number) {
    const { db, schema } = t.handle;
    await db.delete(schema.jobs).where(notLike(schema.jobs.key, `${CALL_SCAM_JOB}:%`));
    expect(
      await db
        .select()
        .from(schema.jobs)
        .where(like(schema.jobs.key, `${CALL_SCAM_JOB}:${callId}:%`)),
    ).toHaveLength(1);
    expect(await createJobWorker({ log: () => undefined }).runOnce()).toBe(1);
    const [job] = await db
      .select()
      .from(schema.jobs)
      .where(like(schema.jobs.key, `${CALL_SCAM_JOB}:${callId}:%`));
    expect(job.state).toBe("done");
  }

  it("is empty and says so before any call is flagged", async () => {
    const empty = await list();
    expect(empty).toMatchObject({ total: 0, calls: [], pages: 1 });
  });

  it("lists a call whose caller pressed for payment and one from a number unrelated contacts sent, not a clean call", async () => {
    // the payment-pressure call, through the hook and its durable job
    const scam = await recordedCall(
      "+60177778888",
      ["this is the bank your account will be suspended", "to stop it pay the processing fee with a google play card today"],
      10,
    );
    await t.handle.transaction((tx) => onCallRecorded(tx, scam.recording));
    await runScanJob(scam.recording.callId);

    // three unrelated customers wrote about the same number; then that number calls
    for (const [i, who] of ["x.lim@example.com", "y.ong@example.org", "z.raj@example.net"].entries())
      await receive({
        ticket: {
          channel: "EMAIL",
          title: `Strange call ${i}`,
          contactName: "",
          contactEmail: who,
          contactPhone: "",
          customerId: "",
          departmentId: null,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body: "Someone from +60 12-999 8877 called me asking for money, is it you?", type: "text", senderName: "" },
        files: [],
      });
    await analysePending(0);
    const shared = await recordedCall("+60129998877", ["hello i am calling about your parcel"], 12);
    await t.handle.transaction((tx) => onCallRecorded(tx, shared.recording));
    await runScanJob(shared.recording.callId);

    // a clean call: nothing stored, not listed
    const clean = await recordedCall("+60165554444", ["hi i would like to know when my order arrives"], 13);
    await t.handle.transaction((tx) => onCallRecorded(tx, clean.recording));
    await runScanJob(clean.recording.callId);

    const data = await list();
    expect(data.total).toBe(2);
    // newest first
    expect(data.calls.map((c) => c.ticketNumber)).toEqual([shared.ticketNumber, scam.ticketNumber]);
    const [sharedRow, scamRow] = data.calls;
    expect(scamRow).toMatchObject({ from: "+60177778888", agent: admin.name, startedAt: at(10) });
    expect(scamRow.hints.map((h) => h.kind).sort()).toEqual(["payment", "pressure"]);
    expect(scamRow.hints.find((h) => h.kind === "pressure")!.values.phrases).toContain("will be suspended");
    expect(scamRow.hints.find((h) => h.kind === "payment")!.values.phrases).toMatch(/processing fee|google play card/);
    // the agent's own warning ("never share your otp") is not a hint against the caller
    expect(JSON.stringify(scamRow.hints)).not.toContain("otp");
    expect(sharedRow.hints).toEqual([
      expect.objectContaining({ kind: "shared_number", values: expect.objectContaining({ number: "60129998877", contacts: "3" }) }),
    ]);

    // the job run again leaves the same rows
    const { db, schema } = t.handle;
    const before = await db.select().from(schema.aiCallHints).where(eq(schema.aiCallHints.callId, scam.recording.callId));
    await scanCall(scam.recording);
    const after = await db.select().from(schema.aiCallHints).where(eq(schema.aiCallHints.callId, scam.recording.callId));
    expect(after.map(({ createdAt: _c, ...r }) => r)).toEqual(before.map(({ createdAt: _c, ...r }) => r));
  });

  it("filters by date range and hint kind, keeping a bad value's neighbours", async () => {
    const byKind = await list("?kind=payment");
    expect(byKind.calls.map((c) => c.from)).toEqual(["+60177778888"]);
    expect((await list("?kind=shared_number")).calls.map((c) => c.from)).toEqual(["+60129998877"]);
    expect((await list("?from=2026-03-11")).calls.map((c) => c.from)).toEqual(["+60129998877"]);
    expect((await list("?from=2026-03-10&to=2026-03-10")).calls.map((c) => c.from)).toEqual(["+60177778888"]);
    expect((await list("?from=2026-03-11&kind=pressure")).total).toBe(0);
    const bad = await list("?kind=nonsense&from=2026-03-11");
    expect(bad.invalid).toEqual(["kind"]);
    expect(bad.calls.map((c) => c.from)).toEqual(["+60129998877"]);
  });

  it("pages by 30", async () => {
    const { db, schema } = t.handle;
    for (let i = 0; i < 30; i++) {
      const { recording } = await recordedCall(`+6011000${String(i).padStart(4, "0")}`, [], 1);
      await db.insert(schema.aiCallHints).values({
        callId: recording.callId,
        ticketId: recording.ticketId,
        kind: "pressure",
        evidence: "act now",
        hintValues: JSON.stringify({ phrases: "act now" }),
        confidence: 55,
        createdAt: Date.now(),
      });
    }
    const first = await list();
    expect(first).toMatchObject({ total: 32, pages: 2, page: 1 });
    expect(first.calls).toHaveLength(30);
    const second = await list("?page=2");
    expect(second.calls).toHaveLength(2);
    expect(second.calls.every((c) => c.startedAt < at(2))).toBe(true);
  });

  it("is refused to an agent, to client 1 and off the call edition, as the menu rule says", async () => {
    expect((await page("", agentCookie)).status).toBe(403);
    expect((await page("")).status).toBe(200);
    await setSetting("client_id", "1");
    try {
      expect((await page("")).status).toBe(403);
    } finally {
      await setSetting("client_id", "2");
    }
    // the default edition has no call variant: refused (or not there at all)
    expect([403, 404]).toContain((await page("", adminCookie, "localhost")).status);
  });

  it("lets in only an admin of client 2 on the call edition: not an agent holding every permission, not the support or trading hosts, not logged out, not a trial", async () => {
    const { db, schema } = t.handle;
    const agent = (await findUserByUsername("agent"))!;
    const perms = ["view_report", "call_settings", "view_voicemail", "call_verification"];
    await db
      .update(schema.users)
      .set({ permissions: JSON.stringify(perms) })
      .where(eq(schema.users.id, agent.id));
    try {
      expect((await page("", agentCookie)).status).toBe(403);
      // its form too
      expect((await post(new URLSearchParams({ intent: "backfill" }), agentCookie)).status).toBe(403);
    } finally {
      await db.update(schema.users).set({ permissions: "[]" }).where(eq(schema.users.id, agent.id));
    }
    for (const host of ["support.example.com", "trade.example.com"]) expect([403, 404], host).toContain((await page("", adminCookie, host)).status);
    // logged out: to the login form, as every page
    const anonymous = await call(verificationLoader as Fn, new Request("http://call.example.com/call_verification", { headers: { Host: "call.example.com" } }));
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("Location")).toBe("/");
    // a trial workspace: home, as the spec's trial rule says
    await setSetting("account_type", "0");
    try {
      const trial = await page("");
      expect(trial.status).toBe(302);
      expect(trial.headers.get("Location")).toBe("/");
    } finally {
      await setSetting("account_type", "1");
    }
  });

  it("shows the 'scam call' menu item to exactly whom the page lets in", () => {
    const nav = (host: string, viewer: Viewer) => {
      const edition = editionFiles.find((e) => e.hosts.some((h) => new RegExp(`^${h.replace(".", "\\.").replace("*", ".*")}$`).test(host)))!;
      return buildNav({
        plugins: plugins(),
        enabledPlugins: edition.plugins,
        hiddenByDefault: edition.hiddenByDefault,
        visibility: {},
        viewer: { ...viewer, variant: edition.variant },
        trial: false,
        language: "en",
        translate: (k) => (k === "plugin_calls.menu.call_verification" ? "scam call" : k),
      }).find((i) => i.path === "/call_verification");
    };
    const admin2: Viewer = { type: "admin", permissions: [], clientId: 2, plan: 99, variant: "default" };
    expect(nav("call.example.com", admin2)).toMatchObject({ label: "scam call", hidden: false });
    expect(nav("call.example.com", { ...admin2, type: "agent", permissions: ["view_report", "call_settings", "view_voicemail"] })).toBeUndefined();
    expect(nav("call.example.com", { ...admin2, clientId: 1 })).toBeUndefined();
    expect(nav("support.example.com", admin2)).toBeUndefined();
  });

  /** A call recorded and transcribed before the scam check existed: its transcript stored, never announced to the check. */
  async function earlierCall(from: string, said: string[], day: number) {
    const { recording, ticketNumber } = await recordedCall(from, [], day);
    const { db, schema } = t.handle;
    await db.update(schema.calls).set({ recordingKey: recording.recordingKey, recordingType: "audio/ogg" }).where(eq(schema.calls.id, recording.callId));
    await db
      .insert(schema.callTranscripts)
      .values([
        { callId: recording.callId, source: "agent", transcription: "good morning how can i help", offsetMs: 0, createdAt: at(day) },
        ...said.map((text, i) => ({ callId: recording.callId, source: "other", transcription: text, offsetMs: 1000 + i * 1000, createdAt: at(day) })),
      ]);
    return { callId: recording.callId, ticketNumber };
  }
  const scamJobsOf = (callId: number) =>
    t.handle.db
      .select()
      .from(t.handle.schema.jobs)
      .where(and(eq(t.handle.schema.jobs.kind, CALL_SCAM_JOB), like(t.handle.schema.jobs.key, `${CALL_SCAM_JOB}:${callId}:%`)));
  async function runJobs() {
    const worker = createJobWorker({ log: () => undefined });
    while (await worker.runOnce());
  }
  const post = (body: URLSearchParams, cookie = adminCookie) =>
    call(
      verificationAction as Fn,
      new Request("http://call.example.com/call_verification", {
        method: "POST",
        body,
        headers: { Cookie: cookie, Host: "call.example.com", "Content-Type": "application/x-www-form-urlencoded" },
      }),
    );

  it("checks calls transcribed before the check existed, once each, from the start job and from the admin's button", async () => {
    const { db, schema } = t.handle;
    await db.delete(schema.jobs).where(notLike(schema.jobs.key, `${CALL_SCAM_JOB}:%`));
    const old = await earlierCall("+60138887777", ["your account will be blocked today", "pay the release fee with a gift card now"], 5);
    const clean = await earlierCall("+60139990000", ["i want to change my delivery address"], 6);
    // a call with no transcript is left alone (nothing to read)
    const silent = await recordedCall("+60131112222", [], 7);
    expect((await list()).calls.map((c) => c.from)).not.toContain("+60138887777");

    // at start: the backfill job queues each transcribed call's check, with the transcript it stored
    // (the web node and its worker processes starting in the same minute queue one between them)
    const startedAt = Math.floor(Date.now() / 60_000) * 60_000;
    await queueCallScamBackfill("start", startedAt);
    await queueCallScamBackfill("start", startedAt + 1);
    expect(await db.select().from(schema.jobs).where(eq(schema.jobs.kind, CALL_SCAM_BACKFILL_JOB))).toHaveLength(1);
    const worker = createJobWorker({ log: () => undefined });
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);
    const [queued] = await scamJobsOf(old.callId);
    expect(queued).toMatchObject({ state: "queued" });
    expect(JSON.parse(queued.payload).transcript).toEqual([
      { side: "agent", offsetMs: 0, text: "good morning how can i help" },
      { side: "customer", offsetMs: 1000, text: "your account will be blocked today" },
      { side: "customer", offsetMs: 2000, text: "pay the release fee with a gift card now" },
    ]);
    expect(await scamJobsOf(clean.callId)).toHaveLength(1);
    expect(await scamJobsOf(silent.recording.callId)).toHaveLength(0);
    // run again before the checks ran: nothing queued twice
    expect(await backfillCallScam()).toBe(0);
    await runJobs();
    const flagged = (await list()).calls.find((c) => c.from === "+60138887777");
    expect(flagged?.ticketNumber).toBe(old.ticketNumber);
    expect(flagged!.hints.map((h) => h.kind).sort()).toEqual(["payment", "pressure"]);
    expect((await list()).calls.map((c) => c.from)).not.toContain("+60139990000");
    // and after: the flagged one has its hints, the clean one its finished check: nothing again
    expect(await backfillCallScam()).toBe(0);
    expect(await scamJobsOf(old.callId)).toHaveLength(1);
    expect(await scamJobsOf(clean.callId)).toHaveLength(1);

    // the admin's button: a later-found earlier call is queued, the page says how many and then lists it
    const later = await earlierCall("+60135554444", ["urgent transfer the money to this account or you will be arrested"], 8);
    const res = await post(new URLSearchParams({ intent: "backfill" }));
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/call_verification?queued=1");
    expect(await scamJobsOf(later.callId)).toHaveLength(1);
    expect(((await (await page("?queued=1")).json()) as { backfill: unknown }).backfill).toBe(1);
    await runJobs();
    expect((await list()).calls.map((c) => c.from)).toContain("+60135554444");
    // pressed again: nothing left to check
    expect((await post(new URLSearchParams({ intent: "backfill" }))).headers.get("Location")).toBe("/call_verification?queued=0");
    // a post that is not the button
    expect((await post(new URLSearchParams({ intent: "other" }))).status).toBe(400);
  });

  it("queues nothing while the AI is off, says so, and checks afterwards what it could not read then", async () => {
    const waiting = await earlierCall("+60136667777", ["pay now with a gift card"], 9);
    // a call recorded while the AI is off: its check ran (and read nothing), using up the hook's key
    const { recording: unread } = await recordedCall("+60134443333", ["buy gift cards and send me the codes urgently"], 10);
    // the AI's adapter setting (plugins/ai/settings.server.ts), as /settings/ai stores it
    const setAi = async (adapter: string) => {
      const { db, schema } = t.handle;
      await db
        .insert(schema.aiSettings)
        .values({ key: "adapter", value: adapter })
        .onConflictDoUpdate({ target: schema.aiSettings.key, set: { value: adapter } });
      forgetSettings();
    };
    try {
      await setAi("off");
      await t.handle.db.insert(t.handle.schema.callTranscripts).values(
        unread.transcript.map((u) => ({
          callId: unread.callId,
          source: u.side === "agent" ? "agent" : "other",
          transcription: u.text,
          offsetMs: u.offsetMs,
          createdAt: at(10),
        })),
      );
      await t.handle.db.update(t.handle.schema.calls).set({ recordingKey: unread.recordingKey }).where(eq(t.handle.schema.calls.id, unread.callId));
      await onCallRecorded(undefined, unread);
      await runJobs();
      expect(await scamJobsOf(unread.callId)).toMatchObject([{ state: "done" }]);
      expect(await backfillCallScam()).toBe("off");
      expect(await scamJobsOf(waiting.callId)).toHaveLength(0);
      expect((await post(new URLSearchParams({ intent: "backfill" }))).headers.get("Location")).toBe("/call_verification?queued=off");
      expect(((await (await page("?queued=off")).json()) as { backfill: unknown }).backfill).toBe("off");
    } finally {
      await setAi("offline");
    }
    // on again: both are queued, once, and the one recorded while it was off gets its hints
    expect(await backfillCallScam()).toBe(2);
    expect(await backfillCallScam()).toBe(0);
    expect(await scamJobsOf(waiting.callId)).toHaveLength(1);
    expect(await scamJobsOf(unread.callId)).toHaveLength(2);
    await runJobs();
    expect((await list()).calls.map((c) => c.from)).toEqual(expect.arrayContaining(["+60136667777", "+60134443333"]));
    expect(await backfillCallScam()).toBe(0);
  });
});

describe("the page's texts", () => {
  it("has, in every language, each hint kind's label and the AI plugin's text saying why", () => {
    for (const language of ["en", "ms", "zh", "ko", "ja"]) {
      const calls = JSON.parse(fs.readFileSync(`plugins/calls/locales/${language}.json`, "utf8")).plugin_calls;
      const ai = JSON.parse(fs.readFileSync(`plugins/ai/locales/${language}.json`, "utf8")).plugin_ai;
      for (const kind of CALL_HINT_KINDS) {
        expect(calls.verification.kind[kind], `${language} ${kind}`).toBeTruthy();
        expect(ai.scam[kind], `${language} ${kind}`).toContain("{{confidence}}");
      }
      expect(calls.filters.kind).toBeTruthy();
      for (const key of ["intro", "hints", "none", "noneFiltered"]) expect(calls.verification[key], `${language} ${key}`).toBeTruthy();
    }
  });
});
