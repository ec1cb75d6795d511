// Attachments, served only to users who may read the conversation they belong to, and only where
// that conversation's page opens: its plugin on for this edition, and not on a trial account.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { isTrial, requestContext } from "~/context.server";
import { apiAuth } from "~/api.server";
import { AccessDenied } from "~/conversation/access.server";
import { messageFile, NotFound } from "~/conversation/model.server";
import { pluginForPath } from "~/plugins/registry.server";
import { fileStorage } from "~/storage.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  // API clients send ?_token=; browsers the session cookie
  const user = (await apiAuth(request))?.user ?? ctx.user;
  if (!user) throw redirect("/");
  try {
    const file = await messageFile(user, Number(params.messageId));
    // the gate of the conversation's own page (plugin-gate): off in this edition, or on a trial
    const owner = pluginForPath(file.page);
    if (!owner || !ctx.edition.enabled.includes(owner.plugin.id)) throw new NotFound();
    if (isTrial(ctx) && !owner.plugin.trial) throw new AccessDenied();
    const body = await fileStorage().get(file.key);
    if (!body) throw new NotFound();
    const inline = file.type.startsWith("image/") && file.type !== "image/svg+xml";
    return new Response(body, {
      headers: {
        "Content-Type": file.type,
        "Content-Disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "Cache-Control": "private, max-age=3600",
      },
    });
  } catch (error) {
    if (error instanceof AccessDenied) return new Response("Access denied", { status: 403 });
    if (error instanceof NotFound) return new Response("Not Found", { status: 404 });
    throw error;
  }
}
