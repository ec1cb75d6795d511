// /hooks/sms/media/:token: the file of an agent's MMS, fetched by the SMS gateway itself (Twilio's
// MediaUrl) from a signed link that expires (public.server.ts). Twilio checks the Content-Type and
// takes the file's name from Content-Disposition.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileStorage } from "~/storage.server";
import { mediaFile } from "../public.server";

export async function loader({ params }: LoaderFunctionArgs) {
  const file = await mediaFile(params.token);
  const body = file ? await fileStorage().get(file.key) : undefined;
  if (!file || !body) return new Response("Not Found", { status: 404 });
  return new Response(body as ReadableStream, {
    headers: {
      "Content-Type": file.type,
      ...(file.size ? { "Content-Length": String(file.size) } : {}),
      "Content-Disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, no-store",
    },
  });
}
