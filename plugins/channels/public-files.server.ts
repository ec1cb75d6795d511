// Signed, expiring public addresses for an agent's outgoing attachment, for providers that fetch a
// file from a URL instead of taking an upload (LINE's image, video and audio messages, a Facebook
// comment's attachment_url). The address names one message's file and when it stops working, signed
// with HMAC-SHA256 under a key derived from SESSION_SECRET: no session is needed, a changed id or
// time is refused (403), an old link is gone (410). It goes out on the workspace's public address
// (BASE_URL, as webhook URLs are shown to admins); without one nothing is sent rather than a
// localhost address no provider can reach.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { and, eq, isNotNull } from "drizzle-orm";
import { getDb } from "@db/client";
import { PermanentFailure } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";

/** How long a provider has to fetch the file: enough for its queue, short enough that a leaked link soon dies. */
export const PUBLIC_FILE_TTL_MS = 30 * 60_000;
/** The delivery error when the server has no public address (a translation key of this plugin). */
export const NO_PUBLIC_URL = "plugin_channels.delivery.noPublicUrl";
/** Where signed files are served (the route's path, under the public webhook door). */
export const PUBLIC_FILES_PATH = "/hooks/channels/files";

/** Types a provider may be handed as they are; anything else is served as bytes to download. */
const SAFE_TYPES = /^(image\/(jpeg|png|gif|webp)|video\/(mp4|quicktime|webm)|audio\/(mpeg|mp4|x-m4a|aac|ogg|wav)|application\/pdf)$/;
/** Shown inline (a provider's preview); everything else is an attachment. */
const INLINE_TYPES = /^(image|video|audio)\//;

let cached: { secret: string; key: Buffer } | undefined;
function signingKey() {
  const secret = process.env.SESSION_SECRET || "dev-only-secret";
  if (cached?.secret !== secret) cached = { secret, key: Buffer.from(hkdfSync("sha256", secret, "omnidesk", "public channel files", 32)) };
  return cached.key;
}

const signature = (messageId: number, expires: number) => createHmac("sha256", signingKey()).update(`${messageId}.${expires}`).digest("base64url");

/** The server's public address, or "" when none is set. */
export const publicBaseUrl = () => (process.env.BASE_URL ?? "").trim().replace(/\/+$/, "");

/** A name as a URL's last segment (cosmetic: what is served is the stored file). */
const urlName = (name: string) => encodeURIComponent(name.replace(/[\u0000-\u001f\u007f/\\]/g, "_").slice(0, 100) || "file");

/**
 * The signed address of an outgoing message's file, valid for PUBLIC_FILE_TTL_MS. Throws
 * PermanentFailure(NO_PUBLIC_URL) when the server has no public address: the send fails with that
 * reason instead of handing the provider a link it cannot reach.
 */
export function publicFileUrl(messageId: number, name: string, now = Date.now()) {
  const base = publicBaseUrl();
  if (!/^https?:\/\//i.test(base)) throw new PermanentFailure(`${NO_PUBLIC_URL}: ${name}`);
  const expires = Math.floor((now + PUBLIC_FILE_TTL_MS) / 1000);
  return `${base}${PUBLIC_FILES_PATH}/${messageId}.${expires}.${signature(messageId, expires)}/${urlName(name)}`;
}

const refusal = (status: number, text: string) =>
  new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" } });

/** The file behind a signed token ("{message id}.{expires}.{signature}"): 403 tampered, 410 expired, 404 not an agent's file on a channel. */
export async function publicFileResponse(token: string | undefined, now = Date.now()): Promise<Response> {
  const match = /^(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
  if (!match) return refusal(403, "Forbidden");
  const messageId = Number(match[1]);
  const expires = Number(match[2]);
  const given = Buffer.from(match[3]);
  const expected = Buffer.from(signature(messageId, expires));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refusal(403, "Forbidden");
  if (expires * 1000 < now) return refusal(410, "Gone: this link has expired");
  const { db, schema } = getDb();
  const m = schema.messages;
  const [row] = await db
    .select({ key: m.fileKey, name: m.fileName, type: m.fileType })
    .from(m)
    .innerJoin(schema.tickets, eq(schema.tickets.id, m.ticketId))
    // only an agent's file on a channel conversation is ever handed out this way
    .where(and(eq(m.id, messageId), isNotNull(m.senderUserId), isNotNull(schema.tickets.channelAccountId)));
  const body = row?.key ? await fileStorage().get(row.key) : null;
  if (!row?.key || !body) return refusal(404, "Not Found");
  const type = SAFE_TYPES.test(row.type ?? "") ? row.type! : "application/octet-stream";
  return new Response(body, {
    headers: {
      "Content-Type": type,
      "Content-Disposition": `${INLINE_TYPES.test(type) ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(row.name ?? "file")}`,
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
      "Referrer-Policy": "no-referrer",
    },
  });
}
