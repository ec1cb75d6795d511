// Attachments, served only to users who may read the conversation they belong to.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireUser } from "~/context.server";
import { apiAuth } from "~/api.server";
import { AccessDenied } from "~/conversation/access.server";
import { messageFile, NotFound } from "~/conversation/model.server";
import { fileStorage } from "~/storage.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  // API clients send ?_token=; browsers the session cookie
  const user = (await apiAuth(request))?.user ?? (await requireUser(request)).user;
  try {
    const file = await messageFile(user, Number(params.messageId));
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
