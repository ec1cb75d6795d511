// POST /api/upload/voice, multipart, field `attachment` (spec section 7), optional `transcript`:
// the voice analysis result {percentage: [emotion shares], emotion: [per segment], amplitude:
// [energy levels per segment], tempo: [pace levels per segment], segments} computed from the
// audio itself (voice.ts). Size and type are checked before the audio is read: a declared length
// over the limit is refused before a byte is read (413), a part whose declared type is not WAV
// is refused (415), and the file's first bytes must be a WAV header (a renamed file is refused
// with what it really is). Emotion comes from the transcript when one is given (the offline
// analyser); the product does not transcribe audio offline. `_token` or the session cookie.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { BodyTooLarge, limitBody } from "~/conversation/upload.server";
import { analyseText } from "../analyse";
import { analyseVoice, decodeWav, sniffAudio, VOICE_MAX_BYTES, VoiceError, WAV_TYPES } from "../voice";

const refuse = (status: number, description: string, extra: Record<string, unknown> = {}) => json({ result: "failed", description, ...extra }, { status });

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const url = new URL(request.url);
  await requireApiUser(request, { _token: url.searchParams.get("_token") ?? "" });
  if (!(request.headers.get("Content-Type") ?? "").includes("multipart/form-data"))
    return refuse(415, "Send the audio as multipart/form-data, field attachment.");
  let form: FormData;
  try {
    const limited = limitBody(request, VOICE_MAX_BYTES + 64 * 1024);
    form = await limited.request.formData();
  } catch (error) {
    if (error instanceof BodyTooLarge || (error as Error)?.cause instanceof BodyTooLarge)
      return refuse(413, `The audio is too large: at most ${VOICE_MAX_BYTES / 1024 / 1024} MB.`);
    return refuse(400, "The upload could not be read.");
  }
  const file = form.get("attachment");
  if (!(file instanceof File) || !file.size) return refuse(400, "Choose an audio file (WAV).");
  if (file.size > VOICE_MAX_BYTES) return refuse(413, `The audio is too large: at most ${VOICE_MAX_BYTES / 1024 / 1024} MB.`);
  if (file.type && !WAV_TYPES.includes(file.type) && file.type !== "application/octet-stream")
    return refuse(415, "Only WAV audio can be analysed on this machine.", { type: file.type });
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  const kind = sniffAudio(head);
  if (!kind) return refuse(415, "This file is not audio.");
  if (kind !== "wav") return refuse(415, `This is ${kind.toUpperCase()} audio: only WAV can be analysed on this machine.`, { format: kind });
  try {
    const { samples, sampleRate } = decodeWav(new Uint8Array(await file.arrayBuffer()));
    const segments = analyseVoice(samples, sampleRate);
    const transcript = String(form.get("transcript") ?? "").slice(0, 20_000);
    const reading = transcript.trim() ? analyseText(transcript) : null;
    return json({
      result: "success",
      percentage: [reading ? Object.fromEntries(Object.entries(reading.emotions).map(([k, v]) => [k, Math.round((v ?? 0) * 100)])) : {}],
      emotion: segments.map(() => reading?.emotion ?? ""),
      amplitude: segments.map((s) => s.energy),
      tempo: segments.map((s) => s.pace),
      segments,
      duration: segments.at(-1)?.end ?? 0,
    });
  } catch (error) {
    if (error instanceof VoiceError)
      return refuse(
        415,
        error.code === "too_short"
          ? "The audio is too short: at least one second."
          : error.code === "unsupported"
            ? "This WAV encoding is not supported (PCM or float only)."
            : "This WAV file is damaged.",
      );
    throw error;
  }
}
