// Voice analysis from the audio itself (spec sections 2 and 9): energy and pace per segment, each
// as the spec's levels 0 (super soft / super slow), 25, 50 (normal), 75, 100 (super loud / super
// fast). Energy is the RMS level (dBFS) of the segment's voiced frames; pace is the rate of
// syllable nuclei: peaks of the 10 ms energy envelope that stand out from the segment's own floor,
// at least 120 ms apart (a common way to count syllables without a transcript). WAV (PCM 8, 16,
// 24 or 32-bit, or 32-bit float, any rate, mono or stereo) is decoded here with no dependency;
// other containers are recognised by their first bytes and refused with their name (no decoder
// for them ships offline). The features are computed directly (RMS and an onset envelope):
// meyda's package pulls a bundler plugin and a CLI into production dependencies for the same sums.

export const VOICE_MAX_BYTES = 20 * 1024 * 1024;
/** Types a browser may give a WAV file. */
export const WAV_TYPES = ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"];
export const LEVELS = [0, 25, 50, 75, 100] as const;
export type Level = (typeof LEVELS)[number];

export class VoiceError extends Error {
  constructor(
    readonly code: "not_audio" | "unsupported" | "bad_wav" | "too_short",
    readonly format = "",
  ) {
    super(code);
  }
}

/** The container of a file by its first bytes: wav, or the name of another audio format, or null (not audio). */
export function sniffAudio(head: Uint8Array): string | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return "wav";
  if (ascii(0, 3) === "ID3" || (head[0] === 0xff && (head[1] & 0xe0) === 0xe0)) return "mp3";
  if (ascii(0, 4) === "OggS") return "ogg";
  if (ascii(0, 4) === "fLaC") return "flac";
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "webm";
  if (ascii(4, 8) === "ftyp") return "m4a";
  return null;
}

/** A WAV file's samples, mixed to mono, in -1..1. */
export function decodeWav(bytes: Uint8Array): { sampleRate: number; samples: Float32Array } {
  if (sniffAudio(bytes) !== "wav") throw new VoiceError("not_audio");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12;
  let format = 0;
  let channels = 0;
  let sampleRate = 0;
  let bits = 0;
  let data: { at: number; size: number } | null = null;
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === "fmt ") {
      format = view.getUint16(body, true);
      channels = view.getUint16(body + 2, true);
      sampleRate = view.getUint32(body + 4, true);
      bits = view.getUint16(body + 14, true);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the sub-format's first two bytes
      if (format === 0xfffe && size >= 26) format = view.getUint16(body + 24, true);
    } else if (id === "data") {
      data = { at: body, size: Math.min(size, bytes.length - body) };
      break;
    }
    offset = body + size + (size % 2);
  }
  if (!data || !channels || !sampleRate || sampleRate > 384_000 || channels > 8) throw new VoiceError("bad_wav");
  const pcm = format === 1 && [8, 16, 24, 32].includes(bits);
  const float = format === 3 && bits === 32;
  if (!pcm && !float) throw new VoiceError("unsupported", `wav-${format}-${bits}`);
  const width = bits / 8;
  const frames = Math.floor(data.size / (width * channels));
  const samples = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) {
      const at = data.at + (i * channels + c) * width;
      let v: number;
      if (float) v = view.getFloat32(at, true);
      else if (bits === 8) v = (view.getUint8(at) - 128) / 128;
      else if (bits === 16) v = view.getInt16(at, true) / 32768;
      else if (bits === 24) v = ((view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getInt8(at + 2) << 16)) as number) / 8388608;
      else v = view.getInt32(at, true) / 2147483648;
      sum += v;
    }
    samples[i] = sum / channels;
  }
  return { sampleRate, samples };
}

export interface Segment {
  /** Seconds from the start. */
  start: number;
  end: number;
  energy: Level;
  pace: Level;
  /** RMS of the voiced frames, dBFS. */
  db: number;
  /** Syllable nuclei a second. */
  rate: number;
}

const FRAME_SECONDS = 0.01;
/** Frames quieter than this (dBFS) are silence, not soft speech. */
const SILENCE_DB = -55;
/** Silence longer than this (frames) is a pause, left out of the speaking time. */
const PAUSE_FRAMES = 70;

const toDb = (rms: number) => (rms > 0 ? 20 * Math.log10(rms) : -120);
const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places;

export function energyLevel(db: number): Level {
  if (db < -40) return 0;
  if (db < -30) return 25;
  if (db < -20) return 50;
  if (db < -12) return 75;
  return 100;
}

export function paceLevel(rate: number): Level {
  if (rate < 2) return 0;
  if (rate < 3) return 25;
  if (rate < 4.5) return 50;
  if (rate < 6) return 75;
  return 100;
}

/** Energy and pace of each segment (`segmentSeconds` long; the last may be shorter, at least 1 s). */
export function analyseVoice(samples: Float32Array, sampleRate: number, segmentSeconds = 5): Segment[] {
  const frame = Math.max(1, Math.round(sampleRate * FRAME_SECONDS));
  const frames: number[] = [];
  for (let at = 0; at + frame <= samples.length; at += frame) {
    let sum = 0;
    for (let i = at; i < at + frame; i++) sum += samples[i] * samples[i];
    frames.push(Math.sqrt(sum / frame));
  }
  if (frames.length < 100) throw new VoiceError("too_short");
  const perSegment = Math.round(segmentSeconds / FRAME_SECONDS);
  const segments: Segment[] = [];
  for (let first = 0; first < frames.length; first += perSegment) {
    const part = frames.slice(first, first + perSegment);
    if (part.length < 100 && segments.length) break;
    const voiced = part.filter((r) => toDb(r) > SILENCE_DB);
    const db = voiced.length ? toDb(Math.sqrt(voiced.reduce((s, r) => s + r * r, 0) / voiced.length)) : -120;
    // the envelope smoothed over 3 frames; a nucleus is a local peak well above the segment's floor
    const env = part.map((_, i) => (part[i - 1] ?? part[i]) / 4 + part[i] / 2 + (part[i + 1] ?? part[i]) / 4);
    const sorted = [...env].sort((a, b) => a - b);
    const floor = sorted[Math.floor(sorted.length * 0.2)];
    const peak = sorted[Math.floor(sorted.length * 0.95)];
    const threshold = floor + (peak - floor) * 0.35;
    let nuclei = 0;
    let last = -Infinity;
    for (let i = 1; i < env.length - 1; i++) {
      if (env[i] < threshold || toDb(env[i]) < SILENCE_DB || env[i] < env[i - 1] || env[i] < env[i + 1]) continue;
      if (i - last < 12) continue;
      nuclei++;
      last = i;
    }
    const seconds = part.length * FRAME_SECONDS;
    // pace counts the time someone speaks: a pause over PAUSE_FRAMES is not slow speech
    let pauses = 0;
    let run = 0;
    for (const r of [...part, 1]) {
      if (toDb(r) <= SILENCE_DB) run++;
      else {
        if (run > PAUSE_FRAMES) pauses += run;
        run = 0;
      }
    }
    const speaking = Math.max(1, part.length - pauses) * FRAME_SECONDS;
    const rate = voiced.length ? nuclei / speaking : 0;
    segments.push({
      start: round(first * FRAME_SECONDS, 2),
      end: round(first * FRAME_SECONDS + seconds, 2),
      energy: energyLevel(db),
      pace: paceLevel(rate),
      db: round(db),
      rate: round(rate),
    });
  }
  return segments;
}
