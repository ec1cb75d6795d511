// POST /api/auth2 {client, password, type, tfa} -> {result, token, refresh_token, description}
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody, str } from "~/api.server";
import { authenticate, completeSignIn } from "~/accounts/auth.server";
import { translatorFor } from "~/i18n.server";

const DESCRIPTIONS = {
  required: "Username and password are required.",
  invalid: "Invalid username or password.",
  tfa_required: "Two-factor authentication code required.",
  tfa_invalid: "The two-factor code is not valid.",
} as const;

/** The login page's lock message, in English. */
const lockedText = (seconds: number) => translatorFor("en")("security.locked", { count: Math.max(1, Math.ceil(seconds / 60)) });

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const username = str(body.client).trim();
  const password = str(body.password);
  if (!username || !password) return json({ result: "failed", description: DESCRIPTIONS.required }, { status: 400 });
  const type = str(body.type) === "admin" ? "admin" : "agent";
  const ip = context.clientIp;
  const result = await authenticate({ username, password, type, code: str(body.tfa) || undefined, ip });
  if (!result.ok) {
    if (result.code === "rate_limited")
      return json(
        { result: "failed", description: lockedText(result.retryAfterSeconds), tfa: false },
        { status: 429, headers: { "Retry-After": String(result.retryAfterSeconds) } },
      );
    const status = result.code === "tfa_required" ? 401 : 403;
    return json({ result: "failed", description: DESCRIPTIONS[result.code], tfa: result.code.startsWith("tfa") }, { status });
  }
  const { token, refreshToken } = await completeSignIn(result.user, {
    ip,
    userAgent: request.headers.get("User-Agent") ?? "",
    method: result.user.totpEnabled ? "tfa" : "password",
  });
  return json({ result: "success", token, refresh_token: refreshToken, description: "" });
}
