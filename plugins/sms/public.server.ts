// What an SMS gateway reaches of ours from outside: the account's webhook URL (Twilio signs the
// exact URL it called, and status callbacks are sent to it), and the files of agents' MMS, which
// gateways fetch themselves from a link (Twilio's MediaUrl). A file link names one message of an
// SMS conversation, expires after a day and is signed with the account's own secret, so it opens
// nothing else and dies when the secret changes.
import { and, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { loadAccount } from "@plugins/channels/accounts.server";
import { hmac, sameSignature } from "@plugins/channels/signatures.server";
import { webhookPath } from "@plugins/channels/webhook.server";
import type { StoredFile } from "~/conversation/model.server";

export const MEDIA_LINK_TTL_MS = 24 * 3_600_000;
/** Where the files of agents' MMS are served (plugin.json publicRoutes). */
export const MEDIA_PATH = "/hooks/sms/media";

const trimSlash = (url: string) => url.trim().replace(/\/+$/, "");

/** The URL the gateway calls for this account: as the admin gave it, else BASE_URL's; "" when neither is known. */
export function publicWebhookUrl(account: ChannelAccount) {
  if (account.config.webhookUrl) return account.config.webhookUrl.trim();
  return process.env.BASE_URL ? `${trimSlash(process.env.BASE_URL)}${webhookPath(account.id)}` : "";
}

/** The secret a gateway account signs with (Twilio's auth token, the plain gateway's shared secret). */
export const signingSecret = (account: ChannelAccount) =>
  (account.config.gateway === "webhook" ? account.secrets.sharedSecret : account.secrets.authToken) ?? "";

const linkSignature = (account: ChannelAccount, payload: string) => hmac("sha256", signingSecret(account), `omnidesk-sms-media:${payload}`);

/** A link the gateway can fetch one message's file from, or null when no public address or secret is known. */
export function mediaLink(account: ChannelAccount, messageId: number, now = Date.now()) {
  const base = publicWebhookUrl(account);
  if (!base || !signingSecret(account)) return null;
  const payload = `${account.id}.${messageId}.${Math.ceil((now + MEDIA_LINK_TTL_MS) / 1000)}`;
  return `${new URL(base).origin}${MEDIA_PATH}/${payload}.${linkSignature(account, payload)}`;
}

/** The file a link names, while it is valid. */
export async function mediaFile(token: string | undefined, now = Date.now()): Promise<StoredFile | null> {
  const m = /^(\d{1,12})\.(\d{1,15})\.(\d{1,12})\.([0-9a-f]{64})$/.exec(token ?? "");
  if (!m) return null;
  const [, accountId, messageId, expires, signature] = m;
  if (Number(expires) * 1000 < now) return null;
  const account = await loadAccount(Number(accountId));
  if (!account?.enabled || account.kind !== "SMS" || !signingSecret(account)) return null;
  if (!sameSignature(signature, linkSignature(account, `${accountId}.${messageId}.${expires}`))) return null;
  const { db, schema } = getDb();
  const msg = schema.messages;
  const t = schema.tickets;
  const [row] = await db
    .select({ key: msg.fileKey, name: msg.fileName, type: msg.fileType, size: msg.fileSize })
    .from(msg)
    .innerJoin(t, eq(t.id, msg.ticketId))
    .where(and(eq(msg.id, Number(messageId)), eq(t.channel, "SMS")));
  if (!row?.key) return null;
  return { key: row.key, name: row.name ?? "file", type: row.type ?? "application/octet-stream", size: row.size ?? 0 };
}
