// X (Twitter) through the twitter-api-v2 SDK: it signs every call with OAuth 1.0a user context (the
// account's consumer key and secret, access token and secret) or sends a user's OAuth 2.0 bearer
// token, and speaks the v2 endpoints we use (DM send, post create, chunked media upload, users/me).
// The SDK's address is fixed (https://api.x.com/2/): the v2 client is given the account's apiBase
// instead, so tests reach the stand-in. Webhooks (Account Activity API) are signed with the
// consumer secret: the CRC answer and x-twitter-webhooks-signature are both its HMAC-SHA256.
import http from "node:http";
import { TwitterApi, type TwitterApiv2 } from "twitter-api-v2";
import type { ChannelAccount, WebhookRequest } from "@plugins/channels/adapter";
import { hmac, sameSignature } from "@plugins/channels/signatures.server";
import { PermanentFailure } from "~/jobs/queue.server";
import { rateLimited } from "@plugins/channels/rate-limit.server";
import { providerFileAddress } from "@plugins/channels/media.server";

export const API_BASE = "https://api.x.com";
const CALL_MS = 30_000;
const MEDIA_MS = 120_000;

export const apiBase = (account: ChannelAccount) => (account.config.apiBase || API_BASE).trim().replace(/\/+$/, "");

/** The account's v2 client: OAuth 1.0a when an access token and its secret are set, else the user's bearer token. */
export function client(account: ChannelAccount): TwitterApiv2 {
  const s = account.secrets;
  const base = apiBase(account);
  // the SDK makes its calls with https.request, which takes a plain-http address only with an http agent
  const settings = base.startsWith("http:") ? { httpAgent: new http.Agent() } : {};
  const api =
    s.accessToken && s.accessTokenSecret
      ? new TwitterApi(
          { appKey: account.config.consumerKey ?? "", appSecret: s.consumerSecret ?? "", accessToken: s.accessToken, accessSecret: s.accessTokenSecret },
          settings,
        )
      : new TwitterApi(s.userBearerToken ?? "", settings);
  const v2 = api.v2;
  (v2 as unknown as { setPrefix(prefix: string): void }).setPrefix(`${base}/2/`);
  return v2;
}

/** The CRC answer: X's GET with crc_token, answered {"response_token": "sha256=" + base64 HMAC-SHA256(consumer secret, token)}. */
export function crcAnswer(request: WebhookRequest, consumerSecret: string | undefined) {
  const token = request.url.searchParams.get("crc_token");
  if (!token || !consumerSecret) return new Response("crc_token missing", { status: 400 });
  return Response.json({ response_token: `sha256=${hmac("sha256", consumerSecret, token, "base64")}` });
}

/** x-twitter-webhooks-signature: "sha256=" + base64 HMAC-SHA256 of the exact body with the consumer secret. */
export function verifyXSignature(request: WebhookRequest, consumerSecret: string | undefined) {
  const given = request.headers.get("x-twitter-webhooks-signature");
  if (!consumerSecret || !given) return false;
  return sameSignature(given, `sha256=${hmac("sha256", consumerSecret, request.rawBody, "base64")}`);
}

interface XErrorBody {
  title?: string;
  detail?: string;
  errors?: { code?: number; message?: string }[];
}

/** X's words: a v2 problem's detail (with its per-parameter errors), or v1.1's errors [{code, message}]. */
export function describeXError(data: unknown, status: number) {
  // a download's refusal comes as the bytes it asked for
  let body = data;
  if (Buffer.isBuffer(data)) {
    try {
      body = JSON.parse(data.toString("utf8"));
    } catch {
      body = data.toString("utf8");
    }
  }
  const b = (body && typeof body === "object" ? body : {}) as XErrorBody;
  const listed = (b.errors ?? []).filter((e) => e?.message).map((e) => (e.code ? `${e.message} (code ${e.code})` : e.message!));
  const head = b.detail || b.title;
  if (head) return listed.length ? `${head} (${listed.join("; ")})` : head;
  if (listed.length) return listed.join("; ");
  return typeof body === "string" && body.trim() ? body.trim().slice(0, 300) : `HTTP ${status}`;
}

/** The SDK's ApiResponseError and ApiRequestError, by shape (server.ts and the Remix build bundle their own copies). */
interface XResponseError {
  type: "response";
  code: number;
  data: unknown;
  headers: Record<string, string | string[] | undefined>;
}
const isResponseError = (e: unknown): e is XResponseError => (e as XResponseError)?.type === "response" && typeof (e as XResponseError).code === "number";
const isRequestError = (e: unknown): e is { type: "request"; requestError?: { code?: string; message?: string } } =>
  (e as { type?: string })?.type === "request";

/**
 * A refusal as the job queue needs it: 429 waits until X's x-rate-limit-reset (epoch seconds; no
 * attempt used), other 4xx are final in X's words (401/403: the credentials or the permission), 5xx
 * and network trouble are tried again with backoff.
 */
export function xFailure(error: unknown): Error {
  if (isResponseError(error)) {
    const words = describeXError(error.data, error.code).slice(0, 500);
    if (error.code === 429) {
      const reset = Number(error.headers["x-rate-limit-reset"]);
      const wait = Number.isFinite(reset) && reset > 0 ? reset * 1000 - Date.now() : 60_000;
      return rateLimited(words, Math.max(wait, 1000));
    }
    if (error.code >= 400 && error.code < 500 && error.code !== 408) return new PermanentFailure(words);
    return new Error(words);
  }
  if (isRequestError(error)) return new Error(`X could not be reached: ${error.requestError?.code || error.requestError?.message || "network error"}`);
  return error instanceof Error ? error : new Error(String(error));
}

/** A call to X, given up after `ms`, its refusals mapped by xFailure. */
export async function xCall<T>(run: () => Promise<T>, ms = CALL_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      run(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`X did not answer within ${ms / 1000} seconds`)), ms))),
    ]);
  } catch (error) {
    throw xFailure(error);
  } finally {
    clearTimeout(timer);
  }
}

/** A DM's picture, GIF or video (or a post's): its URL must be fetched with the account's OAuth signature, as X documents for DM media. */
/** Where X's events point for a customer's file: DM media on ton.twitter.com (signed calls), posts' media on twimg.com. */
export const X_FILE_HOSTS = ["ton.twitter.com", "ton.x.com", "twimg.com"] as const;

export async function downloadXMedia(account: ChannelAccount, url: string) {
  // the call is signed with the account's keys: only to X's own file hosts (or the account's API address)
  providerFileAddress(url, X_FILE_HOSTS, apiBase(account));
  return xCall(async () => {
    const response = await client(account).get<Buffer>(url, undefined, { prefix: "", forceParseMode: "buffer", fullResponse: true });
    const type = String(response.headers["content-type"] ?? "")
      .split(";")[0]
      .trim();
    if (!response.data?.length) throw new Error("X answered the media download without its bytes");
    return { bytes: response.data, mime: type || "application/octet-stream" };
  }, MEDIA_MS);
}

/** Uploads a file with the v2 chunked media upload (initialize, append, finalize); its media id. */
export async function uploadXMedia(account: ChannelAccount, bytes: Buffer, mime: string, category: string) {
  return xCall(() => client(account).uploadMedia(bytes, { media_type: mime as never, media_category: category as never }), MEDIA_MS);
}
