// POST /call/acw (callId, seconds): the agent's softphone reports the after-call work it spent on
// its own ended call (at most the workspace's acw_seconds). 204 stored, 404 not the agent's call.
import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { recordAfterCallWork } from "../calls.server";

const body = z.object({ callId: z.string().min(1).max(255), seconds: z.coerce.number().min(0).max(86400) });

export const loader = () => new Response("Method not allowed", { status: 405 });

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) return new Response("Sign in first", { status: 401 });
  const parsed = body.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return new Response("Bad request", { status: 400 });
  const stored = await recordAfterCallWork(ctx.user.id, parsed.data.callId, parsed.data.seconds);
  return new Response(null, { status: stored ? 204 : 404 });
}
