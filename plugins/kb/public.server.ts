// What the public pages share: their address checked (type and language), the canonical address.
import { publicOrigin } from "~/context.server";
import { isLang, isType, type KbLang, type KbType } from "./limits";

export function supportParams(params: Record<string, string | undefined>): { type: KbType; lang: KbLang } {
  const { type, lang } = params;
  if (!isType(type) || !isLang(lang)) throw new Response("Not Found", { status: 404 });
  return { type, lang };
}

export const canonical = (request: Request, path: string) => `${publicOrigin(request)}${path}`;

/** Public pages change only when an admin saves: a minute in any cache, served stale while refreshed. */
export const PUBLIC_CACHE = "public, max-age=60, stale-while-revalidate=600";
