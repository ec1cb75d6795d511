// POST /api/upload/voice, multipart, field `attachment` (spec section 7), optional `transcript`:
// the voice analysis result {percentage: [emotion shares], emotion: [per segment], amplitude:
// [energy levels per segment], tempo: [pace levels per segment], segments} computed from the
// audio itself (voice.ts, voice.server.ts: size and type checked before the audio is read).
// `_token` or the session cookie.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { englishText, requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { readVoiceUpload } from "../voice.server";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireApiUser(request);
  const answer = await readVoiceUpload(request);
  if (!answer.ok) return json({ result: "failed", description: englishText(answer.key, answer.values), ...answer.values }, { status: answer.status });
  const { percentage, ...rest } = answer.result;
  return json({ result: "success", percentage: [percentage], ...rest });
}
