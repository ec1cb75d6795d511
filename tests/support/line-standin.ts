// A local stand-in for the part of the LINE Messaging API the LINE_DM adapter uses, answering as
// LINE's reference documents (https://developers.line.biz/en/reference/messaging-api/):
//   api (apiUrl)
//     POST /v2/bot/message/reply      {replyToken, messages}: a token it issued with a webhook, used once, fresh
//     POST /v2/bot/message/push       {to, messages} + X-Line-Retry-Key: a key accepted before -> 409 with sentMessages
//     GET  /v2/bot/profile/{userId}   {displayName, userId, pictureUrl, language}; 404 for a user who is no friend
//     GET  /v2/bot/info               {userId, basicId, displayName, chatMode, markAsReadMode}
//   data (dataUrl, a listener of its own as api-data.line.me is)
//     GET  /v2/bot/message/{id}/content   the bytes; 202 while a video is being prepared; 404 unknown
// Picture, video and audio messages name https addresses LINE fetches: the stand-in fetches them
// when it accepts the send (plain http only from this machine, where tests cannot have TLS) and keeps
// what it got in `fetched`; bots cannot send "file" messages.
// Errors in LINE's shape {"message", "details": [{"message", "property"}]}: 401 for a wrong bearer
// token, 400 for bad requests, 429 when told to throttle (with Retry-After when asked), 500 when told.
// Webhooks: signed as LINE signs them (x-line-signature: base64 HMAC-SHA256 of the body with the
// channel secret), as a Request for the product's route function or POSTed to a URL.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomBytes, randomUUID } from "node:crypto";

type Json = Record<string, unknown>;
export interface SentRequest {
  api: "reply" | "push";
  to: string;
  messages: Json[];
  retryKey: string | null;
  ids: string[];
}
export interface FetchedFile {
  url: string;
  status: number;
  type: string;
  disposition: string;
  bytes: Buffer;
}
export interface Failure {
  status: number;
  body: Json;
  headers?: Record<string, string>;
  /** Take the request (it counts as sent) and answer the failure anyway, as a lost answer looks. */
  afterAccepting?: boolean;
}

export interface LineStandin {
  apiUrl: string;
  dataUrl: string;
  channelSecret: string;
  channelAccessToken: string;
  botUserId: string;
  /** Messages the stand-in accepted, in order. */
  sent: SentRequest[];
  /** Every request, as "METHOD path". */
  requests: string[];
  /** What LINE fetched for picture, video and audio messages it accepted, in order. */
  fetched: FetchedFile[];
  /** A LINE user with a profile (a friend of the account); answers their user id. */
  addUser(displayName: string): string;
  /** Content for a message id (what the data API serves). */
  addContent(messageId: string, bytes: Buffer, contentType: string): void;
  /** The next `count` content requests for this message answer 500, or 202 while still being prepared. */
  failContent(messageId: string, count: number, status?: 500 | 202): void;
  /** Every reply token issued so far is past its life (LINE answers "Invalid reply token"). */
  expireReplyTokens(): void;
  /** The next send (reply or push) answers this. */
  failNextSend(failure: Failure): void;
  /** The next `count` sends answer 429 (with Retry-After when seconds are given). */
  throttle(count: number, retryAfterSeconds?: number): void;
  /** A customer's text message event (its reply token issued now, valid for replyTokenMs). */
  textEvent(userId: string, text: string, options?: EventOptions): Json;
  /** A picture, video, audio or file message event; its content is served when added with addContent. */
  mediaEvent(userId: string, type: "image" | "video" | "audio" | "file", options?: EventOptions & { fileName?: string; fileSize?: number }): Json;
  /** Any other event (follow, unfollow, postback, a group's message). */
  otherEvent(event: Json): Json;
  /** The same event redelivered: same webhookEventId, deliveryContext.isRedelivery true. */
  redelivered(event: Json): Json;
  /** A webhook call carrying these events, as LINE sends it; `signature` "none" leaves the header out, "wrong" signs with another secret. */
  webhook(url: string, events: Json[], options?: { signature?: "valid" | "none" | "wrong" }): Request;
  /** The same call POSTed over HTTP (a running product); answers its status. */
  deliver(url: string, events: Json[]): Promise<number>;
  close(): Promise<void>;
}

