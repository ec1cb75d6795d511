// POST /supervisory/listen (admin or view_report), the listen-in's signalling for the supervisor's
// browser: intent=start&callId -> {sdp, tag} (rtpengine's offer of both parties' audio);
// intent=answer&callId&tag&sdp -> 204; intent=stop&callId&tag -> 204. 404 when the call is not live.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { answerListening, requireSupervisor, startListening, stopListening } from "../supervision.server";

const body = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("start"), callId: z.coerce.number().int().positive() }),
  z.object({ intent: z.literal("answer"), callId: z.coerce.number().int().positive(), tag: z.string().min(1).max(128), sdp: z.string().min(10).max(20_000) }),
  z.object({ intent: z.literal("stop"), callId: z.coerce.number().int().positive(), tag: z.string().min(1).max(128) }),
]);

export const loader = () => new Response("Method not allowed", { status: 405 });

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { user } = await requireSupervisor(request);
  const parsed = body.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return json({ result: "failed", description: "Please check the input." }, { status: 400 });
  const input = parsed.data;
  if (input.intent === "start") {
    const started = await startListening(input.callId, { actor: { id: user.id, name: user.username }, ip: String(context.clientIp ?? "") });
    if (!started.ok) return json({ result: "failed", description: started.error }, { status: started.status });
    return json({ result: "success", sdp: started.sdp, tag: started.tag }, { headers: { "Cache-Control": "no-store" } });
  }
  if (input.intent === "answer") {
    const answered = await answerListening(input.callId, input.tag, input.sdp);
    if (!answered.ok) return json({ result: "failed", description: answered.error }, { status: answered.status });
    return new Response(null, { status: 204 });
  }
  await stopListening(input.callId, input.tag);
  return new Response(null, { status: 204 });
}
