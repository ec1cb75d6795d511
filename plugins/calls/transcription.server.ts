// Call transcription behind an adapter (CALL_TRANSCRIPTION: "pocketsphinx", the offline default, or
// "off"). After a call's recording is stored, a durable job (TRANSCRIBE_JOB) takes each leg of it
// (the recording is stereo: the agent's leg left, the other side's right, recording.server.ts),
// has the adapter turn it into utterances, and stores them as the spec's call transcript entries
// (source agent or other), replacing what an earlier attempt stored. Then (in that transaction) the
// conversation home's `callRecorded` is told the recording is ready, with its transcript, so other
// plugins analyse it (the AI plugin's voice analysis); with transcription off it is told as soon as
// the recording is stored, and when transcription gives up, without a transcript.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { asc, eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { callRecorded } from "~/conversation/call-recorded.server";

export const TRANSCRIBE_JOB = "calls.transcribe";
export const SOURCES = ["agent", "other"] as const;
export type TranscriptSource = (typeof SOURCES)[number];

export interface Utterance {
  offsetMs: number;
  text: string;
}

/** A speech recogniser: 16 kHz mono 16-bit WAV in, utterances out. */
export interface TranscriptionAdapter {
  name: string;
  transcribe(wavFile: string): Promise<Utterance[]>;
}

const POCKETSPHINX_MODEL = () => process.env.POCKETSPHINX_MODEL || "/usr/share/pocketsphinx/model/en-us";

