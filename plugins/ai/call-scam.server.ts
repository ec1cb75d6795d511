// Scam and risk hints of a call (issue 21 item 4, the call edition's 'scam call' list): when the
// calls plugin says a call's recording is ready (and transcribed), the `callRecorded` hook queues
// this durable job in the same transaction. The job reads what the outside party said (the
// customer's side of the transcript: an agent warning "never tell anyone your OTP" is no hint) with
// the same analysis as a customer's message (scam.server.ts: pressure and payment phrases, links,
// numbers several unrelated contacts sent), and the caller's own number when several unrelated
// contacts sent it in their messages. The hints are stored in ai_call_hints, replacing the call's
// earlier ones in one transaction, so a second run leaves the same rows; the calls plugin's
// /call_verification lists them through the shared schema (plugins never import each other).
import { eq } from "drizzle-orm";
import { getDb, type DbHandle, type Tx } from "@db/client";
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import type { CallRecording } from "~/conversation/call-recorded.server";
import { contactsSending, scamHintsForMessage, SHARED_CONTACTS } from "./scam.server";
import { aiSettings } from "./settings.server";
import type { Hint } from "./scam";

export const CALL_SCAM_JOB = "ai.callScam";

/** Queued by onCallRecorded (voice-call.server.ts) in the transaction that made the recording ready. */
export async function queueCallScam(tx: Tx | undefined, recording: CallRecording) {
  const said = recording.transcript.length ? "t" : "a";
  await enqueue(tx, {
    kind: CALL_SCAM_JOB,
    key: `${CALL_SCAM_JOB}:${recording.callId}:${recording.recordingKey}:${said}`,
    payload: recording,
    runAt: Date.now(),
  });
  if (!tx) wakeJobs();
}

export function defineCallScamJob() {
  defineJobKind(CALL_SCAM_JOB, { maxAttempts: 3, run: async (payload) => void (await scanCall(payload as CallRecording)) });
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
  });
  return hints;
}
