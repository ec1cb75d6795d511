// POST /api/auth/check {_token, refresh_token} -> result, token, refresh_token and the settings of
// spec section 3. A live _token is answered with itself (and its refresh token when the client
// sent the right one); otherwise the refresh token is exchanged for a new pair of the same family.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth, readBody, str } from "~/api.server";
import { findSession, isRefreshTokenOf, refreshSession } from "~/accounts/sessions.server";
import { authSettings } from "~/accounts/auth-settings.server";
import { editionForHost } from "~/models/editions.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

const expired = () => json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const url = new URL(request.url);
  const presented = str(body._token) || url.searchParams.get("_token") || request.headers.get("Authorization")?.replace(/^Bearer\s+/i, "") || "";
  const refreshToken = str(body.refresh_token);
  let auth = await apiAuth(request, body);
  let tokens: { token: string; refresh_token: string };
  if (auth) {
    tokens = { token: presented, refresh_token: isRefreshTokenOf(auth.session, refreshToken) ? refreshToken : "" };
  } else {
    if (!refreshToken) return expired();
    const renewed = await refreshSession(refreshToken, { ip: context.clientIp, userAgent: request.headers.get("User-Agent") ?? "" });
    if (!renewed.ok) return expired();
    auth = await findSession(renewed.token);
    if (!auth) return expired();
    tokens = { token: renewed.token, refresh_token: renewed.refreshToken };
  }
  const edition = await editionForHost(request.headers.get("Host"));
  return json({ result: "success", ...tokens, ...(await authSettings(auth.user, edition, url.origin)) });
}