/** `pocketsphinx_continuous -time yes` output: per utterance "<s> start", "word start end conf" lines, "</s>". */
export function parsePocketsphinx(output: string): Utterance[] {
  const out: Utterance[] = [];
  let words: string[] = [];
  let start = 0;
  for (const line of output.split("\n")) {
    const m = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(line.trim());
    if (!m) continue;
    const word = m[1];
    if (word === "<s>") {
      words = [];
      start = Number(m[2]);
    } else if (word === "</s>") {
      if (words.length) out.push({ offsetMs: Math.round(start * 1000), text: words.join(" ") });
      words = [];
    } else if (!/^[<[]/.test(word)) words.push(word.replace(/\(\d+\)$/, ""));
  }
  if (words.length) out.push({ offsetMs: Math.round(start * 1000), text: words.join(" ") });
  return out;
}

/** The offline default: Debian's pocketsphinx with its US English model (pocketsphinx-en-us). */
export const pocketsphinx: TranscriptionAdapter = {
  name: "pocketsphinx",
  transcribe(wavFile) {
    const model = POCKETSPHINX_MODEL();
    const bin = process.env.POCKETSPHINX_BIN || "pocketsphinx_continuous";
    const args = ["-hmm", path.join(model, "en-us"), "-lm", path.join(model, "en-us.lm.bin"), "-dict", path.join(model, "cmudict-en-us.dict")];
    args.push("-logfn", "/dev/null", "-time", "yes", "-infile", wavFile);
    return new Promise((resolve, reject) =>
      execFile(bin, args, { timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
        error ? reject(new Error(`pocketsphinx failed: ${error.message}`)) : resolve(parsePocketsphinx(String(stdout))),
      ),
    );
  },
};

/** The configured adapter, or null when transcription is off. */
export function transcriptionAdapter(): TranscriptionAdapter | null {
  const name = process.env.CALL_TRANSCRIPTION || "pocketsphinx";
  return name === "off" ? null : pocketsphinx;
}

/** The recording's channels: the agent's leg left, the other side's right (recording.server.ts). */
const CHANNELS = { agent: 0, customer: 1 } as const;

type RecordedCall = { id: number; ticketId: number; recordingKey: string | null; recordingType: string | null };

/** Tells the conversation home's listeners that the call's recording is ready, with what each side said. */
export async function announceRecording(tx: Tx | undefined, call: RecordedCall, entries: { source: TranscriptSource; offsetMs: number; text: string }[]) {
  if (!call.recordingKey) return;
  await callRecorded(tx, {
    ticketId: call.ticketId,
    callId: call.id,
    recordingKey: call.recordingKey,
    recordingType: call.recordingType ?? "audio/ogg",
    channels: { ...CHANNELS },
    transcript: [...entries]
      .sort((a, b) => a.offsetMs - b.offsetMs)
      .map((e) => ({ side: e.source === "agent" ? "agent" : "customer", offsetMs: e.offsetMs, text: e.text })),
  });
}

/** Queues the transcription of a call whose recording was just stored; with transcription off, says the recording is ready. */
export async function queueTranscription(tx: Tx | undefined, callId: number) {
  if (!transcriptionAdapter()) {
    const { db, schema } = getDb();
    const [call] = await (tx ?? db).select().from(schema.calls).where(eq(schema.calls.id, callId));
    if (call) await announceRecording(tx, call, []);
    return;
  }
  await enqueue(tx, { kind: TRANSCRIBE_JOB, key: `${TRANSCRIBE_JOB}:${callId}`, payload: { callId } });
}

function ffmpeg(args: string[]) {
  return new Promise<void>((resolve, reject) =>
    execFile(process.env.FFMPEG_BIN || "ffmpeg", args, { timeout: 5 * 60_000 }, (error, _o, stderr) =>
      error ? reject(new Error(`ffmpeg failed: ${String(stderr).slice(-1000)}`)) : resolve(),
    ),
  );
}

/** One channel of an audio file as 16 kHz mono WAV (the recogniser's input). */
export async function channelAsWav(input: string, channel: number, out: string) {
  await ffmpeg(["-hide_banner", "-loglevel", "error", "-y", "-i", input, "-af", `pan=mono|c0=c${channel}`, "-ar", "16000", "-c:a", "pcm_s16le", out]);
}

/** The transcription job: see the file's head. */
export async function runTranscription(payload: { callId: number }, adapter = transcriptionAdapter()) {
  if (!adapter) return 0;
  const handle = getDb();
  const { schema } = handle;
  const [call] = await handle.db.select().from(schema.calls).where(eq(schema.calls.id, payload.callId));
  if (!call?.recordingKey) return 0;
  const stream = await fileStorage().get(call.recordingKey);
  if (!stream) return 0;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "omnidesk-stt-"));
  try {
    const recording = path.join(dir, "recording.ogg");
    await pipeline(Readable.fromWeb(stream as import("node:stream/web").ReadableStream), fs.createWriteStream(recording));
    const entries: { source: TranscriptSource; offsetMs: number; text: string }[] = [];
    for (const [channel, source] of SOURCES.entries()) {
      const wav = path.join(dir, `${source}.wav`);
      await channelAsWav(recording, channel, wav);
      for (const u of await adapter.transcribe(wav)) entries.push({ source, ...u });
    }
    const now = Date.now();
    const t = schema.callTranscripts;
    await handle.transaction(async (tx) => {
      await tx.delete(t).where(eq(t.callId, call.id));
      if (entries.length)
        await tx.insert(t).values(entries.map((e) => ({ callId: call.id, source: e.source, transcription: e.text, offsetMs: e.offsetMs, createdAt: now })));
      await announceRecording(tx, call, entries);
    });
    wakeJobs();
    return entries.length;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** A call's transcript in the order it was spoken. */
export async function transcriptOf(callId: number) {
  const { db, schema } = getDb();
  const t = schema.callTranscripts;
  return db
    .select({ source: t.source, transcription: t.transcription, translatedTranscription: t.translatedTranscription, interim: t.interim, offsetMs: t.offsetMs })
    .from(t)
    .where(eq(t.callId, callId))
    .orderBy(asc(t.offsetMs), asc(t.id));
}

export function defineTranscriptionJob() {
  defineJobKind(TRANSCRIBE_JOB, {
    maxAttempts: 3,
    run: async (payload) => void (await runTranscription(payload as { callId: number })),
    // no transcript: the recording is still ready for what needs only the audio
    async failed(payload) {
      const { db, schema } = getDb();
      const [call] = await db
        .select()
        .from(schema.calls)
        .where(eq(schema.calls.id, (payload as { callId: number }).callId));
      if (call) await announceRecording(undefined, call, []);
    },
  });
}
