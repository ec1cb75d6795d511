// Mobile push through Firebase Cloud Messaging, HTTP v1 API: POST {FCM_ENDPOINT}/v1/projects/
// {project}/messages:send with {message: {token, notification, data, android, apns}}, authorised by
// an OAuth2 access token that the service account (FCM_SERVICE_ACCOUNT: a path to its JSON key, or
// the JSON itself) gets from its token_uri by the JWT bearer grant (RFC 7523: a JWT signed RS256
// with the account's key, scope firebase.messaging). The token is kept until a minute before it
// expires; a 401 drops it, and the send is tried once more with a new one.
//
// This file is the transport only; the durable job that sends one notification to one device
// (runFcmPush, push.server.ts) decides what an answer means for the device's token.
import fs from "node:fs";
import { importPKCS8, SignJWT } from "jose";
import { z } from "zod";
import { retryAfterMs } from "~/jobs/retry-after";

const SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
const DEFAULT_ENDPOINT = "https://fcm.googleapis.com";
/** An access token is renewed this long before its expiry (a send must not race its end). */
export const TOKEN_MARGIN_MS = 60_000;

const serviceAccount = z.object({
  project_id: z.string().min(1),
  client_email: z.string().min(1),
  private_key: z.string().includes("PRIVATE KEY"),
  private_key_id: z.string().optional(),
  token_uri: z.string().url().default(DEFAULT_TOKEN_URI),
});
export type FcmServiceAccount = z.infer<typeof serviceAccount>;

export interface FcmConfig {
  account: FcmServiceAccount;
  /** The API's base URL (FCM_ENDPOINT; tests point it at the stand-in). */
  endpoint: string;
}

let configCache: { source: string; endpoint: string; config: FcmConfig | null } | undefined;

/**
 * The configuration from FCM_SERVICE_ACCOUNT and FCM_ENDPOINT, or null when mobile push is not set
 * up (or the account cannot be read: said once in the log, and the product goes on without it).
 */
export function fcmConfig(): FcmConfig | null {
  const source = (process.env.FCM_SERVICE_ACCOUNT ?? "").trim();
  const endpoint = (process.env.FCM_ENDPOINT || DEFAULT_ENDPOINT).replace(/\/+$/, "");
  if (configCache && configCache.source === source && configCache.endpoint === endpoint) return configCache.config;
  let config: FcmConfig | null = null;
  if (source) {
    try {
      const text = source.startsWith("{") ? source : fs.readFileSync(source, "utf8");
      config = { account: serviceAccount.parse(JSON.parse(text)), endpoint };
    } catch (error) {
      console.warn(`fcm: FCM_SERVICE_ACCOUNT cannot be read as a service account key: ${(error as Error).message.slice(0, 200)}`);
    }
  }
  configCache = { source, endpoint, config };
  accessTokenCache = undefined;
  return config;
}

export const fcmConfigured = () => fcmConfig() !== null;

let accessTokenCache: { token: string; expiresAt: number; account: string } | undefined;

/** Tests: forget the access token (and the configuration read from the environment). */
export function forgetFcmState() {
  accessTokenCache = undefined;
  configCache = undefined;
}

/** The OAuth2 access token: the kept one while it has more than a minute left, else a new one. */
export async function fcmAccessToken(config: FcmConfig, options: { renew?: boolean } = {}) {
  const { account } = config;
  const now = Date.now();
  const cached = accessTokenCache;
  if (!options.renew && cached && cached.account === account.client_email && cached.expiresAt - TOKEN_MARGIN_MS > now) return cached.token;
  const key = await importPKCS8(account.private_key, "RS256");
  const iat = Math.floor(now / 1000);
  const assertion = await new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 3600)
    .sign(key);
  const res = await fetch(account.token_uri, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
  if (!res.ok || !body.access_token) {
    throw new FcmError(
      `fcm: the token endpoint refused the service account: ${res.status} ${body.error ?? ""} ${body.error_description ?? ""}`.trim(),
      res.status,
    );
  }
  const expiresIn = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
  accessTokenCache = { token: body.access_token, expiresAt: now + expiresIn * 1000, account: account.client_email };
  return body.access_token;
}

/** An FCM v1 message (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages). */
export interface FcmMessage {
  token: string;
  notification?: { title?: string; body?: string; image?: string };
  /** String values only (the API refuses others). */
  data?: Record<string, string>;
  android?: Record<string, unknown>;
  apns?: Record<string, unknown>;
}

/** A refused send: the HTTP status, FCM's error code (FcmError detail), and Retry-After in ms. */
export class FcmError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly errorCode: string = "",
    readonly retryAfterMs: number | null = null,
    /** The request's field the API named as wrong (google.rpc.BadRequest), "message.token" for a bad token. */
    readonly fields: string[] = [],
  ) {
    super(message);
  }
  /** The device's token will never work again: forget it (UNREGISTERED, or an INVALID_ARGUMENT about the token). */
  get tokenGone() {
    if (this.errorCode === "UNREGISTERED") return true;
    if (this.errorCode !== "INVALID_ARGUMENT" && this.status !== 400) return false;
    return this.fields.includes("message.token") || /registration token/i.test(this.message);
  }
}

async function post(config: FcmConfig, message: FcmMessage, accessToken: string) {
  return fetch(`${config.endpoint}/v1/projects/${encodeURIComponent(config.account.project_id)}/messages:send`, {
    method: "POST",
    headers: { "Content-Type": "application/json; charset=utf-8", Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ message }),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Sends one message; answers the message's name (projects/.../messages/...), throws FcmError on a refusal. */
export async function sendFcmMessage(config: FcmConfig, message: FcmMessage): Promise<string> {
  let res = await post(config, message, await fcmAccessToken(config));
  // the token was revoked or expired early: one new token, one more try
  if (res.status === 401) res = await post(config, message, await fcmAccessToken(config, { renew: true }));
  const body = (await res.json().catch(() => ({}))) as {
    name?: string;
    error?: { code?: number; message?: string; status?: string; details?: { "@type"?: string; errorCode?: string; fieldViolations?: { field?: string }[] }[] };
  };
  if (res.ok) return body.name ?? "";
  const details = body.error?.details ?? [];
  const errorCode = details.find((d) => d.errorCode)?.errorCode ?? body.error?.status ?? "";
  const fields = details.flatMap((d) => (d.fieldViolations ?? []).map((f) => f.field ?? "")).filter(Boolean);
  throw new FcmError(
    `fcm: ${res.status} ${errorCode} ${body.error?.message ?? ""}`.trim(),
    res.status,
    errorCode,
    retryAfterMs(res.headers.get("retry-after")),
    fields,
  );
}
