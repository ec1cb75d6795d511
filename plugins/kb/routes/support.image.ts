// GET /support/image/{id}: an article's image from the product's file storage, as the type it was
// accepted as, never run (sandboxed). Its id never changes its bytes, so it may be cached long.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import { fileStorage } from "~/storage.server";
import { getImage } from "../kb.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const image = /^\d{1,15}$/.test(params.id ?? "") ? await getImage(Number(params.id)) : undefined;
  const stream = image ? await fileStorage().get(image.fileKey) : undefined;
  if (!image || !stream) return new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain" } });
  return new Response(stream, {
    headers: {
      "Content-Type": image.contentType,
      "Content-Length": String(image.size),
      "Content-Disposition": "inline",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "public, max-age=31536000, immutable",
    },
  });
}