interface EventOptions {
  /** When the customer sent it (ms); default now. */
  at?: number;
  messageId?: string;
}

const digits = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 10)).join("");
const hex = (bytes: number) => randomBytes(bytes).toString("hex");
/** Webhook event ids are ULIDs: 26 characters of Crockford base32. */
const ulid = () => Array.from(randomBytes(26), (b) => "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[b % 32]).join("");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function startLineStandin(options: { replyTokenMs?: number } = {}): Promise<LineStandin> {
  const channelSecret = hex(16);
  const channelAccessToken =
    randomBytes(128)
      .toString("base64")
      .replace(/[^A-Za-z0-9]/g, "")
      .slice(0, 172) + "=";
  const botUserId = `U${hex(16)}`;
  const replyTokenMs = options.replyTokenMs ?? 60_000;
  const users = new Map<string, string>();
  const content = new Map<string, { bytes: Buffer; type: string }>();
  const contentFailures = new Map<string, { count: number; status: number }>();
  const replyTokens = new Map<string, { issuedAt: number; used: boolean; userId: string }>();
  const retryKeys = new Map<string, { requestId: string; ids: string[] }>();
  const sent: SentRequest[] = [];
  const requests: string[] = [];
  const fetched: FetchedFile[] = [];
  let nextFailure: Failure | undefined;
  let throttleLeft = 0;
  let throttleSeconds: number | undefined;

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", "x-line-request-id": randomUUID(), ...headers });
    res.end(JSON.stringify(body));
  };
  const fail = (
    res: http.ServerResponse,
    status: number,
    message: string,
    details?: { message: string; property: string }[],
    headers?: Record<string, string>,
  ) => json(res, status, details ? { message, details } : { message }, headers);
  const readBody = async (req: http.IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const authorised = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.headers.authorization === `Bearer ${channelAccessToken}`) return true;
    fail(res, 401, "Authentication failed. Confirm that the access token in the authorization header is valid.");
    return false;
  };

  /** The messages of a send, checked as LINE checks them; a refusal answered, else null. */
  function badMessages(res: http.ServerResponse, messages: unknown) {
    if (!Array.isArray(messages) || messages.length < 1 || messages.length > 5) {
      fail(res, 400, "The request body has 1 error(s)", [{ message: "Size must be between 1 and 5", property: "messages" }]);
      return true;
    }
    const invalid = (message: string, property: string) => {
      fail(res, 400, "The request body has 1 error(s)", [{ message, property }]);
      return true;
    };
    for (const [i, m] of (messages as Json[]).entries()) {
      if (!["text", "image", "video", "audio", "location", "sticker", "imagemap", "template", "flex"].includes(String(m?.type)))
        return invalid("must be one of [text, image, video, audio, location, sticker, imagemap, template, flex]", `messages[${i}].type`);
      const urls = m.type === "image" || m.type === "video" ? ["originalContentUrl", "previewImageUrl"] : m.type === "audio" ? ["originalContentUrl"] : [];
      for (const field of urls) {
        if (m[field] === undefined) return invalid("must be specified", `messages[${i}].${field}`);
        if (!publicAddress(String(m[field]))) return invalid("must be a valid HTTPS URL", `messages[${i}].${field}`);
      }
      if (m.type === "audio" && !(Number(m.duration) > 0)) return invalid("must be specified", `messages[${i}].duration`);
      if (m?.type !== "text") continue;
      const length = Array.from(String(m.text ?? "")).length;
      if (length < 1 || length > 5000) {
        fail(res, 400, "The request body has 1 error(s)", [{ message: "Length must be between 0 and 5000", property: `messages[${i}].text` }]);
        return true;
      }
    }
    return false;
  }

  /** https, at most 2,000 characters; plain http only on this machine (the tests' servers). */
  const publicAddress = (value: string) => {
    if (value.length > 2000) return false;
    try {
      const url = new URL(value);
      return url.protocol === "https:" || (url.protocol === "http:" && ["127.0.0.1", "localhost"].includes(url.hostname));
    } catch {
      return false;
    }
  };

  /** Fetches every address of accepted messages, as LINE does to show them. */
  async function fetchContent(messages: Json[]) {
    for (const m of messages)
      for (const field of ["originalContentUrl", "previewImageUrl"]) {
        if (typeof m[field] !== "string") continue;
        const url = String(m[field]);
        const response = await fetch(url, { redirect: "manual" });
        fetched.push({
          url,
          status: response.status,
          type: response.headers.get("content-type") ?? "",
          disposition: response.headers.get("content-disposition") ?? "",
          bytes: Buffer.from(await response.arrayBuffer()),
        });
      }
  }

  /** A failure the test asked for, answered instead of the send; "afterAccepting" lets the send happen first. */
  function injected(res: http.ServerResponse, accept: () => void) {
    if (throttleLeft > 0) {
      throttleLeft--;
      fail(res, 429, "The API rate limit has been exceeded. Try again later.", undefined, throttleSeconds ? { "retry-after": String(throttleSeconds) } : {});
      return true;
    }
    if (!nextFailure) return false;
    const failure = nextFailure;
    nextFailure = undefined;
    if (failure.afterAccepting) accept();
    json(res, failure.status, failure.body, failure.headers);
    return true;
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    if (!authorised(req, res)) return;
    if (req.method === "GET" && path === "/v2/bot/info")
      return json(res, 200, { userId: botUserId, basicId: "@123abcde", displayName: "Omnidesk Stand-in", chatMode: "chat", markAsReadMode: "manual" });
    const profile = /^\/v2\/bot\/profile\/([^/]+)$/.exec(path);
    if (req.method === "GET" && profile) {
      const name = users.get(decodeURIComponent(profile[1]));
      if (name === undefined) return fail(res, 404, "Not found");
      return json(res, 200, { displayName: name, userId: profile[1], pictureUrl: `https://profile.line-scdn.net/${hex(8)}`, language: "en" });
    }
    if (req.method !== "POST" || (path !== "/v2/bot/message/reply" && path !== "/v2/bot/message/push")) return fail(res, 404, "Not found");
    let body: Json;
    try {
      body = JSON.parse((await readBody(req)).toString("utf8"));
    } catch {
      return fail(res, 400, "The request body could not be parsed as JSON");
    }
    if (badMessages(res, body.messages)) return;
    const messages = body.messages as Json[];
    await fetchContent(messages);
    const record = (kind: SentRequest["api"], to: string, retryKey: string | null) => {
      const ids = messages.map(() => digits(18));
      sent.push({ api: kind, to, messages, retryKey, ids });
      return ids;
    };
    const answer = (ids: string[]) => json(res, 200, { sentMessages: ids.map((id) => ({ id, quoteToken: hex(20) })) });

    if (path === "/v2/bot/message/reply") {
      if (req.headers["x-line-retry-key"]) return fail(res, 400, "The retry key is not supported by this API");
      const token = replyTokens.get(String(body.replyToken ?? ""));
      if (!token || token.used || Date.now() - token.issuedAt > replyTokenMs) return fail(res, 400, "Invalid reply token");
      token.used = true; // spent whatever comes next, as LINE's are
      if (injected(res, () => record("reply", token.userId, null))) return;
      return answer(record("reply", token.userId, null));
    }
    const key = req.headers["x-line-retry-key"];
    const retryKey = typeof key === "string" ? key : null;
    if (retryKey !== null && !UUID.test(retryKey)) return fail(res, 400, "The value for the 'X-Line-Retry-Key' header is invalid");
    const to = String(body.to ?? "");
    if (!/^U[0-9a-f]{32}$/.test(to)) return fail(res, 400, "The property, 'to', in the request body is invalid (line: -, column: -)");
    const accepted = retryKey ? retryKeys.get(retryKey) : undefined;
    if (accepted)
      return json(
        res,
        409,
        { message: "The retry key is already accepted", sentMessages: accepted.ids.map((id) => ({ id, quoteToken: hex(20) })) },
        { "x-line-accepted-request-id": accepted.requestId },
      );
    const accept = () => {
      const ids = record("push", to, retryKey);
      if (retryKey) retryKeys.set(retryKey, { requestId: randomUUID(), ids });
      return ids;
    };
    if (injected(res, accept)) return;
    return answer(accept());
  }

  function data(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    if (!authorised(req, res)) return;
    const m = /^\/v2\/bot\/message\/([^/]+)\/content$/.exec(path);
    if (req.method !== "GET" || !m) return fail(res, 404, "Not found");
    const failure = contentFailures.get(m[1]);
    if (failure && failure.count > 0) {
      failure.count--;
      if (failure.status === 202) {
        res.writeHead(202);
        return res.end();
      }
      return fail(res, 500, "An error occurred in the server.");
    }
    const found = content.get(m[1]);
    if (!found) return fail(res, 404, "Not found");
    res.writeHead(200, { "content-type": found.type, "content-length": String(found.bytes.length) });
    res.end(found.bytes);
  }

  const listen = async (handler: (req: http.IncomingMessage, res: http.ServerResponse, path: string) => unknown) => {
    const server = http.createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://standin").pathname;
      requests.push(`${req.method} ${path}`);
      Promise.resolve(handler(req, res, path)).catch(() => fail(res, 500, "An error occurred in the server."));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const apiServer = await listen(api);
  const dataServer = await listen(data);

  const base = (userId: string, at: number, extra: Json): Json => {
    const replyToken = hex(16);
    replyTokens.set(replyToken, { issuedAt: at, used: false, userId });
    return {
      type: "message",
      mode: "active",
      timestamp: at,
      source: { type: "user", userId },
      webhookEventId: ulid(),
      deliveryContext: { isRedelivery: false },
      replyToken,
      ...extra,
    };
  };
  const body = (events: Json[]) => JSON.stringify({ destination: botUserId, events });
  const sign = (raw: string, secret: string) => createHmac("sha256", secret).update(raw).digest("base64");

  const webhook: LineStandin["webhook"] = (url, events, o = {}) => {
    const raw = body(events);
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "user-agent": "LineBotWebhook/2.0" };
    if (o.signature !== "none") headers["x-line-signature"] = sign(raw, o.signature === "wrong" ? hex(16) : channelSecret);
    return new Request(url, { method: "POST", headers, body: raw });
  };

  return {
    apiUrl: apiServer.url,
    dataUrl: dataServer.url,
    channelSecret,
    channelAccessToken,
    botUserId,
    sent,
    requests,
    fetched,
    addUser(displayName) {
      const id = `U${hex(16)}`;
      users.set(id, displayName);
      return id;
    },
    addContent(messageId, bytes, contentType) {
      content.set(messageId, { bytes, type: contentType });
    },
    failContent(messageId, count, status = 500) {
      contentFailures.set(messageId, { count, status });
    },
    expireReplyTokens() {
      for (const token of replyTokens.values()) token.issuedAt = 0;
    },
    failNextSend(failure) {
      nextFailure = failure;
    },
    throttle(count, retryAfterSeconds) {
      throttleLeft = count;
      throttleSeconds = retryAfterSeconds;
    },
    textEvent(userId, text, o = {}) {
      return base(userId, o.at ?? Date.now(), { message: { id: o.messageId ?? digits(18), type: "text", text, quoteToken: hex(20) } });
    },
    mediaEvent(userId, type, o = {}) {
      const id = o.messageId ?? digits(18);
      const message: Json =
        type === "file"
          ? { id, type, fileName: o.fileName ?? "file.pdf", fileSize: o.fileSize ?? 0 }
          : {
              id,
              type,
              contentProvider: { type: "line" },
              ...(type === "audio" ? {} : { quoteToken: hex(20) }),
              ...(type === "image" ? {} : { duration: 1000 }),
            };
      return base(userId, o.at ?? Date.now(), { message });
    },
    otherEvent(event) {
      return { mode: "active", timestamp: Date.now(), webhookEventId: ulid(), deliveryContext: { isRedelivery: false }, ...event };
    },
    redelivered(event) {
      return { ...event, deliveryContext: { isRedelivery: true } };
    },
    webhook,
    async deliver(url, events) {
      const request = webhook(url, events);
      const response = await fetch(url, { method: "POST", headers: request.headers, body: await request.text() });
      return response.status;
    },
    async close() {
      await Promise.all([apiServer, dataServer].map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
