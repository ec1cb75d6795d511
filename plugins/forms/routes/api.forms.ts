// GET /api/forms ?_token -> {list: [{id, token, title, fields, submissions}]} (spec section 7).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { listSurveys } from "../forms.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const auth = await apiAuth(request);
  if (!auth) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  const list = await listSurveys();
  return json({ list: list.map(({ id, token, title, fields, submissions }) => ({ id, token, title, fields, submissions })) });
}
