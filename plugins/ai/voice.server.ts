// One upload of audio for voice analysis (POST /api/upload/voice and the /upload page): size and
// type checked before the audio is read (a declared length over the limit before a byte, the
// part's declared type, then the file's first bytes), the analysis of voice.ts, and emotion from
// a transcript when one is given. A refusal is a translation key of plugin_ai.voice.error.* and
// its HTTP status, so the JSON twin answers it in English and the page in the reader's language.
// WAV is decoded here; mp3, ogg, webm, m4a and flac by ffmpeg when installed (decode.server.ts),
// else refused with "this format needs ffmpeg".
import { BodyTooLarge, limitBody } from "~/conversation/upload.server";
import { analyseText } from "./analyse";
import { decodeWithFfmpeg, ffmpegAvailable } from "./decode.server";
import { analyseVoice, decodeWav, sniffAudio, VOICE_MAX_BYTES, VoiceError, WAV_TYPES, type Segment } from "./voice";

/** Types a browser gives the formats ffmpeg decodes (a recording from a browser is often video/webm). */
const OTHER_AUDIO_TYPES = ["video/webm", "video/ogg", "video/mp4", "application/ogg"];
const isAudioType = (type: string) =>
  WAV_TYPES.includes(type) || type.startsWith("audio/") || OTHER_AUDIO_TYPES.includes(type) || type === "application/octet-stream";

export interface VoiceResult {
  /** Each emotion's share of the transcript, percent (the spec's percentage[0]). */
  percentage: Record<string, number>;
  /** The transcript's emotion per segment ("" without a transcript). */
  emotion: string[];
  /** Energy levels per segment. */
  amplitude: number[];
  /** Pace levels per segment. */
  tempo: number[];
  segments: Segment[];
  duration: number;
  transcript: boolean;
}

export type VoiceAnswer = { ok: true; result: VoiceResult } | { ok: false; status: number; key: string; values?: Record<string, string> };

const MB = String(VOICE_MAX_BYTES / 1024 / 1024);
const refused = (status: number, key: string, values?: Record<string, string>): VoiceAnswer => ({
  ok: false,
  status,
  key: `plugin_ai.voice.error.${key}`,
  values,
});

export async function readVoiceUpload(request: Request): Promise<VoiceAnswer> {
  if (!(request.headers.get("Content-Type") ?? "").includes("multipart/form-data")) return refused(415, "multipart");
  let form: FormData;
  try {
    form = await limitBody(request, VOICE_MAX_BYTES + 64 * 1024).request.formData();
  } catch (error) {
    if (error instanceof BodyTooLarge || (error as Error)?.cause instanceof BodyTooLarge) return refused(413, "tooLarge", { max: MB });
    return refused(400, "unreadable");
  }
  const file = form.get("attachment");
  if (!(file instanceof File) || !file.size) return refused(400, "noFile");
  if (file.size > VOICE_MAX_BYTES) return refused(413, "tooLarge", { max: MB });
  if (file.type && !isAudioType(file.type)) return refused(415, "type");
  const kind = sniffAudio(new Uint8Array(await file.slice(0, 16).arrayBuffer()));
  if (!kind) return refused(415, "notAudio");
  if (kind !== "wav" && !(await ffmpegAvailable())) return refused(415, "needsFfmpeg", { format: kind.toUpperCase() });
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const { samples, sampleRate } = kind === "wav" ? decodeWav(bytes) : await decodeWithFfmpeg(bytes);
    const segments = analyseVoice(samples, sampleRate);
    const transcript = String(form.get("transcript") ?? "").slice(0, 20_000);
    const reading = transcript.trim() ? analyseText(transcript) : null;
    return {
      ok: true,
      result: {
        percentage: reading ? Object.fromEntries(Object.entries(reading.emotions).map(([k, v]) => [k, Math.round((v ?? 0) * 100)])) : {},
        emotion: segments.map(() => reading?.emotion ?? ""),
        amplitude: segments.map((s) => s.energy),
        tempo: segments.map((s) => s.pace),
        segments,
        duration: segments.at(-1)?.end ?? 0,
        transcript: !!reading,
      },
    };
  } catch (error) {
    if (error instanceof VoiceError && kind !== "wav" && error.code !== "too_short") return refused(415, "undecodable", { format: kind.toUpperCase() });
    if (error instanceof VoiceError) return refused(415, error.code === "too_short" ? "tooShort" : error.code === "unsupported" ? "encoding" : "damaged");
    throw error;
  }
}
