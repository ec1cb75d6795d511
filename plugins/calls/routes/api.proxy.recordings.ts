// GET /api/proxy/recordings?id={CALL ticket number}[&type=call|voicemail][&_token=] (spec section 7):
// the call's recording, streamed with range requests (the browser's player seeks with them), only
// to a user who may read the call's ticket (403 otherwise, 404 for a call without a recording).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { isTrial, requestContext } from "~/context.server";
import { apiAuth } from "~/api.server";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import { recordingFor, recordingResponse } from "../recording.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  // API clients send ?_token=; browsers the session cookie
  const user = (await apiAuth(request))?.user ?? ctx.user;
  if (!user) return new Response("Unauthorized", { status: 401 });
  if (!ctx.edition.enabled.includes("calls")) return new Response("Not Found", { status: 404 });
  if (isTrial(ctx)) return new Response("Access denied", { status: 403 });
  const id = Number(new URL(request.url).searchParams.get("id"));
  if (!Number.isSafeInteger(id) || id <= 0) return new Response("Not Found", { status: 404 });
  try {
    return await recordingResponse(await recordingFor(user, id), request.headers.get("Range"));
  } catch (error) {
    if (error instanceof AccessDenied) return new Response("Access denied", { status: 403 });
    if (error instanceof NotFound) return new Response("Not Found", { status: 404 });
    throw error;
  }
}
