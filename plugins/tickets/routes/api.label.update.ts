// POST /api/label/update {_token, labelArray (JSON or array), delete (JSON or array of ids)}
// -> the new label list, or {result: "failed", description} with the spec's text (sections 5, 8).
import type { ActionFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth, readBody } from "~/api.server";
import { saveLabels } from "../labels.server";

export const loader = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== "POST") return json({ result: "failed", description: "Method not allowed" }, { status: 405 });
  const body = await readBody(request);
  const auth = await apiAuth(request, body);
  if (!auth) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  if (auth.user.type !== "admin") return json({ result: "failed", description: "Access denied" }, { status: 403 });
  const result = await saveLabels(body.labelArray, body.delete);
  if (!result.ok) return json({ result: "failed", description: result.message }, { status: 400 });
  return json(result.labels);
}
