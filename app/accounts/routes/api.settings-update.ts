// Settings JSON twins (spec section 7):
//   POST /api/settings/update_2 {_token, function, value}: language (the caller's own), or the
//        workspace's popup_on_call, timezone, acw_seconds (admins only: 403 otherwise)
//   POST /api/settings/update {_token, action, day}: a workspace duration in days (admins only);
//        nothing is saved without a day
// -> {result: "success", description: "Settings updated", key, value} or {result: "failed", description}.
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { readBody, str } from "~/api.server";
import { updateDuration, updateSetting } from "../settings-update.server";
import { failed, writerSession } from "../api-auth.server";

export const loader = () => failed("Method not allowed", 405);

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const { user } = await writerSession(request, body);
  const ip = String(context.clientIp ?? "");
  const twin = new URL(request.url).pathname.replace(/\/+$/, "").endsWith("/update_2");
  const result = twin ? await updateSetting(user, str(body.function), body.value, ip) : await updateDuration(user, str(body.action), body.day, ip);
  if (!result.ok) return failed(result.description, result.status);
  return json({ result: "success", description: "Settings updated", key: result.key, value: result.value });
}
