// GET /avatar/{key}: a user's photo. Only keys that are someone's photo are served (the file
// storage also holds attachments), as the image type its bytes show (helmet adds nosniff), never run.
// The key is random (128 bits) and changes with each upload; a removed photo leaves private caches within a day.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { avatarFile } from "../profile.server";

export async function loader({ params }: LoaderFunctionArgs) {
  const file = await avatarFile(params.key ?? "");
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
