// Call recordings. rtpengine records every call it bridges (Kamailio's `record-call=on`, sip/kamailio.cfg)
// as a pcap file of both legs' RTP under the recording directory. After hang-up a durable job
// (RECORDING_JOB) turns them into one Ogg Opus file, stereo: the agent's leg left, the other side's
// right (so transcription can tell them apart, and a player plays both), stores it through the
// product's storage, names it on the call's row (the CALL ticket's call), queues the transcription
// and removes rtpengine's files. Idempotent: a call that has its recording is left alone.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { defineJobKind, enqueue, wakeJobs, WaitAndRetry } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { AccessDenied, canRead, readableBy, type Reader } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import { g711Stream, legsOf, readMetadata, readPcap, type Leg, type LegRole } from "./media/rtp";
import { oggOpus } from "./media/ogg";
import { queueTranscription } from "./transcription.server";
import { recordingDir } from "./sip/recording-dir";

export const RECORDING_JOB = "calls.recording";
export const RECORDING_TYPE = "audio/ogg";
/** How long after hang-up a call without any recording file is given up on (rtpengine writes it at once). */
const GIVE_UP_MS = 2 * 60_000;

const ffmpeg = () => process.env.FFMPEG_BIN || "ffmpeg";

export { recordingDir };

/** Queues the recording job of an ended call (in the transaction that ended it). */
export async function queueRecording(tx: Tx | undefined, callId: number, at = Date.now()) {
  await enqueue(tx, { kind: RECORDING_JOB, key: `${RECORDING_JOB}:${callId}`, payload: { callId }, runAt: at + 1000 });
}

function run(bin: string, args: string[], timeout = 120_000) {
  return new Promise<string>((resolve, reject) =>
    execFile(bin, args, { timeout, maxBuffer: 4 * 1024 * 1024 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`${path.basename(bin)} failed: ${error.message}\n${String(stderr).slice(-2000)}`)) : resolve(String(stderr)),
    ),
  );
}

/** rtpengine's files of one call: pcap files, their finished metadata, and whether one is still being written. */
export async function recordingFiles(dir: string, sipCallId: string) {
  const ofCall = (name: string, prefix: string, ext: string) => {
    if (!name.startsWith(prefix) || !name.endsWith(ext)) return false;
    const escaped = name.slice(prefix.length, -ext.length).replace(/-[0-9a-f]{16}$/, "");
    try {
      return decodeURIComponent(escaped) === sipCallId;
    } catch {
      return false;
    }
  };
  const list = async (sub: string) => fs.promises.readdir(path.join(dir, sub)).catch(() => [] as string[]);
  const pcaps = (await list("pcaps")).filter((n) => ofCall(n, "", ".pcap")).map((n) => path.join(dir, "pcaps", n));
  const meta = await list("metadata");
  const metadata = meta.filter((n) => ofCall(n, "rtpengine-meta-", ".txt")).map((n) => path.join(dir, "metadata", n));
  const pending = meta.some((n) => ofCall(n, "rtpengine-meta-", ".tmp"));
  return { pcaps, metadata, pending };
}

/** One leg as a file ffmpeg reads, with its input options. */
async function legInput(leg: Leg, file: string): Promise<{ args: string[]; seconds: number }> {
  const { name, rate } = leg.codec;
  if (name === "opus") {
    await fs.promises.writeFile(file, oggOpus(leg.packets));
    const first = leg.packets[0].timestamp;
    const last = leg.packets.at(-1)!;
    return { args: ["-i", file], seconds: (((last.timestamp - first) >>> 0) + 960) / 48000 };
  }
  const samples = g711Stream(leg);
  await fs.promises.writeFile(file, samples);
  if (name === "g722") return { args: ["-f", "g722", "-i", file], seconds: samples.length / 8000 };
  return { args: ["-f", name === "pcmu" ? "mulaw" : "alaw", "-ar", String(rate), "-ac", "1", "-i", file], seconds: samples.length / rate };
}

