// GET /api/case/{number} ?_token: one case as JSON, its tickets as far as the caller may read them
// (the others counted in hiddenTickets), its notes and history. 404 for no such case.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { getWorkspace } from "~/models/settings.server";
import { caseDetail } from "../case.server";
import { requireCaseApiUser } from "../guard.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { user } = await requireCaseApiUser(request, context);
  const number = /^\d{1,15}$/.test(params.number ?? "") ? Number(params.number) : NaN;
  const { timeZone } = await getWorkspace();
  const detail = Number.isSafeInteger(number) ? await caseDetail(user, number, timeZone) : undefined;
  if (!detail) return json({ result: "failed", description: "No such case." }, { status: 404 });
  return json({ result: "success", data: detail }, { headers: { "Cache-Control": "private, no-store" } });
}
