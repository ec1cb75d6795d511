// A local stand-in for the part of X's API the X adapter uses, answering as X documents it
// (https://docs.x.com/x-api): every call needs the account's OAuth 1.0a signature (HMAC-SHA1 over
// the method, URL and parameters with the consumer secret and access token secret) or the user's
// OAuth 2.0 bearer token.
//   GET  /2/users/me                                   {data: {id, name, username}}
//   POST /2/dm_conversations/with/{participant}/messages {text} | {attachments: [{media_id}]} -> 201 {data: {dm_conversation_id, dm_event_id}}
//   POST /2/tweets                                     {text?, reply: {in_reply_to_tweet_id}, media?: {media_ids}} -> 201 {data: {id, text}}
//   POST /2/media/upload/initialize, /{id}/append (multipart), /{id}/finalize   the chunked upload
//   GET  /media/{id}/{name}                            DM media bytes (as ton.x.com serves them: OAuth-signed)
// Errors in X's shapes: v2 problems {title, detail, type, status} (with errors[] on invalid requests),
// v1.1 {errors: [{code, message}]} on the media host; 429 with x-rate-limit-reset when told.
// Webhooks (Account Activity API): bodies signed as X signs them (x-twitter-webhooks-signature:
// "sha256=" + base64 HMAC-SHA256 of the body with the consumer secret), and X's CRC check of a webhook URL.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomBytes } from "node:crypto";

type Json = Record<string, unknown>;

export interface XSent {
  kind: "dm" | "post";
  id: string;
  /** A DM's recipient. */
  to?: string;
  text?: string;
  /** A post's in_reply_to_tweet_id. */
  replyTo?: string;
  mediaIds: string[];
}
export interface XFailure {
  status: number;
  body: Json;
  headers?: Record<string, string>;
}
export interface XUpload {
  id: string;
  type: string;
  category: string;
  bytes: Buffer;
}

const digits = (n: number) => {
  let s = String(1 + Math.floor(Math.random() * 9));
  while (s.length < n) s += String(Math.floor(Math.random() * 10));
  return s;
};
const token = (n: number) => randomBytes(n).toString("base64url");
/** RFC 3986 percent-encoding, as OAuth 1.0a signs. */
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A multipart/form-data body's fields, as bytes (a media chunk is binary, sent without a file name). */
function multipart(raw: Buffer, contentType: string) {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  const fields: Record<string, Buffer> = {};
  if (!boundary) return fields;
  const delimiter = Buffer.from(`--${boundary}`);
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    const part = raw.subarray(start + 2, next - 2); // after the CRLF that ends the delimiter line, before the CRLF that ends the part
    const split = part.indexOf("\r\n\r\n");
    const name = /name="([^"]+)"/.exec(part.subarray(0, split).toString("utf8"))?.[1];
    if (name && split >= 0) fields[name] = part.subarray(split + 4);
    at = next;
  }
  return fields;
}

