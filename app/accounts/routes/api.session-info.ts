// GET /api/session/info ?_token&session_id -> {result, session_id, current, user, created_at,
//   last_seen_at, expires_at, idle_expires_at, device, ip}
// One of the caller's own sessions (session_id is the id /settings/sessions shows; without it the
// session making the call). Times are unix ms; the session ends at expires_at, or at
// idle_expires_at if nothing is done until then. Another user's session is "not found".
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { describeDevice } from "../device";
import { ownSessionInfo } from "../sessions.server";
import { failed, readerSession } from "../api-auth.server";

const input = z.object({
  session_id: z
    .string()
    .regex(/^[\w-]{10,40}$/, "The session id is not valid.")
    .optional(),
});

export const action = () => failed("Method not allowed", 405);

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, session } = await readerSession(request);
  const q = apiInput(request, input);
  const info = await ownSessionInfo(user.id, session.idHash, q.session_id || undefined);
  if (!info) return failed("Session not found.", 404);
  const device = describeDevice(info.userAgent);
  return json(
    {
      result: "success",
      session_id: info.id,
      current: info.current,
      user: { id: user.id, username: user.username, name: user.name, type: user.type },
      created_at: info.createdAt,
      last_seen_at: info.lastSeenAt,
      expires_at: info.expiresAt,
      idle_expires_at: info.idleExpiresAt,
      device: { browser: device.browser ?? null, system: device.system ?? null, user_agent: device.raw },
      ip: info.ip,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
