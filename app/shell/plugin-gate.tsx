// Parent of every plugin route, in the shell and on public pages: see guardPluginRoute.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Outlet, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { guardPluginRoute } from "~/context.server";
import { translatorFor } from "~/i18n.server";
import { NotFound } from "~/components/NotFound";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { plugin, ctx } = await guardPluginRoute(request, context);
  return json({ pluginId: plugin.id, title: translatorFor(ctx.language)(plugin.title) });
}

export default function PluginGate() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  throw error;
}
