// Who calls an account JSON twin: the _token (query, body or Bearer, as every twin), a token
// under another name where the spec gives one (profile2's `token`), or, for reads only, the
// page's own session cookie (the status menu fetches the custom statuses with it).
import { json } from "@remix-run/node";
import { apiAuth } from "~/api.server";
import { currentAuth } from "~/context.server";
import { findSession } from "./sessions.server";

export const failed = (description: string, status: number) => json({ result: "failed", description }, { status });

/** The session behind a read's token or cookie; a 403 answer when there is none. */
export async function readerSession(request: Request, otherTokenParam?: string) {
  const other = otherTokenParam ? new URL(request.url).searchParams.get(otherTokenParam) : null;
  const auth = (other ? await findSession(other) : undefined) ?? (await apiAuth(request)) ?? (await currentAuth(request));
  if (!auth) throw failed("Session expired. Please log in again.", 403);
  return auth;
}

/** The session behind a write's _token (body, query or Bearer; never the cookie alone). */
export async function writerSession(request: Request, body: Record<string, unknown>) {
  const auth = await apiAuth(request, body);
  if (!auth) throw failed("Session expired. Please log in again.", 403);
  return auth;
}
