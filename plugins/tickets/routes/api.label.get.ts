// GET /api/label/get ?_token -> [{id, name, color, colorDark, level, sla}] (spec section 7).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth } from "~/api.server";
import { listLabels } from "../labels.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const auth = await apiAuth(request);
  if (!auth) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  return json(await listLabels());
}
