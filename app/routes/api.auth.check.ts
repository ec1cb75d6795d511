// POST /api/auth/check {_token, refresh_token} -> result plus the settings of spec section 3.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth, readBody, str } from "~/api.server";
import { findSession, refreshSession } from "~/accounts/sessions.server";
import { authSettings } from "~/accounts/auth-settings.server";
import { editionForHost } from "~/models/editions.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  const body = await readBody(request);
  let auth = await apiAuth(request, body);
  let tokens: { token: string; refreshToken: string } | undefined;
  if (!auth && str(body.refresh_token)) {
    tokens = await refreshSession(str(body.refresh_token));
    if (tokens) auth = await findSession(tokens.token);
  }
  if (!auth) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  const edition = await editionForHost(request.headers.get("Host"));
  return json({
    result: "success",
    ...(tokens ? { token: tokens.token, refresh_token: tokens.refreshToken } : {}),
    ...(await authSettings(auth.user, edition)),
  });
}
