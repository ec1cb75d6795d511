// Audio other than WAV (mp3, ogg, webm, m4a, flac) decoded by ffmpeg from Debian (apt install
// ffmpeg) when it is installed: the upload written to a temp file, ffmpeg spawned with arguments
// (never through a shell) to turn it into 16 kHz mono 16-bit samples on its stdout, with a time
// limit, a duration limit and an output size limit. Without ffmpeg the upload is refused with
// "this format needs ffmpeg" (voice.server.ts).
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { VoiceError } from "./voice";

/** Read at each call, so a test can point it elsewhere. */
const binary = () => process.env.FFMPEG_BIN || "ffmpeg";
/** Decoding longer than this is given up. */
export const DECODE_TIMEOUT_MS = 60_000;
/** The rate the samples are decoded at: enough for energy and syllable pace. */
export const DECODE_RATE = 16_000;
/** At most this much audio is read (a 20 MB mp3 at 128 kbit/s is about 21 minutes). */
export const DECODE_MAX_SECONDS = 40 * 60;
const MAX_OUTPUT = DECODE_MAX_SECONDS * DECODE_RATE * 2 + 1024;

let available: Promise<boolean> | null = null;

/** Whether ffmpeg runs here (asked once). */
export function ffmpegAvailable(): Promise<boolean> {
  available ??= new Promise((resolve) => execFile(binary(), ["-version"], { timeout: 10_000 }, (error) => resolve(!error)));
  return available;
}

/** Forgets the answer (tests that point FFMPEG_BIN elsewhere). */
export function forgetFfmpeg() {
  available = null;
}

/**
 * The file's samples, mono, in -1..1, at DECODE_RATE; VoiceError("bad_wav") when ffmpeg cannot read
 * it. `channel`: that channel alone (one side of a stereo call recording), else all mixed.
 */
export async function decodeWithFfmpeg(bytes: Uint8Array, channel?: number): Promise<{ sampleRate: number; samples: Float32Array }> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "omnidesk-voice-"));
  const input = path.join(dir, "upload");
  try {
    await fs.promises.writeFile(input, bytes);
    const pcm = await run([
      "-nostdin",
      "-hide_banner",
      "-loglevel",
      "error",
      "-t",
      String(DECODE_MAX_SECONDS),
      "-i",
      input,
      "-vn",
      ...(channel === undefined ? ["-ac", "1"] : ["-af", `pan=mono|c0=c${Math.max(0, Math.floor(channel))}`]),
      "-ar",
      String(DECODE_RATE),
      "-f",
      "s16le",
      "-acodec",
      "pcm_s16le",
      "pipe:1",
    ]);
    const samples = new Float32Array(Math.floor(pcm.length / 2));
    for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2) / 32768;
    return { sampleRate: DECODE_RATE, samples };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

function run(args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary(), args, { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const timer = setTimeout(() => {
      failed = true;
      child.kill("SIGKILL");
    }, DECODE_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) {
        failed = true;
        child.kill("SIGKILL");
      } else chunks.push(chunk);
    });
    child.stderr.resume();
    child.on("error", () => {
      clearTimeout(timer);
      reject(new VoiceError("unsupported"));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (failed || code !== 0) reject(new VoiceError("bad_wav"));
      else resolve(Buffer.concat(chunks));
    });
  });
}
