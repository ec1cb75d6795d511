// Scam and risk hints of a call (issue 21 item 4, the call edition's 'scam call' list): when the
// calls plugin says a call's recording is ready (and transcribed), the `callRecorded` hook queues
// this durable job in the same transaction. The job reads what the outside party said (the
// customer's side of the transcript: an agent warning "never tell anyone your OTP" is no hint) with
// the same analysis as a customer's message (scam.server.ts: pressure and payment phrases, links,
// numbers several unrelated contacts sent), and the caller's own number when several unrelated
// contacts sent it in their messages. The hints are stored in ai_call_hints, replacing the call's
// earlier ones in one transaction, so a second run leaves the same rows; the calls plugin's
// /call_verification lists them through the shared schema.
//
// Calls recorded and transcribed before this check existed were never announced to it, and a check
// that ran while the AI was off read nothing: the backfill (backfillCallScam) queues the check of
// every transcribed call that has no row in ai_call_checks (which scanCall writes with the hints,
// hints or none) and no check of the hook's still waiting, under its own key, so running it again
// queues nothing twice. It runs as a job once at each start (CALL_SCAM_BACKFILL_JOB, queued by
// start.server.ts) and when an admin asks on /call_verification. With the AI off it queues nothing.
import { and, asc, eq, exists, gt, inArray, notExists, sql } from "drizzle-orm";
import { getDb, type DbHandle, type Tx } from "@db/client";
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import type { CallRecording } from "~/conversation/call-recorded.server";
import { contactsSending, scamHintsForMessage, SHARED_CONTACTS } from "./scam.server";
import { aiSettings } from "./settings.server";
import type { Hint } from "./scam";

export const CALL_SCAM_JOB = "ai.callScam";
export const CALL_SCAM_BACKFILL_JOB = "ai.callScamBackfill";
/** Calls looked at a time by the backfill. */
const BACKFILL_BATCH = 200;

/** The job's key for a recording: one check per call, recording and whether it was transcribed. */
const callScamKey = (recording: Pick<CallRecording, "callId" | "recordingKey" | "transcript">) =>
  `${CALL_SCAM_JOB}:${recording.callId}:${recording.recordingKey}:${recording.transcript.length ? "t" : "a"}`;

/** Queued by onCallRecorded (voice-call.server.ts) in the transaction that made the recording ready. */
export async function queueCallScam(tx: Tx | undefined, recording: CallRecording) {
  await enqueue(tx, { kind: CALL_SCAM_JOB, key: callScamKey(recording), payload: recording, runAt: Date.now() });
  if (!tx) wakeJobs();
}

export function defineCallScamJob() {
  defineJobKind(CALL_SCAM_JOB, { maxAttempts: 3, run: async (payload) => void (await scanCall(payload as CallRecording)) });
  defineJobKind(CALL_SCAM_BACKFILL_JOB, { maxAttempts: 3, run: async () => void (await backfillCallScam()) });
}

/**
 * Queues the backfill as a job (`why`: "start" at each start), in its own lane: the web node and
 * its job worker processes starting together (ADR 050) queue one job a minute between them.
 */
export async function queueCallScamBackfill(why: string, now = Date.now()) {
  await enqueue(undefined, {
    kind: CALL_SCAM_BACKFILL_JOB,
    key: `${CALL_SCAM_BACKFILL_JOB}:${why}:${Math.floor(now / 60_000)}`,
    runAt: now,
    lane: CALL_SCAM_BACKFILL_JOB,
  });
  wakeJobs();
}

/**
 * The backfill (see the file's head): queues the check of every transcribed call that was never
 * checked and has no check waiting. Answers how many it queued, or "off" when the AI is off.
 */
