// Status JSON twins (spec section 7):
//   POST /api/online_status/update {_token, status, reason} -> {result, status, second_status, status_time}
//   GET  /api/status/me/get ?_token -> {result, status, second_status, status_time, reason}
//   GET  /api/customstatus/get ?_token -> {result, data: [{id, name, needs_reason}]}
// The update follows the status menu's rules (AWAY, BUSY and custom statuses marked so need a
// reason); a refusal answers 400 with the reason's English text.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { englishText, readBody, str } from "~/api.server";
import { changeStatus, listCustomStatuses } from "../custom-statuses.server";
import { findUserById } from "../users.server";
import { failed, readerSession, writerSession } from "../api-auth.server";

const path = (request: Request) => new URL(request.url).pathname.replace(/\/+$/, "");

export async function loader({ request }: LoaderFunctionArgs) {
  const where = path(request);
  if (where.endsWith("/online_status/update")) return failed("Method not allowed", 405);
  const { user } = await readerSession(request);
  if (where.endsWith("/customstatus/get")) {
    const list = await listCustomStatuses();
    return json({ result: "success", data: list.map((s) => ({ id: s.id, name: s.name, needs_reason: s.needsReason })) });
  }
  return json(statusOf(user));
}

const statusOf = (user: { status: string; secondStatus: string; statusTime: number; statusReason: string }) => ({
  result: "success",
  status: user.status,
  second_status: user.secondStatus,
  status_time: user.statusTime,
  reason: user.statusReason,
});

export async function action({ request }: ActionFunctionArgs) {
  if (!path(request).endsWith("/online_status/update")) return failed("Method not allowed", 405);
  const body = await readBody(request);
  const { user } = await writerSession(request, body);
  const error = await changeStatus(user, str(body.status), str(body.reason));
  if (error) return failed(englishText(error), 400);
  const after = await findUserById(user.id);
  return json(statusOf(after!));
}
