// Calls get the upload's voice analysis after hang-up (issue 21 item 6), on both dialects. A real
// stereo call recording is made here with espeak-ng and ffmpeg as the calls plugin stores it (Ogg
// Opus, the agent's leg left, the customer's right): the customer speaks fast and loud, the agent
// slowly and softly. Storing the recording queues its transcription; the transcript stored (a
// stand-in recogniser: what is tested here is what happens after it) tells the conversation home's
// `callRecorded`, and the AI plugin's durable job, queued in that transaction, reads the customer's
// channel for energy and pace and the customer's words for emotion: the call ticket's roll-up says
// loud and fast and angry (not the agent's soft, slow, happy side, nor the two mixed), the /call
// list's emotion, energy and pace filters find it, and the call's Emotion panel shows it. The
// recording announced again queues nothing new, and a second run of the job writes nothing; an
// agent's later text on the ticket keeps the customer's reading; on a call whose customer also
// wrote a text, that text's reading stays the customer's emotion and the voice adds energy and pace;
// with transcription off the voice is read as soon as the recording is stored.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, like, notLike } from "drizzle-orm";
import { createJobWorker } from "~/jobs/queue.server";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { loader as callListRoute } from "@plugins/calls/routes/calls";
import { recordCallEvent } from "@plugins/calls/calls.server";
import { attachRecording } from "@plugins/calls/recording.server";
import { runTranscription, TRANSCRIBE_JOB, type TranscriptionAdapter } from "@plugins/calls/transcription.server";
import { analyseCall, CALL_VOICE_JOB, defineCallVoiceJob } from "@plugins/ai/voice-call.server";
import { storeAnalysis } from "@plugins/ai/analysis.server";
import { analyseText } from "@plugins/ai/analyse";
import { aiPanels } from "@plugins/ai/panel.server";
import { forgetSettings } from "@plugins/ai/settings.server";
import { forgetFfmpeg } from "@plugins/ai/decode.server";
import type { CallRecording } from "~/conversation/call-recorded.server";