export async function backfillCallScam(handle: DbHandle = getDb()): Promise<number | "off"> {
  if ((await aiSettings()).adapter === "off") return "off";
  const { db, schema } = handle;
  const c = schema.calls;
  const tr = schema.callTranscripts;
  const checked = schema.aiCallChecks;
  const j = schema.jobs;
  let queued = 0;
  let after = 0;
  for (;;) {
    const calls = await db
      .select({ id: c.id, ticketId: c.ticketId, recordingKey: c.recordingKey, recordingType: c.recordingType })
      .from(c)
      .where(
        and(
          gt(c.id, after),
          exists(
            db
              .select({ one: sql`1` })
              .from(tr)
              .where(and(eq(tr.callId, c.id), eq(tr.interim, false))),
          ),
          notExists(
            db
              .select({ one: sql`1` })
              .from(checked)
              .where(eq(checked.callId, c.id)),
          ),
          // the hook's check still waiting to run (its key, looked up by the jobs' unique index)
          notExists(
            db
              .select({ one: sql`1` })
              .from(j)
              .where(
                and(
                  eq(j.key, sql`${`${CALL_SCAM_JOB}:`} || cast(${c.id} as text) || ':' || coalesce(${c.recordingKey}, '') || ':t'`),
                  inArray(j.state, ["queued", "running"]),
                ),
              ),
          ),
        ),
      )
      .orderBy(asc(c.id))
      .limit(BACKFILL_BATCH);
    if (!calls.length) break;
    after = calls[calls.length - 1].id;
    const lines = await db
      .select({ callId: tr.callId, source: tr.source, text: tr.transcription, offsetMs: tr.offsetMs })
      .from(tr)
      .where(
        and(
          inArray(
            tr.callId,
            calls.map((x) => x.id),
          ),
          eq(tr.interim, false),
        ),
      )
      .orderBy(asc(tr.callId), asc(tr.offsetMs), asc(tr.id));
    for (const call of calls) {
      const recording: CallRecording = {
        ticketId: call.ticketId,
        callId: call.id,
        recordingKey: call.recordingKey ?? "",
        recordingType: call.recordingType ?? "audio/ogg",
        // the calls plugin's stereo layout (agent left, the other side right); the check reads only the transcript
        channels: { agent: 0, customer: 1 },
        transcript: lines
          .filter((l) => l.callId === call.id)
          .map((l) => ({ side: l.source === "agent" ? ("agent" as const) : ("customer" as const), offsetMs: l.offsetMs, text: l.text })),
      };
      // its own key: the hook's may be used up by a check that ran while the AI was off
      if (await enqueue(undefined, { kind: CALL_SCAM_JOB, key: `${callScamKey(recording)}:backfill`, payload: recording, runAt: Date.now() })) queued++;
    }
    if (calls.length < BACKFILL_BATCH) break;
  }
  if (queued) wakeJobs();
  return queued;
}

/** The job: the call's hints, stored (replacing its earlier ones); null when the AI is off or the call is gone. */
export async function scanCall(recording: CallRecording, handle: DbHandle = getDb()): Promise<Hint[] | null> {
  if ((await aiSettings()).adapter === "off") return null;
  const { db, schema } = handle;
  const [call] = await db.select({ id: schema.calls.id, from: schema.calls.fromNumber }).from(schema.calls).where(eq(schema.calls.id, recording.callId));
  if (!call) return null;
  const text = recording.transcript
    .filter((u) => u.side === "customer")
    .map((u) => u.text)
    .join(". ")
    .trim()
    .slice(0, 100_000);
  const hints = text ? await scamHintsForMessage({ ticketId: recording.ticketId, text }, handle) : [];
  const caller = call.from.replace(/\D/g, "");
  if (caller.length >= 8 && !hints.some((h) => h.kind === "shared_number" && h.evidence === caller)) {
    const contacts = await contactsSending(caller, handle);
    if (contacts >= SHARED_CONTACTS)
      hints.push({
        kind: "shared_number",
        values: { number: caller, contacts: String(contacts), kind: "t:plugin_ai.scam.numberKind.phone" },
        evidence: caller,
        confidence: Math.min(0.95, 0.4 + 0.1 * contacts),
      });
  }
  const now = Date.now();
  const t = schema.aiCallHints;
  const rows = new Map(
    hints.map((h) => [
      `${h.kind}\n${h.evidence}`,
      {
        callId: call.id,
        ticketId: recording.ticketId,
        kind: h.kind,
        evidence: h.evidence.slice(0, 500),
        hintValues: JSON.stringify(h.values),
        confidence: Math.round(h.confidence * 100),
        createdAt: now,
      },
    ]),
  );
  await handle.transaction(async (tx) => {
    await tx.delete(t).where(eq(t.callId, call.id));
    if (rows.size) await tx.insert(t).values([...rows.values()]);
    await tx
      .insert(schema.aiCallChecks)
      .values({ callId: call.id, checkedAt: now })
      .onConflictDoUpdate({ target: schema.aiCallChecks.callId, set: { checkedAt: now } });
  });
  return hints;
}
