// GET /product/{id}/image?k={key}: a product's image, for anyone with the menu. Only the key that is
// this product's image is served (the storage holds attachments too), as the type its bytes show,
// never run. The key changes with each upload, so the answer may be cached.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { guardPluginRoute } from "~/context.server";
import { productImage } from "../products.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const id = /^\d{1,15}$/.test(params.id ?? "") ? Number(params.id) : 0;
  const file = id ? await productImage(id, new URL(request.url).searchParams.get("k") ?? "") : null;
  if (!file) return new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain" } });
  return new Response(Buffer.from(file.bytes), {
    headers: {
      "Content-Type": file.type,
      "Content-Length": String(file.bytes.byteLength),
      "Content-Disposition": "inline",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, max-age=86400",
    },
  });
}
