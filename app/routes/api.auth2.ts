// POST /api/auth2 {client, password, type, tfa} -> {result, token, refresh_token, description}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody, str } from "~/api.server";
import { authenticate } from "~/accounts/auth.server";
import { createSession } from "~/accounts/sessions.server";

const DESCRIPTIONS = {
  required: "Username and password are required.",
  invalid: "Invalid username or password.",
  rate_limited: "Too many failed attempts. Please try again later.",
  tfa_required: "Two-factor authentication code required.",
  tfa_invalid: "The two-factor code is not valid.",
} as const;

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const username = str(body.client).trim();
  const password = str(body.password);
  if (!username || !password) return json({ result: "failed", description: DESCRIPTIONS.required }, { status: 400 });
  const type = str(body.type) === "admin" ? "admin" : "agent";
  const result = await authenticate({ username, password, type, code: str(body.tfa) || undefined, ip: context.clientIp });
  if (!result.ok) {
    const status = result.code === "rate_limited" ? 429 : result.code === "tfa_required" ? 401 : 403;
    return json({ result: "failed", description: DESCRIPTIONS[result.code], tfa: result.code.startsWith("tfa") }, { status });
  }
  const { token, refreshToken } = await createSession(result.user.id, { userAgent: request.headers.get("User-Agent") ?? "" });
  return json({ result: "success", token, refresh_token: refreshToken, description: "" });
}