export async function startXStandin() {
  const userId = digits(19);
  const screenName = "omnidesk_help";
  const consumerKey = token(18);
  const consumerSecret = token(36);
  const accessToken = `${userId}-${token(30)}`;
  const accessTokenSecret = token(33);
  const bearerToken = token(60);
  const users = new Map<string, { name: string; screen_name: string }>([[userId, { name: "OmniDesk Help", screen_name: screenName }]]);
  const sent: XSent[] = [];
  const uploads = new Map<string, XUpload & { chunks: Buffer[] }>();
  const media = new Map<string, { bytes: Buffer; type: string }>();
  const mediaFailures = new Map<string, number>();
  const requests: string[] = [];
  let nextFailure: XFailure | undefined;
  let throttleLeft = 0;
  let throttleSeconds = 60;
  let base = "";

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(body));
  };
  const problem = (res: http.ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}) =>
    json(res, status, { title, detail, type: "about:blank", status }, headers);

  /** OAuth 1.0a: the header's consumer key and token are the account's and its signature is right; or the user's bearer token. */
  function authorised(req: http.IncomingMessage, url: URL) {
    const header = req.headers.authorization ?? "";
    if (header === `Bearer ${bearerToken}`) return true;
    if (!header.startsWith("OAuth ")) return false;
    const params = new Map<string, string>();
    for (const m of header.slice(6).matchAll(/([a-z_]+)="([^"]*)"/g)) params.set(m[1], decodeURIComponent(m[2]));
    if (params.get("oauth_consumer_key") !== consumerKey || params.get("oauth_token") !== accessToken) return false;
    if (params.get("oauth_signature_method") !== "HMAC-SHA1") return false;
    const signed: [string, string][] = [...params].filter(([k]) => k !== "oauth_signature" && k !== "realm");
    for (const [k, v] of url.searchParams) signed.push([k, v]);
    const normal = signed
      .map(([k, v]) => [enc(k), enc(v)])
      .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join("&");
    const baseString = [req.method ?? "GET", enc(`${url.protocol}//${url.host}${url.pathname}`), enc(normal)].join("&");
    const expected = createHmac("sha1", `${enc(consumerSecret)}&${enc(accessTokenSecret)}`)
      .update(baseString)
      .digest("base64");
    return params.get("oauth_signature") === expected;
  }

  const readBody = async (req: http.IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  /** An injected refusal or a throttle, for sends (DMs, posts). */
  function injected(res: http.ServerResponse) {
    if (throttleLeft > 0) {
      throttleLeft--;
      const reset = Math.floor(Date.now() / 1000) + throttleSeconds;
      problem(res, 429, "Too Many Requests", "Too Many Requests", {
        "x-rate-limit-limit": "200",
        "x-rate-limit-remaining": "0",
        "x-rate-limit-reset": String(reset),
      });
      return true;
    }
    if (!nextFailure) return false;
    const failure = nextFailure;
    nextFailure = undefined;
    json(res, failure.status, failure.body, failure.headers);
    return true;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const path = url.pathname;
    requests.push(`${req.method} ${path}`);
    const mediaPath = /^\/media\/([^/]+)\/[^/]+$/.exec(path);
    if (mediaPath && req.method === "GET") {
      // the DM media host answers in v1.1's shape
      if (!authorised(req, url)) return json(res, 401, { errors: [{ code: 32, message: "Could not authenticate you." }] });
      const left = mediaFailures.get(mediaPath[1]) ?? 0;
      if (left > 0) {
        mediaFailures.set(mediaPath[1], left - 1);
        return json(res, 503, { errors: [{ code: 130, message: "Over capacity" }] });
      }
      const found = media.get(mediaPath[1]);
      if (!found) return json(res, 404, { errors: [{ code: 34, message: "Sorry, that page does not exist." }] });
      res.writeHead(200, { "content-type": found.type, "content-length": String(found.bytes.length) });
      return res.end(found.bytes);
    }
    if (!path.startsWith("/2/")) return problem(res, 404, "Not Found Error", "Not found");
    if (!authorised(req, url)) return problem(res, 401, "Unauthorized", "Unauthorized");

    if (req.method === "GET" && path === "/2/users/me") {
      const me = users.get(userId)!;
      return json(res, 200, { data: { id: userId, name: me.name, username: me.screen_name } });
    }
    if (req.method !== "POST") return problem(res, 404, "Not Found Error", "Not found");
    const raw = await readBody(req);

    const upload = /^\/2\/media\/upload\/(?:(initialize)|(\d+)\/(append|finalize))$/.exec(path);
    if (upload) {
      if (upload[1]) {
        const body = JSON.parse(raw.toString("utf8") || "{}") as Json;
        const id = digits(19);
        uploads.set(id, { id, type: String(body.media_type), category: String(body.media_category ?? ""), bytes: Buffer.alloc(0), chunks: [] });
        return json(res, 200, { data: { id, media_key: `3_${id}`, expires_after_secs: 86400 } });
      }
      const found = uploads.get(upload[2]);
      if (!found)
        return json(res, 400, {
          errors: [{ message: "media_id not found" }],
          title: "Invalid Request",
          detail: "One or more parameters to your request was invalid.",
          type: "https://api.twitter.com/2/problems/invalid-request",
        });
      if (upload[3] === "append") {
        const form = multipart(raw, String(req.headers["content-type"]));
        if (!form.media)
          return json(res, 400, {
            errors: [{ message: "media is required" }],
            title: "Invalid Request",
            detail: "One or more parameters to your request was invalid.",
            type: "https://api.twitter.com/2/problems/invalid-request",
          });
        found.chunks[Number(form.segment_index?.toString("utf8"))] = form.media;
        return json(res, 200, { data: { expires_at: Math.floor(Date.now() / 1000) + 86400 } });
      }
      found.bytes = Buffer.concat(found.chunks);
      return json(res, 200, { data: { id: found.id, media_key: `3_${found.id}`, size: found.bytes.length, expires_after_secs: 86400 } });
    }

    let body: Json;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return json(res, 400, {
        errors: [{ message: "Request body is not valid JSON" }],
        title: "Invalid Request",
        detail: "One or more parameters to your request was invalid.",
        type: "https://api.twitter.com/2/problems/invalid-request",
      });
    }
    const mediaIds = (list: unknown) => (Array.isArray(list) ? list.map(String) : []);
    const dm = /^\/2\/dm_conversations\/with\/(\d+)\/messages$/.exec(path);
    if (dm) {
      if (injected(res)) return;
      if (!users.has(dm[1])) return problem(res, 403, "Forbidden", "You cannot send messages to this user.");
      const attachments = mediaIds(((body.attachments as Json[] | undefined) ?? []).map((a) => a.media_id));
      if (!body.text && !attachments.length)
        return json(res, 400, {
          errors: [{ message: "text or attachments is required" }],
          title: "Invalid Request",
          detail: "One or more parameters to your request was invalid.",
          type: "https://api.twitter.com/2/problems/invalid-request",
        });
      const id = digits(19);
      sent.push({ kind: "dm", id, to: dm[1], text: body.text as string | undefined, mediaIds: attachments });
      return json(res, 201, { data: { dm_conversation_id: [userId, dm[1]].sort().join("-"), dm_event_id: id } });
    }
    if (path === "/2/tweets") {
      if (injected(res)) return;
      const reply = body.reply as { in_reply_to_tweet_id?: string } | undefined;
      const ids = mediaIds((body.media as { media_ids?: unknown } | undefined)?.media_ids);
      if (!body.text && !ids.length)
        return json(res, 400, {
          errors: [{ message: "text or media is required" }],
          title: "Invalid Request",
          detail: "One or more parameters to your request was invalid.",
          type: "https://api.twitter.com/2/problems/invalid-request",
        });
      if (body.text && sent.some((s) => s.kind === "post" && s.text === body.text))
        return problem(res, 403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.");
      const id = digits(19);
      sent.push({ kind: "post", id, text: body.text as string | undefined, replyTo: reply?.in_reply_to_tweet_id, mediaIds: ids });
      return json(res, 201, { data: { id, text: body.text ?? "", edit_history_tweet_ids: [id] } });
    }
    return problem(res, 404, "Not Found Error", "Not found");
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => problem(res, 500, "Internal Server Error", "Internal error"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const userOf = (id: string) => {
    const u = users.get(id) ?? { name: id, screen_name: id };
    return { id, id_str: id, name: u.name, screen_name: u.screen_name };
  };
  const sign = (raw: string, secret: string) => `sha256=${createHmac("sha256", secret).update(raw).digest("base64")}`;

  const standin = {
    apiBase: base,
    userId,
    screenName,
    consumerKey,
    consumerSecret,
    accessToken,
    accessTokenSecret,
    bearerToken,
    sent,
    requests,
    uploads: () => [...uploads.values()].map(({ chunks: _, ...u }) => u),
    /** An X user who may write to the account; answers their id. */
    addUser(name: string, screen_name = `user${digits(4)}`) {
      const id = digits(18);
      users.set(id, { name, screen_name });
      return id;
    },
    /** DM media served (OAuth-signed requests only) at the URL answered. */
    addMedia(bytes: Buffer, type: string, name = "picture.jpg") {
      const id = digits(19);
      media.set(id, { bytes, type });
      return `${base}/media/${id}/${name}`;
    },
    /** The next `count` downloads of this media answer 503. */
    failMedia(url: string, count: number) {
      mediaFailures.set(/\/media\/([^/]+)\//.exec(url)![1], count);
    },
    failNextSend(failure: XFailure) {
      nextFailure = failure;
    },
    /** The next `count` sends answer 429, their x-rate-limit-reset `seconds` from now. */
    throttle(count: number, seconds: number) {
      throttleLeft = count;
      throttleSeconds = seconds;
    },
    /** A direct message event (message_create) from `from` to `to` (default: the account). */
    dm(from: string, text: string, o: { to?: string; media?: { url: string; type?: "photo" | "video" } } = {}): Json {
      const id = digits(19);
      const link = `https://t.co/${token(6)}`;
      const attachment = o.media
        ? {
            type: "media",
            media: {
              id: Number(digits(18)),
              id_str: digits(18),
              type: o.media.type ?? "photo",
              url: link,
              media_url_https: o.media.type === "video" ? `${base}/thumb.jpg` : o.media.url,
              ...(o.media.type === "video"
                ? {
                    video_info: {
                      variants: [
                        { bitrate: 256000, content_type: "video/mp4", url: `${base}/low.mp4` },
                        { bitrate: 832000, content_type: "video/mp4", url: o.media.url },
                        { content_type: "application/x-mpegURL", url: `${base}/pl.m3u8` },
                      ],
                    },
                  }
                : {}),
            },
          }
        : undefined;
      return {
        type: "message_create",
        id,
        created_timestamp: String(Date.now()),
        message_create: {
          target: { recipient_id: o.to ?? userId },
          sender_id: from,
          source_app_id: "268278",
          message_data: {
            text: attachment ? `${text} ${link}`.trim() : text,
            entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] },
            ...(attachment ? { attachment } : {}),
          },
        },
      };
    },
    /** A body of direct message events, with the users map X adds. */
    dmBody(events: Json[]): Json {
      const ids = new Set<string>();
      for (const e of events) {
        const mc = e.message_create as { sender_id: string; target: { recipient_id: string } };
        ids.add(mc.sender_id).add(mc.target.recipient_id);
      }
      return {
        for_user_id: userId,
        direct_message_events: events,
        users: Object.fromEntries([...ids].map((id) => [id, { ...userOf(id), created_timestamp: "1422556069340", protected: false, verified: false }])),
      };
    },
    /** A post (v1.1 shape, as tweet_create_events carry it) by `from`, mentioning the account unless told not to. */
    post(from: string, text: string, o: { replyTo?: { id: string; userId: string }; mention?: boolean; long?: boolean; photo?: string } = {}): Json {
      const id = digits(19);
      const mention = o.mention ?? true;
      const full = mention ? `@${screenName} ${text}` : text;
      const entities = {
        hashtags: [],
        urls: [],
        symbols: [],
        user_mentions: mention
          ? [{ screen_name: screenName, name: "OmniDesk Help", id: Number(userId), id_str: userId, indices: [0, screenName.length + 1] }]
          : [],
      };
      const photo = o.photo
        ? { extended_entities: { media: [{ id_str: digits(18), type: "photo", media_url_https: o.photo, url: `https://t.co/${token(6)}` }] } }
        : {};
      return {
        created_at: new Date().toUTCString(),
        id: Number(id),
        id_str: id,
        text: o.long ? `${full.slice(0, 137)}…` : full,
        truncated: !!o.long,
        ...(o.long ? { extended_tweet: { full_text: full, display_text_range: [0, full.length], entities, ...photo } } : photo),
        in_reply_to_status_id: o.replyTo ? Number(o.replyTo.id) : null,
        in_reply_to_status_id_str: o.replyTo?.id ?? null,
        in_reply_to_user_id_str: o.replyTo?.userId ?? null,
        user: userOf(from),
        entities,
        timestamp_ms: String(Date.now()),
        lang: "en",
      };
    },
    /** Our own post as the webhook echoes it (an agent's answer that went out). */
    ownPost(sentPost: XSent): Json {
      return { ...standin.post(userId, sentPost.text ?? "", { mention: false }), id_str: sentPost.id, in_reply_to_status_id_str: sentPost.replyTo ?? null };
    },
    postBody(posts: Json[]): Json {
      return { for_user_id: userId, user_has_blocked: false, tweet_create_events: posts };
    },
    /** The customer read the DM conversation up to this event. */
    readBody(from: string, lastReadEventId: string): Json {
      return {
        for_user_id: userId,
        direct_message_mark_read_events: [
          { created_timestamp: String(Date.now()), sender_id: from, target: { recipient_id: userId }, last_read_event_id: lastReadEventId },
        ],
        users: { [from]: userOf(from), [userId]: userOf(userId) },
      };
    },
    typingBody(from: string): Json {
      return {
        for_user_id: userId,
        direct_message_indicate_typing_events: [{ created_timestamp: String(Date.now()), sender_id: from, target: { recipient_id: userId } }],
        users: { [from]: userOf(from) },
      };
    },
    /** A webhook call as X makes it (signed with the consumer secret unless told otherwise), for the product's route function. */
    webhook(url: string, body: Json, o: { signature?: "valid" | "none" | "wrong" } = {}) {
      const raw = JSON.stringify(body);
      const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
      if (o.signature !== "none") headers["x-twitter-webhooks-signature"] = sign(raw, o.signature === "wrong" ? token(36) : consumerSecret);
      return new Request(url, { method: "POST", headers, body: raw });
    },
    /** X's CRC check: a GET with a fresh crc_token, and whether the answer is the one X expects. */
    crc(url: string) {
      const crcToken = token(32);
      const u = new URL(url);
      u.searchParams.set("crc_token", crcToken);
      return {
        request: new Request(u, { method: "GET" }),
        async valid(response: Response) {
          if (response.status !== 200) return false;
          const answer = (await response.json().catch(() => ({}))) as { response_token?: string };
          return answer.response_token === sign(crcToken, consumerSecret);
        },
      };
    },
    /** POSTs a signed body to a running product; its status. */
    async deliver(url: string, body: Json) {
      const request = standin.webhook(url, body);
      return (await fetch(url, { method: "POST", headers: request.headers, body: await request.text() })).status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return standin;
}

export type XStandin = Awaited<ReturnType<typeof startXStandin>>;
