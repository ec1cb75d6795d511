// The one webhook door of every messaging channel: /hooks/channels/{account id}. The provider's
// signature is checked over the exact bytes before anything is parsed or stored (a bad one: 401,
// nothing kept); then every event of the call is stored with its job in one transaction and only
// then does the provider get its 200, so a crash after it loses nothing and a redelivery adds nothing.
// When the database cannot take the call just now (SQLite's lock wait ran out behind a job worker's
// write, PostgreSQL unreachable or out of pool connections), the door answers 503 with Retry-After:
// the events' one transaction was not committed, so nothing is half-stored, and the provider's
// retry (every provider retries a 5xx) stores them once.
// Express serves the door before the Remix handler (serveWebhook, ADR 050: Remix cost about 2 ms
// a call); the route file's loader and action (and the unit tests) come in through webhookHandshake
// and webhookCall, the same door with a Fetch Request.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isDatabaseBusy } from "@db/client";
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

const answer = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8", ...headers } });

/** Seconds a provider is asked to wait (Retry-After) when the database is busy. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * Runs one call at the door; a database that cannot take it just now makes it a 503 with
 * Retry-After (counted and logged as "busy") instead of a 500. Any other failure stays a failure.
 */
async function unlessBusy(accountId: string | undefined, work: (seen: { kind?: string }) => Promise<Response>) {
  const seen: { kind?: string } = {};
  try {
    return await work(seen);
  } catch (error) {
    if (!isDatabaseBusy(error)) throw error;
    metrics.webhookRequests.inc({ plugin: "channels", provider: seen.kind ?? "unknown", outcome: "busy" });
    log.warn({ accountId, kind: seen.kind, err: String(error) }, "channel webhook: database busy, the provider is asked to retry");
    return answer(503, "Busy: try again", { "Retry-After": String(BUSY_RETRY_AFTER_SECONDS) });
  }
}

async function webhookAccount(accountId: string | undefined): Promise<{ account: ChannelAccount; webhook: WebhookAdapter } | undefined> {
  // anything but a plain id is no account (and never reaches the database)
  if (!/^\d{1,9}$/.test(accountId ?? "")) return undefined;
  const account = await loadAccount(Number(accountId));
  if (!account?.enabled) return undefined;
  const webhook = (await adapterFor(account.kind))?.webhook;
  return webhook ? { account, webhook } : undefined;
}

/** A call at the door, whoever brought it (Express or a Fetch Request). */
interface DoorCall {
  method: string;
  url: URL;
  headers: Headers;
  /** The body, or null when it is larger than WEBHOOK_MAX_BYTES (read no further than that). */
  body(): Promise<Buffer | null>;
}

/** The bytes of a stream, or null as soon as they pass the limit. */
async function boundedBytes(body: AsyncIterable<Uint8Array>): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > WEBHOOK_MAX_BYTES) return null;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

const tooLong = (headers: Headers) => Number(headers.get("content-length") ?? 0) > WEBHOOK_MAX_BYTES;

/** GET: the provider's subscription handshake. */
const handshake = (call: DoorCall, accountId: string | undefined) => unlessBusy(accountId, () => handshakeOnce(call, accountId));

async function handshakeOnce(call: DoorCall, accountId: string | undefined) {
  const found = await webhookAccount(accountId);
  if (!found) return answer(404, "Not Found");
  const reply = found.webhook.handshake?.({ method: "GET", url: call.url, headers: call.headers, rawBody: Buffer.alloc(0) }, found.account);
  return reply ?? answer(405, "Method Not Allowed");
}

/** POST: a provider's events. */
const accept = (door: DoorCall, accountId: string | undefined) => unlessBusy(accountId, (seen) => acceptOnce(door, accountId, seen));

async function acceptOnce(door: DoorCall, accountId: string | undefined, seen: { kind?: string }) {
  const found = await webhookAccount(accountId);
  if (!found) return answer(404, "Not Found");
  const { account, webhook } = found;
  seen.kind = account.kind;
  const count = (outcome: string) => metrics.webhookRequests.inc({ plugin: "channels", provider: account.kind, outcome });
  const rawBody = await door.body();
  if (!rawBody) {
    count("too-large");
    return answer(413, "Payload Too Large");
  }
  const call: WebhookRequest = { method: "POST", url: door.url, headers: door.headers, rawBody };
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

const fromFetch = (request: Request): DoorCall => ({
  method: request.method,
  url: new URL(request.url),
  headers: request.headers,
  body: async () => (tooLong(request.headers) ? null : request.body ? boundedBytes(request.body as unknown as AsyncIterable<Uint8Array>) : Buffer.alloc(0)),
});

/** A Node request's body within the limit; past it, reading stops (the connection is closed after the 413). */
function nodeBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (value: Buffer | null) => {
      req.off("data", onData).off("end", onEnd).off("error", reject);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= WEBHOOK_MAX_BYTES) return void chunks.push(chunk);
      req.pause();
      stop(null);
    };
    const onEnd = () => stop(Buffer.concat(chunks));
    req.on("data", onData).on("end", onEnd).on("error", reject);
  });
}

/** GET through a Fetch Request (the route's loader, tests). */
export const webhookHandshake = (request: Request, accountId: string | undefined) => handshake(fromFetch(request), accountId);

/** POST through a Fetch Request (the route's action, tests). */
export const webhookCall = (request: Request, accountId: string | undefined) => accept(fromFetch(request), accountId);

type ExpressRequest = IncomingMessage & { params: Record<string, string>; protocol: string; originalUrl: string; get(name: string): string | undefined };

/**
 * The door served by Express itself (plugin.json `direct`): no Remix request, no route matching,
 * and an answer with its length (a streamed one was gzipped by `compression`, however short).
 */
export async function serveWebhook(req: ExpressRequest, res: ServerResponse) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const asks = method === "GET" || method === "HEAD";
  const call: DoorCall = {
    method,
    // the address the provider called, as Remix's adapter gives it (TRUST_PROXY decides the scheme)
    url: new URL(`${req.protocol}://${req.get("host")}${req.originalUrl}`),
    headers,
    body: async () => (tooLong(headers) ? null : nodeBody(req)),
  };
  // as the route's loader (GET, HEAD) and action (any other method) did
  const reply = asks ? await handshake(call, req.params.accountId) : await accept(call, req.params.accountId);
  const bytes = Buffer.from(await reply.arrayBuffer());
  res.statusCode = reply.status;
  reply.headers.forEach((value, name) => res.setHeader(name, value));
  res.setHeader("Content-Length", bytes.length);
  // a body left unread (too large) is not waited for: the connection closes after the answer
  if (!asks && !req.readableEnded) res.setHeader("Connection", "close");
  res.end(method === "HEAD" ? undefined : bytes, () => {
    if (!req.readableEnded) req.destroy();
  });
}
