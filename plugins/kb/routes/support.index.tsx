// /support: the knowledge base's entry point in English (/support/kb/en).
import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  return redirect("/support/kb/en");
}