const have = (bin: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${bin}`]);
    return true;
  } catch {
    return false;
  }
};
const mediaTools = ["ffmpeg", "espeak-ng"].every(have);
if (!mediaTools && process.env.CI) throw new Error("ffmpeg and espeak-ng are needed (apt-get install ffmpeg espeak-ng)");

const CUSTOMER = "This is unacceptable. I am furious. My order is late again and nobody answers me. I want my money back right now.";
const AGENT = "Thank you for calling. I am happy to help you today.";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-call-voice-"));
process.env.DATA_DIR = path.join(work, "data");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A call recording as recording.server.ts stores it: stereo Ogg Opus, the agent left, the customer right. */
function makeRecording(out: string) {
  if (fs.existsSync(out)) return;
  const cust = path.join(work, "customer.wav");
  const agent = path.join(work, "agent.wav");
  execFileSync("espeak-ng", ["-v", "en-us", "-s", "280", "-a", "200", "-w", cust, CUSTOMER]);
  execFileSync("espeak-ng", ["-v", "en-us", "-s", "100", "-a", "15", "-w", agent, AGENT]);
  const mono = (i: number, name: string) => `[${i}:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=mono,apad=whole_dur=12[${name}]`;
  execFileSync("ffmpeg", [
    ...["-loglevel", "error", "-y", "-i", agent, "-i", cust],
    ...["-filter_complex", `${mono(0, "a")};${mono(1, "b")};[a][b]amerge=inputs=2[o]`],
    ...["-map", "[o]", "-t", "12", "-c:a", "libopus", "-b:a", "96k", "-f", "ogg", out],
  ]);
}

/** A stand-in recogniser: the agent's channel is read first, then the other side's (transcription.server.ts). */
const recogniser = (): TranscriptionAdapter => {
  let n = 0;
  return {
    name: "stand-in",
    async transcribe(wav) {
      expect(fs.statSync(wav).size).toBeGreaterThan(1000);
      return n++ === 0
        ? [{ offsetMs: 0, text: "thank you for calling i am happy to help you today" }]
        : [
            { offsetMs: 0, text: "this is unacceptable i am furious" },
            { offsetMs: 2500, text: "my order is late again and nobody answers me i want my money back right now" },
          ];
    },
  };
};

/** The /call page's loader as the browser asks it (the filter form is a GET form): the ticket numbers it lists. */
async function callList(query: string, cookie: string) {
  type Loader = (args: { request: Request; params: Record<string, string>; context: object }) => Promise<Response>;
  const res = await (callListRoute as unknown as Loader)({
    request: new Request(`http://localhost/call${query}`, { headers: { Cookie: cookie } }),
    params: {},
    context: {},
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { invalid: string[]; calls: { ticketId: number }[] };
  expect(body.invalid).toEqual([]);
  return body.calls.map((c) => c.ticketId);
}

describe.each(DIALECTS)("a call's voice analysed after hang-up (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let adminCookie: string;
  const recording = path.join(work, "call.ogg");

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    forgetSettings();
    forgetFfmpeg();
    if (mediaTools) makeRecording(recording);
  }, 60_000);
  afterAll(async () => t?.cleanup());

  /** An answered call that ended, its recording stored and transcribed; answers the job queued for the voice analysis. */
  async function recordedCall(id: string) {
    const { db, schema } = t.handle;
    const t0 = Date.now() - 20_000;
    await recordCallEvent({ event: "invite", call_id: id, from: "+60123456789", to: "+60198765432" }, t0);
    await recordCallEvent({ event: "answer", call_id: id }, t0 + 2000);
    const call = (await recordCallEvent({ event: "end", call_id: id, code: 200, by: "+60123456789" }, t0 + 14_000))!;
    expect(await attachRecording(call.id, recording, 12_000)).toBe(true);
    const voiceJobs = () =>
      db
        .select()
        .from(schema.jobs)
        .where(like(schema.jobs.key, `${CALL_VOICE_JOB}:${call.id}:%`));
    // not yet: the transcript is still to come
    expect(
      await db
        .select()
        .from(schema.jobs)
        .where(eq(schema.jobs.key, `${TRANSCRIBE_JOB}:${call.id}`)),
    ).toHaveLength(1);
    expect(await voiceJobs()).toHaveLength(0);
    expect(await runTranscription({ callId: call.id }, recogniser())).toBe(3);
    const jobs = await voiceJobs();
    expect(jobs).toHaveLength(1);
    const payload = JSON.parse(jobs[0].payload) as CallRecording;
    expect(payload).toMatchObject({ callId: call.id, ticketId: call.ticketId, channels: { agent: 0, customer: 1 } });
    expect(payload.transcript.map((u) => u.side)).toEqual(["agent", "customer", "customer"]);
    return { call, payload };
  }

  it.skipIf(!mediaTools)(
    "stores the customer's energy, pace and emotion on the call ticket and shows them on its conversation",
    async () => {
      const { db, schema } = t.handle;
      const { call, payload } = await recordedCall(`voice-a-${dialect}@omnidesk`);
      // the durable job, as the worker runs it (the calls plugin's own jobs were run above)
      await db.delete(schema.jobs).where(notLike(schema.jobs.key, `${CALL_VOICE_JOB}:%`));
      defineCallVoiceJob();
      expect(await createJobWorker({ log: () => undefined }).runOnce()).toBe(1);
      const [job] = await db
        .select()
        .from(schema.jobs)
        .where(like(schema.jobs.key, `${CALL_VOICE_JOB}:${call.id}:%`));
      expect(job.state).toBe("done");
      // the customer's side alone: loud and fast (the agent's side is soft; the two mixed read normal)
      const [row] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, call.ticketId));
      expect(row).toMatchObject({ energy: 75, customerEmotion: "anger", agentEmotion: "happy" });
      expect(row.pace).toBeGreaterThanOrEqual(75);
      expect(row.customerConfidence).toBeGreaterThanOrEqual(50);
      expect(JSON.parse(row.emotionCounts)).toMatchObject({ anger: expect.any(Number) });
      const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, call.ticketId));
      expect(ticket.emotion).toBe("anger");

      // the call's conversation: the Emotion panel says it, and where it came from
      const panels = (await aiPanels({ ticket, reader: admin, viewer: admin as never }))!;
      const emotion = panels.find((p) => p.id === "ai-emotion")!;
      const keys = emotion.items.map((i) => i.label);
      expect(keys).toContainEqual({
        key: "plugin_ai.panel.emotion.customer",
        values: { emotion: "t:plugin_ai.emotion.anger", confidence: String(row.customerConfidence) },
      });
      expect(keys).toContainEqual({
        key: "plugin_ai.panel.emotion.voice",
        values: {
          energy: "t:plugin_ai.voiceLevel.energy.l75",
          energyLevel: "75",
          pace: `t:plugin_ai.voiceLevel.pace.l${row.pace}`,
          paceLevel: String(row.pace),
        },
      });
      expect(keys).toContainEqual({ key: "plugin_ai.panel.emotion.fromCall" });

      // the /call list's filters (spec section 3) find the call by its voice and its words, and only there
      const all = await callList("", adminCookie);
      expect(all).toContain(call.ticketId);
      expect(await callList(`?emotion=anger&energy=75&pace=${row.pace}`, adminCookie)).toEqual([call.ticketId]);
      expect(await callList("?energy=75", adminCookie)).toContain(call.ticketId);
      expect(await callList(`?pace=${row.pace}`, adminCookie)).toContain(call.ticketId);
      expect(await callList("?emotion=anger", adminCookie)).toContain(call.ticketId);
      expect(await callList("?energy=25", adminCookie)).not.toContain(call.ticketId);
      expect(await callList("?pace=0", adminCookie)).not.toContain(call.ticketId);
      expect(await callList("?emotion=happy", adminCookie)).not.toContain(call.ticketId);

      // idempotent: the recording announced again queues no second job, and the job run a second time
      // through the worker (as after a lost lease) writes nothing: the row is the same to the millisecond
      expect(await runTranscription({ callId: call.id }, recogniser())).toBe(3);
      const voiceJobs = await db
        .select()
        .from(schema.jobs)
        .where(like(schema.jobs.key, `${CALL_VOICE_JOB}:${call.id}:%`));
      expect(voiceJobs).toHaveLength(1);
      await db.delete(schema.jobs).where(notLike(schema.jobs.key, `${CALL_VOICE_JOB}:%`));
      await db.update(schema.jobs).set({ state: "queued", attempts: 0, runAt: Date.now(), finishedAt: null }).where(eq(schema.jobs.id, job.id));
      await new Promise((r) => setTimeout(r, 5));
      expect(await createJobWorker({ log: () => undefined }).runOnce()).toBe(1);
      const [rerun] = await db.select().from(schema.jobs).where(eq(schema.jobs.id, job.id));
      expect(rerun.state).toBe("done");
      const [again] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, call.ticketId));
      expect(again).toEqual(row);
      const second = await analyseCall(payload);
      expect(second?.segments.length).toBeGreaterThanOrEqual(2);
      expect(second?.written).toBe(false);
      const [third] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, call.ticketId));
      expect(third).toEqual(row);

      // an agent's text on the call ticket later: the customer's reading from the call stays
      const [note] = await db
        .insert(schema.messages)
        .values({ ticketId: call.ticketId, senderUserId: admin.id, type: "text", body: "Refund sent, thank you!", createdAt: Date.now() })
        .returning({ id: schema.messages.id });
      expect(await storeAnalysis({ id: note.id, ticketId: call.ticketId, senderUserId: admin.id }, analyseText("Refund sent, thank you!"))).toBe(true);
      const [after] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, call.ticketId));
      expect(after).toMatchObject({ customerEmotion: "anger", energy: 75, pace: row.pace });
      const [stillTicket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, call.ticketId));
      expect(stillTicket.emotion).toBe("anger");
    },
    120_000,
  );

  it.skipIf(!mediaTools)(
    "keeps the customer's text-based reading and adds the voice's energy and pace",
    async () => {
      const { db, schema } = t.handle;
      const { call, payload } = await recordedCall(`voice-b-${dialect}@omnidesk`);
      // the customer also wrote on the call's ticket: a happy text, read before the voice
      const text = "Thank you so much, I love how quickly you fixed it, wonderful service!";
      const [m] = await db
        .insert(schema.messages)
        .values({ ticketId: call.ticketId, senderUserId: null, type: "text", body: text, createdAt: Date.now() })
        .returning({ id: schema.messages.id });
      const reading = analyseText(text);
      expect(["happy", "love"]).toContain(reading.emotion);
      await storeAnalysis({ id: m.id, ticketId: call.ticketId, senderUserId: null }, reading);
      await analyseCall(payload);
      const [row] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, call.ticketId));
      expect(row).toMatchObject({ customerEmotion: reading.emotion, energy: 75 });
      expect(JSON.parse(row.emotionCounts)).toEqual({ [reading.emotion]: 1 });
      const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, call.ticketId));
      expect(ticket.emotion).toBe(reading.emotion);
    },
    120_000,
  );
  it.skipIf(!mediaTools)(
    "with transcription off, reads the voice as soon as the recording is stored",
    async () => {
      const { db, schema } = t.handle;
      process.env.CALL_TRANSCRIPTION = "off";
      try {
        const id = `voice-c-${dialect}@omnidesk`;
        const t0 = Date.now() - 20_000;
        await recordCallEvent({ event: "invite", call_id: id, from: "+60123456789", to: "+60198765432" }, t0);
        await recordCallEvent({ event: "answer", call_id: id }, t0 + 2000);
        const call = (await recordCallEvent({ event: "end", call_id: id, code: 200, by: "+60123456789" }, t0 + 14_000))!;
        expect(await attachRecording(call.id, recording, 12_000)).toBe(true);
        const jobs = await db
          .select()
          .from(schema.jobs)
          .where(like(schema.jobs.key, `${CALL_VOICE_JOB}:${call.id}:%`));
        expect(jobs).toHaveLength(1);
        const payload = JSON.parse(jobs[0].payload) as CallRecording;
        expect(payload.transcript).toEqual([]);
        await analyseCall(payload);
        const [row] = await db.select().from(schema.aiTicketAnalysis).where(eq(schema.aiTicketAnalysis.ticketId, call.ticketId));
        expect(row).toMatchObject({ energy: 75, customerEmotion: "", agentEmotion: "" });
      } finally {
        delete process.env.CALL_TRANSCRIPTION;
      }
    },
    60_000,
  );
});
