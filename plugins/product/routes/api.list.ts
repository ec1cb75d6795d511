// GET /api/product/list ?q, category, page, _token: the JSON twin of /product (agents: active
// products; admins: all). -> {result: "success", data: {products: [...], page, pages, total}}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput, requireApiUser } from "~/api.server";
import { guardPluginRoute, isTrial } from "~/context.server";
import { listProducts, productView } from "../products.server";

const input = z.object({
  q: z.string().max(200, "The search is too long: at most 200 characters.").default(""),
  category: z.string().max(200, "The category is too long.").default(""),
  page: z.coerce
    .number({ invalid_type_error: "Please check the page." })
    .int("Please check the page.")
    .min(1, "Please check the page.")
    .max(1_000_000, "Please check the page.")
    .default(1),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = await requireApiUser(request);
  // a trial workspace has no catalogue (the pages send it home; the twins are public routes)
  if (isTrial(ctx)) return json({ result: "failed", description: "Access denied" }, { status: 403 });
  const q = apiInput(request, input);
  const list = await listProducts({ ...q, withInactive: user.type === "admin" });
  return json({ result: "success", data: { products: list.rows.map(productView), page: list.page, pages: list.pages, total: list.total } });
}