/**
 * Both legs into one stereo Ogg Opus file: `left` on channel 0, `right` on channel 1, each placed at
 * the time its first packet came, so they stay in step. Answers the duration in ms.
 */
export async function mixLegs(legs: Leg[], left: LegRole, out: string): Promise<number> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "omnidesk-rec-"));
  try {
    const t0 = Math.min(...legs.map((l) => l.startAt));
    const args: string[] = ["-hide_banner", "-loglevel", "error", "-y"];
    const placed: { delayMs: number; seconds: number }[] = [];
    const order = [legs.find((l) => l.role === left), legs.find((l) => l.role !== left)];
    for (const [i, leg] of order.entries()) {
      if (!leg) {
        args.push("-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono");
        placed.push({ delayMs: 0, seconds: 0 });
        continue;
      }
      const input = await legInput(leg, path.join(dir, `leg${i}`));
      args.push(...input.args);
      placed.push({ delayMs: Math.round(leg.startAt - t0), seconds: input.seconds });
    }
    const total = Math.max(0.1, ...placed.map((p) => p.delayMs / 1000 + p.seconds));
    const chain = (i: number) =>
      `[${i}:a]aresample=48000,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=mono,adelay=${placed[i].delayMs},apad=whole_dur=${total.toFixed(3)},atrim=0:${total.toFixed(3)}[c${i}]`;
    args.push(
      "-filter_complex",
      `${chain(0)};${chain(1)};[c0][c1]amerge=inputs=2[out]`,
      "-map",
      "[out]",
      "-t",
      total.toFixed(3),
      "-c:a",
      "libopus",
      "-b:a",
      "96k",
      "-f",
      "ogg",
      out,
    );
    await run(ffmpeg(), args);
    return Math.round(total * 1000);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Which leg is the agent's: the caller's on an outbound call, else the callee's. */
export const agentRole = (direction: string): LegRole => (direction === "outbound" ? "caller" : "callee");

/** Stores a finished recording file as the call's recording (unless it has one) and queues its transcription. */
export async function attachRecording(callId: number, file: string, ms: number) {
  const bytes = await fs.promises.readFile(file);
  const storage = fileStorage();
  const key = await storage.put(bytes);
  const handle = getDb();
  const c = handle.schema.calls;
  const kept = await handle.transaction(async (tx) => {
    const done = await tx
      .update(c)
      .set({ recordingKey: key, recordingType: RECORDING_TYPE, recordingBytes: bytes.length, recordingMs: ms })
      .where(and(eq(c.id, callId), isNull(c.recordingKey)))
      .returning({ id: c.id });
    if (done.length) await queueTranscription(tx, callId);
    return done.length > 0;
  });
  if (!kept) await storage.remove(key);
  else wakeJobs();
  return kept;
}

/** The recording job: see the file's head. */
export async function runRecording(payload: { callId: number }, now = Date.now(), dir = recordingDir()) {
  const { db, schema } = getDb();
  const [call] = await db.select().from(schema.calls).where(eq(schema.calls.id, payload.callId));
  if (!call || call.recordingKey) return "nothing";
  if (call.state !== "ended") throw new WaitAndRetry("the call is still going on", 5_000);
  const files = await recordingFiles(dir, call.sipCallId);
  if (files.pending) {
    // rtpengine finishes the files a moment after the BYE; a crashed rtpengine never does
    if (now - (call.endedAt ?? now) < GIVE_UP_MS) throw new WaitAndRetry("rtpengine is still writing the recording", 2_000);
  } else if (!files.pcaps.length) {
    if (now - (call.endedAt ?? now) < GIVE_UP_MS && files.metadata.length === 0) throw new WaitAndRetry("no recording yet", 3_000);
    return "nothing";
  }
  const sdps = (await Promise.all(files.metadata.map((f) => fs.promises.readFile(f, "utf8")))).flatMap(readMetadata);
  const packets = (await Promise.all(files.pcaps.map((f) => fs.promises.readFile(f)))).flatMap((b) => readPcap(b));
  const legs = legsOf(packets, sdps);
  let result = "silent";
  if (legs.length) {
    const out = path.join(os.tmpdir(), `omnidesk-call-${call.id}-${process.pid}.ogg`);
    try {
      const ms = await mixLegs(legs, agentRole(call.direction), out);
      result = (await attachRecording(call.id, out, ms)) ? "stored" : "nothing";
    } finally {
      await fs.promises.rm(out, { force: true });
    }
  }
  await Promise.all([...files.pcaps, ...files.metadata].map((f) => fs.promises.rm(f, { force: true })));
  return result;
}

export function defineRecordingJob() {
  defineJobKind(RECORDING_JOB, { maxAttempts: 5, run: async (payload) => void (await runRecording(payload as { callId: number })) });
}

/** The recording of the call behind CALL ticket number `ticketNumber`, for a reader who may read that ticket. */
export async function recordingFor(reader: Reader, ticketNumber: number) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ ticketId: schema.calls.ticketId, key: schema.calls.recordingKey, type: schema.calls.recordingType })
    .from(schema.calls)
    .innerJoin(schema.tickets, eq(schema.tickets.id, schema.calls.ticketId))
    .where(and(eq(schema.tickets.ticketNumber, ticketNumber), eq(schema.tickets.kind, "call")));
  if (!row?.key) throw new NotFound();
  if (!(await canRead(reader, row.ticketId))) throw new AccessDenied();
  return { key: row.key, type: row.type ?? RECORDING_TYPE, ticketNumber };
}

