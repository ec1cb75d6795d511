// CSRF for public forms (visitors have no session): a random token in a signed cookie and the
// same token in the form; the action accepts the post only when both match.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createCookie } from "@remix-run/node";

let cookie: ReturnType<typeof createCookie> | undefined;
const csrfCookie = () =>
  (cookie ??= createCookie("csrf", {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: process.env.NODE_ENV === "production",
    secrets: [process.env.SESSION_SECRET || "dev-only-secret"],
  }));

/** The visitor's token, and the Set-Cookie header when a new one was made. */
export async function csrfToken(request: Request): Promise<{ token: string; setCookie?: string }> {
  const existing = await csrfCookie().parse(request.headers.get("Cookie"));
  if (typeof existing === "string" && existing.length === 43) return { token: existing };
  const token = randomBytes(32).toString("base64url");
  return { token, setCookie: await csrfCookie().serialize(token) };
}

/** Whether the request carries the form token's cookie at all: checked before a body is read. */
export async function hasCsrfCookie(request: Request) {
  const expected = await csrfCookie().parse(request.headers.get("Cookie"));
  return typeof expected === "string" && expected.length === 43;
}

export async function validCsrf(request: Request, submitted: unknown) {
  const expected = await csrfCookie().parse(request.headers.get("Cookie"));
  if (typeof expected !== "string" || typeof submitted !== "string" || expected.length !== submitted.length) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(submitted));
}
