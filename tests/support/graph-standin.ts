// A local stand-in for the part of Microsoft Graph (and the identity platform's token endpoint)
// the GRAPH_EMAIL adapter uses, answering as the documentation says they do:
//   POST /{tenant}/oauth2/v2.0/token          client credentials -> expiring bearer token (AADSTS errors)
//   GET  /v1.0/users/{upn}/mailFolders/inbox  the folder
//   GET  /v1.0/users/{upn}/mailFolders/inbox/messages/delta   pages (Prefer: odata.maxpagesize), nextLink, deltaLink
//   GET  /v1.0/users/{upn}/messages/{id}/$value               the MIME
//   POST /v1.0/users/{upn}/sendMail           base64 MIME in a text/plain body -> 202
// Errors in Graph's shape {"error": {"code", "message"}}: 401 for a missing, unknown or expired
// token, 404 for another mailbox, 410 for a delta token it never issued, 429 with Retry-After
// when told to throttle (throttle()) or past a request rate (requestsPerSecond).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, randomUUID } from "node:crypto";

export interface GraphStandin {
  /** Sign-in address (the account's loginUrl). */
  loginUrl: string;
  /** Graph address (the account's graphUrl). */
  graphUrl: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  mailbox: string;
  /** Puts a mail in the inbox; answers its Graph id. */
  addMessage(mime: string | Buffer, internetMessageId?: string | null): string;
  /** Mails sent through sendMail, decoded. */
  sent: Buffer[];
  /** Every request, as "METHOD path" (query left out), in order. */
  requests: string[];
  /** How many requests were answered 429. */
  throttled(): number;
  /** Tokens issued so far. */
  tokensIssued(): number;
  /** Makes every issued token expire now (the next Graph call answers 401). */
  expireTokens(): void;
  /** The next `count` Graph calls answer 429 with Retry-After: seconds. */
  throttle(count: number, retryAfterSeconds: number): void;
  /** The next sendMail answers this status and Graph error. */
  failNextSend(status: number, code: string, message: string): void;
  close(): Promise<void>;
}

