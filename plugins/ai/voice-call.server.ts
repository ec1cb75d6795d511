// Voice analysis of a call after hang-up: the same reading as an upload (/api/upload/voice) for the
// CALL ticket. The conversation home tells this plugin (manifest `callRecorded`) once a call's
// recording is stored and transcribed; the hook queues a durable job (CALL_VOICE_JOB) in that
// transaction, and the job reads the customer's channel of the recording (decode.server.ts:
// ffmpeg, that channel alone) for energy and pace per segment (voice.ts), and the customer's side of
// the transcript for emotion, classification and context (the AI service, as a message is read).
// Stored on the ticket's roll-up (ai_ticket_analysis): energy and pace (the median of the segments
// where the customer speaks), and, only where no text message of that side was read, the customer's
// emotion (and the list's tickets.emotion) and context, and the agent's emotion from the agent's side.
// The customer's text-based reading is never replaced, nor is the customer's emotion ever the agent's.
// Idempotent: the job recomputes the same row from the same recording and transcript, and a second
// run finds it stored as it would write it, so writes nothing (updated_at stays) and pushes nothing.
import { and, eq } from "drizzle-orm";
import { getDb, type DbHandle, type Tx } from "@db/client";
import { defineJobKind, enqueue, PermanentFailure, wakeJobs } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { toOpenPages } from "~/conversation/events.server";
import type { CallRecording } from "~/conversation/call-recorded.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { analyseText, type Analysis } from "./analyse";
import { openPagesTarget, pct, THRESHOLD } from "./analysis.server";
import { decodeWithFfmpeg } from "./decode.server";
import { analyse } from "./service.server";
import { aiSettings } from "./settings.server";
import { analyseVoice, VOICE_MAX_BYTES, VoiceError, type Level, type Segment } from "./voice";
import { queueCallScam } from "./call-scam.server";

export const CALL_VOICE_JOB = "ai.callVoice";
/** A call recording read at most (Opus at 96 kbit/s: about 40 minutes, the decoder's own limit). */
const MAX_RECORDING_BYTES = 4 * VOICE_MAX_BYTES;
/** Segments quieter than this (dBFS) are the customer listening, not speaking. */
const SPEAKING_DB = -55;

/** The hook (manifest `callRecorded`): queues the analysis in the transaction that made the recording ready. */
export async function onCallRecorded(tx: Tx | undefined, recording: CallRecording) {
  const said = recording.transcript.length ? "t" : "a";
  await enqueue(tx, {
    kind: CALL_VOICE_JOB,
    key: `${CALL_VOICE_JOB}:${recording.callId}:${recording.recordingKey}:${said}`,
    payload: recording,
    runAt: Date.now(),
  });
  // the call's scam and risk hints, for /call_verification (call-scam.server.ts)
  await queueCallScam(tx, recording);
  if (!tx) wakeJobs();
}

export function defineCallVoiceJob() {
  defineJobKind(CALL_VOICE_JOB, { maxAttempts: 3, run: async (payload) => void (await analyseCall(payload as CallRecording)) });
}

/** The level most segments where someone speaks sit at (the lower middle one), null when nobody speaks. */
export function medianLevel(segments: Segment[], pick: (s: Segment) => Level): Level | null {
  const spoken = segments.filter((s) => s.db > SPEAKING_DB).map(pick);
  if (!spoken.length) return null;
  spoken.sort((a, b) => a - b);
  return spoken[Math.floor((spoken.length - 1) / 2)];
}