/**
 * The byte range a Range header asks of a file of `size` bytes (one range, RFC 9110): null for the
 * whole file (no header, or one this does not serve), "unsatisfiable" for a range past its end.
 */
export function byteRange(header: string | null, size: number): { start: number; end: number } | null | "unsatisfiable" {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start: number;
  let end: number;
  if (m[1] === "") {
    // the last n bytes
    const n = Number(m[2]);
    if (n === 0) return "unsatisfiable";
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    if (start >= size) return "unsatisfiable";
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (end < start) return null;
  }
  return { start, end };
}

/** The recording as an HTTP answer: 200 with all of it, 206 with the asked range, 416 past its end. */
export async function recordingResponse(recording: { key: string; type: string; ticketNumber: number }, rangeHeader: string | null) {
  const storage = fileStorage();
  const size = await storage.size(recording.key);
  if (size == null) throw new NotFound();
  const range = byteRange(rangeHeader, size);
  const headers: Record<string, string> = {
    "Content-Type": recording.type,
    "Accept-Ranges": "bytes",
    "Content-Disposition": `inline; filename="call-${recording.ticketNumber}.ogg"`,
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, max-age=3600",
  };
  if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${size}` } });
  const body = await storage.get(recording.key, range ?? undefined);
  if (!body) throw new NotFound();
  if (!range) return new Response(body, { status: 200, headers: { ...headers, "Content-Length": String(size) } });
  return new Response(body, {
    status: 206,
    headers: { ...headers, "Content-Length": String(range.end - range.start + 1), "Content-Range": `bytes ${range.start}-${range.end}/${size}` },
  });
}

/** Voicemails (calls nobody answered where the caller left a message) the reader may read, newest first, paged by 30. */
export async function listVoicemails(reader: Reader, page = 1, pageSize = 30) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const t = schema.tickets;
  const cond = and(eq(c.voicemail, true), isNotNull(c.recordingKey), readableBy(reader));
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ ticketNumber: t.ticketNumber, from: c.fromNumber, to: c.toNumber, did: c.did, at: c.startedAt, ms: c.recordingMs, type: c.recordingType })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .where(cond)
      .orderBy(desc(c.startedAt), desc(c.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db
      .select({ total: sql<number>`count(*)` })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .where(cond),
  ]);
  return {
    page,
    pages: Math.max(1, Math.ceil(Number(total) / pageSize)),
    total: Number(total),
    voicemails: rows.map((r) => ({ ...r, seconds: Math.round((r.ms ?? 0) / 1000), type: r.type ?? RECORDING_TYPE })),
  };
}
