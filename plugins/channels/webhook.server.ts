// The one webhook door of every messaging channel: /hooks/channels/{account id}. The provider's
// signature is checked over the exact bytes before anything is parsed or stored (a bad one: 401,
// nothing kept); then every event of the call is stored with its job in one transaction and only
// then does the provider get its 200, so a crash after it loses nothing and a redelivery adds nothing.
import { createHash } from "node:crypto";
import { log } from "~/ops/log.server";
import { metrics } from "~/ops/metrics.server";
import { loadAccount } from "./accounts.server";
import { adapterFor } from "./adapters.server";
import { storeWebhookEvents } from "./inbound.server";
import type { ChannelAccount, WebhookAdapter, WebhookRequest } from "./adapter";

/** Larger calls are refused unread: no provider batches more than this in one call. */
export const WEBHOOK_MAX_BYTES = 1024 * 1024;

/** The webhook URL an admin gives the provider. */
export const webhookPath = (accountId: number) => `/hooks/channels/${accountId}`;

const answer = (status: number, text: string) => new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });

async function webhookAccount(accountId: string | undefined): Promise<{ account: ChannelAccount; webhook: WebhookAdapter } | undefined> {
  // anything but a plain id is no account (and never reaches the database)
  if (!/^\d{1,9}$/.test(accountId ?? "")) return undefined;
  const account = await loadAccount(Number(accountId));
  if (!account?.enabled) return undefined;
  const webhook = (await adapterFor(account.kind))?.webhook;
  return webhook ? { account, webhook } : undefined;
}

/** The body, or null when it is larger than the limit (read no further than that). */
async function boundedBody(request: Request): Promise<Buffer | null> {
  if (Number(request.headers.get("content-length") ?? 0) > WEBHOOK_MAX_BYTES) return null;
  if (!request.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > WEBHOOK_MAX_BYTES) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** GET: the provider's subscription handshake. */
export async function webhookHandshake(request: Request, accountId: string | undefined) {
  const found = await webhookAccount(accountId);
  if (!found) return answer(404, "Not Found");
  const reply = found.webhook.handshake?.({ method: "GET", url: new URL(request.url), headers: request.headers, rawBody: Buffer.alloc(0) }, found.account);
  return reply ?? answer(405, "Method Not Allowed");
}

/** POST: a provider's events. */
export async function webhookCall(request: Request, accountId: string | undefined) {
  const found = await webhookAccount(accountId);
  if (!found) return answer(404, "Not Found");
  const { account, webhook } = found;
  const count = (outcome: string) => metrics.webhookRequests.inc({ plugin: "channels", provider: account.kind, outcome });
  const rawBody = await boundedBody(request);
  if (!rawBody) {
    count("too-large");
    return answer(413, "Payload Too Large");
  }
  const call: WebhookRequest = { method: "POST", url: new URL(request.url), headers: request.headers, rawBody };
  let verified = false;
  try {
    verified = webhook.verify(call, account);
  } catch {
    verified = false;
  }
  if (!verified) {
    count("refused");
    log.warn({ accountId: account.id, kind: account.kind }, "channel webhook: signature refused");
    return answer(401, "Invalid signature");
  }
  let events;
  try {
    events = webhook.events(call, account);
  } catch (error) {
    // signed but not what the provider documents: kept for an admin to look at, not tried again
    const key = `unreadable:${createHash("sha256").update(rawBody).digest("hex")}`;
    await storeWebhookEvents(account.id, account.kind, [{ key, payload: { unreadable: rawBody.toString("utf8").slice(0, 100_000), error: String(error) } }]);
    count("unreadable");
    return answer(200, "ok");
  }
  await storeWebhookEvents(account.id, account.kind, events);
  count("accepted");
  return webhook.accepted?.(call, account) ?? answer(200, "ok");
}