async function readRecording(key: string) {
  const stream = await fileStorage().get(key);
  if (!stream) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_RECORDING_BYTES) {
      await reader.cancel();
      throw new PermanentFailure(`the recording is larger than ${MAX_RECORDING_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export interface CallVoiceResult {
  segments: Segment[];
  energy: Level | null;
  pace: Level | null;
  customer: Analysis | null;
  agent: Analysis | null;
  /** False when the call ticket's reading already said all this (a second run): nothing written, nothing pushed. */
  written: boolean;
}

/** The job: see the file's head. Answers what it read, or null when there is nothing to read (AI off, recording gone). */
export async function analyseCall(recording: CallRecording, handle: DbHandle = getDb()): Promise<CallVoiceResult | null> {
  const settings = await aiSettings();
  if (settings.adapter === "off") return null;
  const bytes = await readRecording(recording.recordingKey);
  if (!bytes) return null;
  let segments: Segment[] = [];
  try {
    const { samples, sampleRate } = await decodeWithFfmpeg(bytes, recording.channels.customer);
    segments = analyseVoice(samples, sampleRate);
  } catch (error) {
    // a recording under a second, or one ffmpeg cannot read: no voice levels, the transcript still counts
    if (!(error instanceof VoiceError)) throw error;
  }
  const energy = medianLevel(segments, (s) => s.energy);
  const pace = medianLevel(segments, (s) => s.pace);
  const side = (who: "agent" | "customer") =>
    recording.transcript
      .filter((u) => u.side === who)
      .map((u) => u.text)
      .join(". ")
      .trim();
  const read = async (text: string) => {
    if (!text) return null;
    const answer = await analyse(text, settings);
    return answer.state === "not_configured" ? null : answer.analysis;
  };
  const customerText = side("customer");
  const customer = await read(customerText);
  const agent = await read(side("agent"));
  // emotion_2 of a call: each customer utterance read offline (cheap, nothing leaves the machine)
  const counts: Record<string, number> = {};
  for (const u of recording.transcript.filter((u) => u.side === "customer").slice(0, 500)) {
    const e = analyseText(u.text).emotion;
    if (e) counts[e] = (counts[e] ?? 0) + 1;
  }

  const { schema } = handle;
  const a = schema.aiMessageAnalysis;
  const now = Date.now();
  const named = await handle.transaction(async (tx) => {
    const hasText = async (fromCustomer: boolean) =>
      (
        await tx
          .select({ id: a.messageId })
          .from(a)
          .where(and(eq(a.ticketId, recording.ticketId), eq(a.fromCustomer, fromCustomer)))
          .limit(1)
      ).length > 0;
    const customerTyped = await hasText(true);
    const agentTyped = await hasText(false);
    const row: Partial<typeof schema.aiTicketAnalysis.$inferInsert> = { energy, pace, updatedAt: now };
    const strong = (x: Analysis | null) => (x && x.emotion && pct(x.confidence) >= THRESHOLD ? x : null);
    if (!customerTyped && customer) {
      Object.assign(row, {
        emotionCounts: JSON.stringify(counts),
        customerEmotion: strong(customer)?.emotion ?? "",
        customerConfidence: strong(customer) ? pct(customer.confidence) : 0,
        classification: customer.classification,
        intent: customer.context.intent,
        subject: customer.context.subject.replace(/[^\p{L}\p{N} ,'-]/gu, "").slice(0, 200),
        personality: customer.personality,
        language: customer.language,
        degraded: customer.degraded,
        truncated: customer.truncated,
      });
    }
    if (!agentTyped && strong(agent)) row.agentEmotion = agent!.emotion;
    const t = schema.aiTicketAnalysis;
    // a second run of the same recording reads the same: nothing to write, nobody to tell
    const [stored] = await tx.select().from(t).where(eq(t.ticketId, recording.ticketId));
    const [ticketRow] = await tx.select({ emotion: schema.tickets.emotion }).from(schema.tickets).where(eq(schema.tickets.id, recording.ticketId));
    if (!ticketRow) return "unchanged" as const; // the call's ticket was deleted meanwhile
    const same =
      stored &&
      Object.entries(row).every(([k, v]) => k === "updatedAt" || stored[k as keyof typeof stored] === v) &&
      (row.customerEmotion === undefined || ticketRow.emotion === row.customerEmotion);
    if (same) return "unchanged" as const;
    await tx
      .insert(t)
      .values({ ticketId: recording.ticketId, ...row, updatedAt: now })
      .onConflictDoUpdate({ target: t.ticketId, set: row });
    if (row.customerEmotion !== undefined)
      await tx.update(schema.tickets).set({ emotion: row.customerEmotion }).where(eq(schema.tickets.id, recording.ticketId));
    return row.customerEmotion !== undefined ? { customerEmotion: row.customerEmotion, emotionCounts: counts } : null;
  });
  if (named === "unchanged") return { segments, energy, pace, customer, agent, written: false };
  const ticket = await openPagesTarget(recording.ticketId, handle);
  if (ticket) {
    toOpenPages(ticket, SERVER_EVENTS.newEmotion, {
      callId: recording.callId,
      energy,
      pace,
      ...(named && customer ? { emotion: customer.emotion, confidence: pct(customer.confidence), ...named } : {}),
    });
    if (named && customer)
      toOpenPages(ticket, SERVER_EVENTS.newContext, {
        classification: customer.classification,
        intent: customer.context.intent,
        subject: customer.context.subject,
        personality: customer.personality,
      });
  }
  return { segments, energy, pace, customer, agent, written: true };
}
