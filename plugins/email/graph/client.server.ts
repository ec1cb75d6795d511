// A Microsoft Graph client for one GRAPH_EMAIL account, as Graph documents it: an app-only token
// from the identity platform (client credentials, scope https://graph.microsoft.com/.default),
// kept until shortly before it expires; a 401 fetches a new one once (revoked or expired early);
// a 429 (throttled) or 503 waits what Retry-After says and tries again a few times.
import { createHash } from "node:crypto";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { retryAfterMs } from "~/jobs/retry-after";

export const DEFAULT_GRAPH_URL = "https://graph.microsoft.com/v1.0";
export const DEFAULT_LOGIN_URL = "https://login.microsoftonline.com";
const RETRIES = 4;
/** The longest Retry-After honoured in one wait; longer ones fail the attempt (the caller retries later). */
const MAX_WAIT_MS = 120_000;

/** An error answer from Graph or the token endpoint: the HTTP status and Graph's code and message. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
  /** Trying again later can help (throttled, Graph unwell); anything else in 4xx cannot. */
  get retryable() {
    return this.status === 429 || this.status >= 500;
  }
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

export const graphUrl = (account: ChannelAccount) => trimSlash(account.config.graphUrl || DEFAULT_GRAPH_URL);
export const mailboxPath = (account: ChannelAccount) => `${graphUrl(account)}/users/${encodeURIComponent(account.address)}`;

const tokens = new Map<string, { token: string; expiresAt: number }>();

function tokenCacheKey(account: ChannelAccount) {
  const { tenantId, clientId, loginUrl } = account.config;
  const secret = createHash("sha256")
    .update(account.secrets.clientSecret ?? "")
    .digest("hex");
  return `${loginUrl || DEFAULT_LOGIN_URL}|${tenantId}|${clientId}|${secret}`;
}

async function fetchToken(account: ChannelAccount) {
  const login = trimSlash(account.config.loginUrl || DEFAULT_LOGIN_URL);
  const response = await fetch(`${login}/${encodeURIComponent(account.config.tenantId ?? "")}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: account.config.clientId ?? "",
      client_secret: account.secrets.clientSecret ?? "",
      scope: "https://graph.microsoft.com/.default",
      grant_type: "client_credentials",
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
  if (!response.ok || !body.access_token) {
    // the identity platform's words (AADSTS... codes) tell the admin what is wrong
    const text = body.error_description?.split(/\r?\n/)[0] || body.error || `HTTP ${response.status}`;
    throw new GraphError(response.status === 429 || response.status >= 500 ? response.status : 401, body.error || "token", `Microsoft sign-in failed: ${text}`);
  }
  return { token: body.access_token, expiresAt: Date.now() + Math.max(0, (Number(body.expires_in) || 3600) - 60) * 1000 };
}

async function token(account: ChannelAccount, fresh = false) {
  const key = tokenCacheKey(account);
  const cached = tokens.get(key);
  if (!fresh && cached && cached.expiresAt > Date.now()) return cached.token;
  const got = await fetchToken(account);
  tokens.set(key, got);
  return got.token;
}

/** Graph's error shape: {"error": {"code", "message"}}. */
async function graphError(response: Response) {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  const code = body.error?.code ?? `HTTP${response.status}`;
  return new GraphError(response.status, code, `Microsoft Graph: ${body.error?.message || response.statusText || code} (${code})`);
}

/** What Retry-After says, else (no hint) an exponential backoff as Graph's guidance says. */
const waitBeforeRetry = (response: Response, attempt: number) => retryAfterMs(response.headers.get("retry-after")) ?? Math.min(1000 * 2 ** attempt, 30_000);

export interface GraphRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A Graph call (a path under the mailbox, or a full URL such as a nextLink); answers the OK
 * response, else throws GraphError. The body is not read: a $value streams.
 */
export async function graphFetch(account: ChannelAccount, pathOrUrl: string, request: GraphRequest = {}): Promise<Response> {
  const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${mailboxPath(account)}${pathOrUrl}`;
  let refreshed = false;
  for (let attempt = 0; ; attempt++) {
    const bearer = await token(account);
    const response = await fetch(url, {
      method: request.method ?? "GET",
      headers: { ...request.headers, authorization: `Bearer ${bearer}` },
      body: request.body,
    });
    if (response.ok) return response;
    if (response.status === 401 && !refreshed) {
      // expired or revoked before we thought: one new token, then Graph's answer stands
      refreshed = true;
      await response.body?.cancel();
      await token(account, true);
      continue;
    }
    if ((response.status === 429 || response.status === 503) && attempt < RETRIES) {
      const wait = waitBeforeRetry(response, attempt);
      if (wait <= MAX_WAIT_MS) {
        await response.body?.cancel();
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
    }
    throw await graphError(response);
  }
}

/** Gets a token and reads the mailbox's inbox folder (the admin's Test button). */
export async function testGraph(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const response = await graphFetch(account, "/mailFolders/inbox?$select=id,displayName");
    await response.body?.cancel();
    return { ok: true };
  } catch (error) {
    return { ok: false, error: describeGraphError(error) };
  }
}

export function describeGraphError(error: unknown) {
  if (error instanceof GraphError) return error.message;
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return `Microsoft Graph could not be reached: ${cause || (error as Error)?.message || String(error)}`;
}

/** Forgets cached tokens (tests). */
export function forgetGraphTokens() {
  tokens.clear();
}
