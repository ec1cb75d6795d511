// GET /api/case/list ?status, type, page, _token: the /case list as JSON.
// -> {result: "success", data: {cases: [{number, title, type, status, owner, dueDate, overdue, tickets, updatedAt}], total, page, pages}}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { getWorkspace } from "~/models/settings.server";
import { listCases, listQuery } from "../case.server";
import { requireCaseApiUser } from "../guard.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireCaseApiUser(request, context);
  const q = listQuery.parse(Object.fromEntries(new URL(request.url).searchParams));
  const { timeZone } = await getWorkspace();
  return json({ result: "success", data: await listCases(q, timeZone) }, { headers: { "Cache-Control": "private, no-store" } });
}
