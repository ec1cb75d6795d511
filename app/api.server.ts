// Helpers for the JSON twins under /api: bodies may be JSON or form-encoded; auth is a _token;
// texts are the English ones the pages show.
import { json } from "@remix-run/node";
import type { z } from "zod";
import { findSession } from "./accounts/sessions.server";
import { translatorFor } from "./i18n.server";
import { BodyTooLarge, limitBody } from "./conversation/upload.server";

/** The most a JSON twin's body may weigh (they carry ids and short texts; files go to /api/upload). */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/** 413 with the reason, in the twins' own answer shape. */
const tooLarge = (limit: number) => json({ result: "failed", description: new BodyTooLarge(limit).message }, { status: 413 });

/**
 * A JSON twin's body, JSON or form-encoded, read up to `limit`: a declared length over it is
 * refused before a byte is read, a body that grows past it while read (throws the 413 answer).
 */
export async function readBody(original: Request, limit = MAX_API_BODY_BYTES): Promise<Record<string, unknown>> {
  const type = original.headers.get("Content-Type") ?? "";
  let limited: ReturnType<typeof limitBody>;
  try {
    limited = limitBody(original, limit);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw tooLarge(limit);
    throw error;
  }
  const { request, over } = limited;
  if (type.includes("application/json")) {
    const body = await request.json().catch(() => null);
    if (over()) throw tooLarge(limit);
    return body && typeof body === "object" ? (body as Record<string, unknown>) : {};
  }
  if (type.includes("form")) {
    const form = await request.formData().catch((error) => {
      throw over() ? tooLarge(limit) : error;
    });
    return Object.fromEntries(form);
  }
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

/**
 * A JSON twin's inputs (the query string and the path's params) checked by a zod schema; a
 * refusal throws the twins' answer, 400 {result: "failed", description} with the first problem.
 */
export function apiInput<T extends z.ZodTypeAny>(request: Request, schema: T, params: Record<string, string | undefined> = {}): z.infer<T> {
  // an empty field counts as absent (a form's untouched input), so defaults apply
  const query = [...new URL(request.url).searchParams].filter(([, v]) => v !== "");
  const raw = { ...Object.fromEntries(query), ...params };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw json({ result: "failed", description: parsed.error.issues[0]?.message ?? "Please check the input." }, { status: 400 });
}