interface Message {
  id: string;
  seq: number;
  internetMessageId: string | null;
  mime: Buffer;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const unb64url = <T>(token: string): T | undefined => {
  try {
    return JSON.parse(Buffer.from(token, "base64url").toString()) as T;
  } catch {
    return undefined;
  }
};

export async function startGraphStandin(options: { tokenTtlSeconds?: number; requestsPerSecond?: number; mailbox?: string } = {}): Promise<GraphStandin> {
  const tenantId = randomUUID();
  const clientId = randomUUID();
  const clientSecret = `standin~${randomBytes(12).toString("base64url")}`;
  const mailbox = options.mailbox ?? "support@contoso.example";
  const ttl = options.tokenTtlSeconds ?? 3599;
  const tokens = new Map<string, number>(); // token -> expiresAt
  const messages: Message[] = [];
  let seq = 0;
  let throttleLeft = 0;
  let throttleSeconds = 1;
  let throttledCount = 0;
  let sendFailure: { status: number; code: string; message: string } | undefined;
  const recent: number[] = [];
  const sent: Buffer[] = [];
  const requests: string[] = [];
  // delta tokens: only those issued are valid (a forged or forgotten one answers 410 as Graph does)
  const issuedDelta = new Set<string>();

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; odata.metadata=minimal", "request-id": randomUUID(), ...headers });
    res.end(JSON.stringify(body));
  };
  const graphFail = (res: http.ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { error: { code, message, innerError: { date: new Date().toISOString(), "request-id": randomUUID() } } }, headers);
  const readBody = (req: http.IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });

  function tokenEndpoint(res: http.ServerResponse, tenant: string, form: URLSearchParams) {
    const aad = (status: number, error: string, description: string) =>
      json(res, status, {
        error,
        error_description: `${description}\r\nTrace ID: ${randomUUID()}\r\nTimestamp: ${new Date().toISOString()}`,
        error_codes: [Number(description.slice(6, 13))],
      });
    if (tenant !== tenantId)
      return aad(400, "invalid_request", `AADSTS90002: Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID.`);
    if (form.get("grant_type") !== "client_credentials") return aad(400, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.");
    if (form.get("client_id") !== clientId)
      return aad(400, "unauthorized_client", `AADSTS700016: Application with identifier '${form.get("client_id")}' was not found in the directory.`);
    if (form.get("client_secret") !== clientSecret)
      return aad(
        401,
        "invalid_client",
        "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.",
      );
    if (form.get("scope") !== "https://graph.microsoft.com/.default")
      return aad(400, "invalid_scope", `AADSTS1002012: The provided value for scope ${form.get("scope")} is not valid.`);
    const token = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${b64url({ aud: "https://graph.microsoft.com", tid: tenantId, appid: clientId })}.${randomBytes(32).toString("base64url")}`;
    tokens.set(token, Date.now() + ttl * 1000);
    json(res, 200, { token_type: "Bearer", expires_in: ttl, ext_expires_in: ttl, access_token: token });
  }

  function deltaPage(res: http.ServerResponse, url: URL, prefer: string | undefined) {
    const pageSize = Math.min(Number(/odata\.maxpagesize=(\d+)/.exec(prefer ?? "")?.[1]) || 10, 1000);
    const deltaLinkBase = `${base}/v1.0/users/${encodeURIComponent(mailbox)}/mailFolders/inbox/messages/delta`;
    // a round: the messages after `since` up to `upto` (what existed when the round began), from `after`
    let state: { since: number; upto: number; after: number };
    const skip = url.searchParams.get("$skiptoken");
    const delta = url.searchParams.get("$deltatoken");
    if (skip || delta) {
      const token = (skip || delta)!;
      const parsed = unb64url<{ since: number; upto?: number; after?: number }>(token);
      if (!issuedDelta.has(token) || !parsed)
        return graphFail(res, 410, "SyncStateNotFound", "The sync state generation is not found. Please do a full sync by calling delta without any token.");
      state = delta ? { since: parsed.since, upto: seq, after: parsed.since } : { since: parsed.since, upto: parsed.upto!, after: parsed.after! };
    } else {
      state = { since: 0, upto: seq, after: 0 };
    }
    const page = messages.filter((m) => m.seq > state.after && m.seq <= state.upto).slice(0, pageSize);
    const last = page.at(-1)?.seq ?? state.upto;
    const more = messages.some((m) => m.seq > last && m.seq <= state.upto);
    const body: Record<string, unknown> = {
      "@odata.context": `${base}/v1.0/$metadata#Collection(message)`,
      value: page.map((m) => ({ "@odata.type": "#microsoft.graph.message", "@odata.etag": `W/"${m.seq}"`, id: m.id, internetMessageId: m.internetMessageId })),
    };
    if (more) {
      const token = b64url({ since: state.since, upto: state.upto, after: last });
      issuedDelta.add(token);
      body["@odata.nextLink"] = `${deltaLinkBase}?$skiptoken=${token}`;
    } else {
      const token = b64url({ since: state.upto, n: randomBytes(4).toString("hex") });
      issuedDelta.add(token);
      body["@odata.deltaLink"] = `${deltaLinkBase}?$deltatoken=${token}`;
    }
    json(res, 200, body, { "preference-applied": `odata.maxpagesize=${pageSize}` });
  }

  server.on("request", async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", base);
      requests.push(`${req.method} ${decodeURIComponent(url.pathname)}`);
      const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
      if (tokenPath && req.method === "POST")
        return tokenEndpoint(res, decodeURIComponent(tokenPath[1]), new URLSearchParams((await readBody(req)).toString()));

      const graph = /^\/v1\.0\/users\/([^/]+)(\/.*)$/.exec(url.pathname);
      if (!graph) return graphFail(res, 400, "BadRequest", `Resource not found for the segment '${url.pathname.split("/")[2] ?? ""}'.`);
      // auth before anything else, as Graph does
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const expiresAt = bearer ? tokens.get(bearer) : undefined;
      if (!bearer || expiresAt === undefined)
        return graphFail(res, 401, "InvalidAuthenticationToken", bearer ? "IDX14100: JWT is not well formed." : "Access token is empty.", {
          "www-authenticate": 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize"',
        });
      if (expiresAt <= Date.now()) return graphFail(res, 401, "InvalidAuthenticationToken", "Lifetime validation failed, the token is expired.");
      // throttling: on demand, or past the request rate
      const now = Date.now();
      while (recent.length && recent[0] < now - 1000) recent.shift();
      recent.push(now);
      if (throttleLeft > 0 || (options.requestsPerSecond && recent.length > options.requestsPerSecond)) {
        if (throttleLeft > 0) throttleLeft--;
        throttledCount++;
        return graphFail(res, 429, "TooManyRequests", "Application is over its MailboxConcurrency limit.", { "retry-after": String(throttleSeconds) });
      }
      const user = decodeURIComponent(graph[1]);
      if (user.toLowerCase() !== mailbox.toLowerCase()) return graphFail(res, 404, "ErrorInvalidUser", `The requested user '${user}' is invalid.`);
      const rest = decodeURIComponent(graph[2]);

      if (req.method === "GET" && rest === "/mailFolders/inbox")
        return json(res, 200, { id: "AAMkInbox", displayName: "Inbox", totalItemCount: messages.length, unreadItemCount: messages.length });
      if (req.method === "GET" && rest === "/mailFolders/inbox/messages/delta") return deltaPage(res, url, req.headers.prefer as string | undefined);
      const value = /^\/messages\/([^/]+)\/\$value$/.exec(rest);
      if (req.method === "GET" && value) {
        const m = messages.find((x) => x.id === value[1]);
        if (!m) return graphFail(res, 404, "ErrorItemNotFound", "The specified object was not found in the store.");
        res.writeHead(200, { "content-type": "text/plain", "content-length": String(m.mime.length) });
        return res.end(m.mime);
      }
      if (req.method === "POST" && rest === "/sendMail") {
        const body = (await readBody(req)).toString();
        if (!/^text\/plain/i.test(req.headers["content-type"] ?? ""))
          return graphFail(res, 400, "ErrorInvalidRequest", "Cannot process input of abstract type 'Microsoft.OutlookServices.Message'");
        const compact = body.replace(/\s+/g, "");
        if (!compact || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact))
          return graphFail(res, 400, "ErrorMimeContentInvalidBase64String", "Invalid base64 string for MIME content.");
        if (sendFailure) {
          const f = sendFailure;
          sendFailure = undefined;
          return graphFail(res, f.status, f.code, f.message);
        }
        const mime = Buffer.from(compact, "base64");
        if (!/^[\x21-\x39\x3b-\x7e]+:/m.test(mime.toString("latin1"))) return graphFail(res, 400, "ErrorMimeContentInvalid", "The MIME content is invalid.");
        sent.push(mime);
        res.writeHead(202, { "request-id": randomUUID() });
        return res.end();
      }
      graphFail(res, 400, "BadRequest", `Unsupported request: ${req.method} ${rest}`);
    } catch (error) {
      graphFail(res, 500, "InternalServerError", String(error));
    }
  });

  return {
    loginUrl: base,
    graphUrl: `${base}/v1.0`,
    tenantId,
    clientId,
    clientSecret,
    mailbox,
    addMessage(mime, internetMessageId) {
      const bytes = Buffer.isBuffer(mime) ? mime : Buffer.from(mime);
      const id = `AAMkAG${randomBytes(24).toString("base64url")}=`;
      const found = internetMessageId === undefined ? (/^Message-ID:\s*(<[^>]+>)/im.exec(bytes.toString("latin1"))?.[1] ?? null) : internetMessageId;
      messages.push({ id, seq: ++seq, internetMessageId: found, mime: bytes });
      return id;
    },
    sent,
    requests,
    tokensIssued: () => tokens.size,
    throttled: () => throttledCount,
    expireTokens() {
      for (const key of tokens.keys()) tokens.set(key, 0);
    },
    throttle(count, retryAfterSeconds) {
      throttleLeft = count;
      throttleSeconds = retryAfterSeconds;
    },
    failNextSend(status, code, message) {
      sendFailure = { status, code, message };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
