// Helpers for the JSON twins under /api: bodies may be JSON or form-encoded; auth is a _token;
// texts are the English ones the pages show.
import { json } from "@remix-run/node";
import { findSession } from "./accounts/sessions.server";
import { translatorFor } from "./i18n.server";

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

/** The English text of a message key, for JSON answers (the same texts the pages show). */
export function englishText(key: string, values?: Record<string, string>) {
  return translatorFor("en")(key, values);
}

/** The user behind a _token (query, body or Bearer header), or behind the {token} of a path. */
export async function requireApiUser(request: Request, body: Record<string, unknown> = {}, pathToken?: string) {
  const auth = pathToken ? await findSession(pathToken) : await apiAuth(request, body);
  if (!auth) throw json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  return auth.user;
}
