// GET /api/product/{id} ?_token: one product and the linked tickets the caller may read.
// -> {result: "success", data: {product, tickets: [{id, number, kind, title, status, linkedAt, linkedBy}]}}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { requireApiUser } from "~/api.server";
import { guardPluginRoute, isTrial } from "~/context.server";
import { getProduct, linkedTickets, productView } from "../products.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = await requireApiUser(request);
  // a trial workspace has no catalogue (the pages send it home; the twins are public routes)
  if (isTrial(ctx)) return json({ result: "failed", description: "Access denied" }, { status: 403 });
  const id = /^\d{1,15}$/.test(params.id ?? "") ? Number(params.id) : 0;
  const row = await getProduct(id);
  if (!row) return json({ result: "failed", description: "No such product." }, { status: 404 });
  return json({ result: "success", data: { product: productView(row), tickets: await linkedTickets(user, row.id) } });
}
