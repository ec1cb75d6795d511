// Helpers for the JSON twins under /api: bodies may be JSON or form-encoded; auth is a _token.
import { findSession } from "./models/sessions.server";

export async function readBody(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("Content-Type") ?? "";
  if (type.includes("application/json")) {
    const body = await request.json().catch(() => null);
    return body && typeof body === "object" ? (body as Record<string, unknown>) : {};
  }
  if (type.includes("form")) return Object.fromEntries(await request.formData());
  return {};
}

export const str = (v: unknown) => (typeof v === "string" ? v : "");

/** The session behind a request's _token (query or body), or behind a Bearer header. */
export async function apiAuth(request: Request, body: Record<string, unknown> = {}) {
  const url = new URL(request.url);
  const bearer = request.headers.get("Authorization")?.replace(/^Bearer\s+/i, "");
  return findSession(str(body._token) || url.searchParams.get("_token") || bearer);
}
