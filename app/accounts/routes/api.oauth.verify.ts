// POST /api/oauth/verify {token[, tfa]}: token sign-in with an ID token one of the configured
// providers issued to our client id (a mobile app that signed in natively).
// -> {result: "success", token, refresh_token} or {result: "failed", description} (401).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { englishText, readBody, str } from "~/api.server";
import { verifyCodeOnce } from "~/accounts/auth.server";
import { ssoSession, verifyIdToken } from "~/accounts/sso.server";
import { editionForHost } from "~/models/editions.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const ip = context.clientIp;
  const product = (await editionForHost(request.headers.get("Host"))).title;
  if (!str(body.token)) return json({ result: "failed", description: englishText("sso.error.tokenRequired") }, { status: 400 });
  const code = str(body.tfa).trim();
  // two-factor users send the code too, as with /api/auth2
  const result = await verifyIdToken(str(body.token), ip, async (user) => {
    if (!user.totpEnabled) return undefined;
    if (!code) return "tfa_required";
    return (await verifyCodeOnce(user, code, ip)).ok ? undefined : "tfa_invalid";
  });
  if (!result.ok)
    return json(
      { result: "failed", description: englishText(`sso.error.${result.reason}`, { product }), tfa: result.reason.startsWith("tfa") },
      { status: 401 },
    );
  const { token, refreshToken } = await ssoSession(result, {
    ip,
    userAgent: request.headers.get("User-Agent") ?? "",
    method: "sso_token",
    allowPending: false,
  });
  return json({ result: "success", token, refresh_token: refreshToken, description: "" });
}
