// A local stand-in for the part of Twilio Programmable Messaging the SMS adapter uses, answering
// as Twilio's documentation says it does:
//   GET  /2010-04-01/Accounts/{AccountSid}.json                 the account (the Test button)
//   POST /2010-04-01/Accounts/{AccountSid}/Messages.json        form To, From | MessagingServiceSid, Body,
//        MediaUrl, StatusCallback -> 201 the Message resource (status "queued"); a MediaUrl is fetched
//        at once, as Twilio does, and its Content-Type checked
//   GET  /2010-04-01/Accounts/{AccountSid}/Messages/{MM}/Media/{ME}   an inbound message's media
// HTTP basic auth AccountSid:AuthToken on every call; errors in Twilio's shape
// {"code", "message", "more_info", "status"}: 401 (20003), 404 (20404), 400 (21211, 21602, 21606,
// 21617, 21620), 429 (20429) with Retry-After when told to throttle, 500 (20500) when told to fail.
// It also calls the product as Twilio would: an incoming SMS or a status callback, form-encoded and
// signed with X-Twilio-Signature (base64 HMAC-SHA1 of the URL and the sorted parameters).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomBytes } from "node:crypto";

export interface SentSms {
  sid: string;
  to: string;
  from: string;
  body: string;
  statusCallback: string;
  /** Files fetched from the MediaUrl given, as Twilio fetched them. */
  media: { url: string; contentType: string; bytes: Buffer; disposition: string }[];
}

export interface WebhookCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface TwilioStandin {
  /** The account's apiBase. */
  apiBase: string;
  accountSid: string;
  authToken: string;
  /** The numbers of the account (valid From values). */
  numbers: string[];
  sent: SentSms[];
  /** Every request, as "METHOD path", in order. */
  requests: string[];
  /** A file of an incoming MMS; answers its MediaUrl. */
  addMedia(bytes: Buffer, contentType: string): string;
  /** Twilio's signature of a call to `url` with these parameters. */
  sign(url: string, params: Record<string, string>): string;
  /** An incoming SMS's parameters, as Twilio posts them to the number's webhook. */
  incoming(input: { from: string; to?: string; body?: string; media?: { bytes: Buffer; contentType: string }[]; sid?: string }): Record<string, string>;
  /** A status callback's parameters for a message sent through the stand-in. */
  status(sid: string, status: string, errorCode?: string): Record<string, string>;
  /** A signed call as Twilio makes it (headers and form body), to hand to a Request. */
  call(url: string, params: Record<string, string>): WebhookCall;
  /** The same call, posted. */
  post(url: string, params: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** Posts a status callback to the StatusCallback URL the message was sent with. */
  callback(sid: string, status: string, errorCode?: string): Promise<Response>;
  /** The next `count` API calls answer 429 with Retry-After: seconds. */
  throttle(count: number, retryAfterSeconds: number): void;
  /** The next `count` API calls answer 500. */
  failServer(count: number): void;
  /** The next send answers this status and Twilio error. */
  refuseNextSend(status: number, code: number, message: string): void;
  /** The next `count` media downloads answer 500. */
  failMedia(count: number): void;
  close(): Promise<void>;
}

const hex = (n: number) => randomBytes(n).toString("hex");

export async function startTwilioStandin(options: { numbers?: string[] } = {}): Promise<TwilioStandin> {
  const accountSid = `AC${hex(16)}`;
  const authToken = hex(16);
  const numbers = options.numbers ?? ["+15005550006"];
  const sent: SentSms[] = [];
  const requests: string[] = [];
  const media = new Map<string, { bytes: Buffer; contentType: string }>();
  let throttleLeft = 0;
  let throttleSeconds = 1;
  let serverFailures = 0;
  let mediaFailures = 0;
  let refusal: { status: number; code: number; message: string } | undefined;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accountPath = `/2010-04-01/Accounts/${accountSid}`;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "twilio-request-id": `RQ${hex(16)}`, ...headers });
    res.end(JSON.stringify(body));
  };
  const fail = (res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) =>
    send(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, headers);
  const readBody = (req: http.IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      req.on("error", reject);
    });
  const rfc2822 = () => new Date().toUTCString().replace("GMT", "+0000");
  const isE164 = (n: string) => /^\+[1-9]\d{6,14}$/.test(n);

  async function createMessage(res: http.ServerResponse, form: URLSearchParams) {
    const to = form.get("To") ?? "";
    const from = form.get("From") ?? "";
    const service = form.get("MessagingServiceSid") ?? "";
    const body = form.get("Body") ?? "";
    const mediaUrls = form.getAll("MediaUrl");
    if (!to) return fail(res, 400, 21604, "A 'To' phone number is required.");
    if (!isE164(to)) return fail(res, 400, 21211, `Invalid 'To' Phone Number: ${to}`);
    if (!service && !numbers.includes(from))
      return fail(res, 400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
    if (!body && !mediaUrls.length) return fail(res, 400, 21602, "Message body is required.");
    if (body.length > 1600) return fail(res, 400, 21617, "The concatenated message body exceeds the 1600 character limit.");
    if (refusal) {
      const r = refusal;
      refusal = undefined;
      return fail(res, r.status, r.code, r.message);
    }
    const fetched: SentSms["media"] = [];
    for (const url of mediaUrls) {
      const got = await fetch(url).catch(() => undefined);
      if (!got?.ok) return fail(res, 400, 21620, `Invalid media URL(s): ${url}`);
      fetched.push({
        url,
        contentType: got.headers.get("content-type") ?? "",
        disposition: got.headers.get("content-disposition") ?? "",
        bytes: Buffer.from(await got.arrayBuffer()),
      });
    }
    const sid = `${mediaUrls.length ? "MM" : "SM"}${hex(16)}`;
    sent.push({ sid, to, from: from || service, body, statusCallback: form.get("StatusCallback") ?? "", media: fetched });
    const now = rfc2822();
    send(res, 201, {
      account_sid: accountSid,
      api_version: "2010-04-01",
      body,
      date_created: now,
      date_sent: null,
      date_updated: now,
      direction: "outbound-api",
      error_code: null,
      error_message: null,
      from: from || null,
      messaging_service_sid: service || null,
      num_media: String(mediaUrls.length),
      num_segments: String(Math.max(1, Math.ceil(body.length / 153))),
      price: null,
      price_unit: "USD",
      sid,
      status: "queued",
      subresource_uris: { media: `${accountPath}/Messages/${sid}/Media.json` },
      to,
      uri: `${accountPath}/Messages/${sid}.json`,
    });
  }

  server.on("request", async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", base);
      requests.push(`${req.method} ${url.pathname}`);
      const [user, pass] = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64")
        .toString()
        .split(":");
      if (user !== accountSid || pass !== authToken) return fail(res, 401, 20003, "Authenticate", { "www-authenticate": 'Basic realm="Twilio API"' });
      if (!url.pathname.startsWith(`${accountPath}.json`) && !url.pathname.startsWith(`${accountPath}/`))
        return fail(res, 404, 20404, `The requested resource ${url.pathname} was not found`);

      const mediaPath = /\/Messages\/[^/]+\/Media\/([^/.]+)$/.exec(url.pathname);
      if (req.method === "GET" && mediaPath) {
        const file = media.get(mediaPath[1]);
        if (!file) return fail(res, 404, 20404, `The requested resource ${url.pathname} was not found`);
        if (mediaFailures > 0) {
          mediaFailures--;
          return fail(res, 500, 20500, "Internal Server Error");
        }
        res.writeHead(200, { "content-type": file.contentType, "content-length": String(file.bytes.length) });
        return res.end(file.bytes);
      }
      if (throttleLeft > 0) {
        throttleLeft--;
        return fail(res, 429, 20429, "Too Many Requests", { "retry-after": String(throttleSeconds) });
      }
      if (serverFailures > 0) {
        serverFailures--;
        return fail(res, 500, 20500, "Internal Server Error");
      }
      if (req.method === "GET" && url.pathname === `${accountPath}.json`)
        return send(res, 200, {
          sid: accountSid,
          friendly_name: "Stand-in account",
          status: "active",
          type: "Full",
          date_created: rfc2822(),
          uri: `${accountPath}.json`,
        });
      if (req.method === "POST" && url.pathname === `${accountPath}/Messages.json`) {
        if (!/^application\/x-www-form-urlencoded/i.test(req.headers["content-type"] ?? "")) return fail(res, 400, 20001, "Unsupported content type");
        return await createMessage(res, new URLSearchParams(await readBody(req)));
      }
      fail(res, 404, 20404, `The requested resource ${url.pathname} was not found`);
    } catch (error) {
      fail(res, 500, 20500, String(error));
    }
  });

  const sign = (url: string, params: Record<string, string>) =>
    createHmac("sha1", authToken)
      .update(
        Object.keys(params)
          .sort()
          .reduce((text, key) => text + key + params[key], url),
      )
      .digest("base64");
  const call = (url: string, params: Record<string, string>): WebhookCall => ({
    url,
    headers: {
      "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
      "X-Twilio-Signature": sign(url, params),
      "I-Twilio-Idempotency-Token": hex(16),
      "User-Agent": "TwilioProxy/1.1",
    },
    body: new URLSearchParams(params).toString(),
  });
  const post = (url: string, params: Record<string, string>, headers: Record<string, string> = {}) => {
    const c = call(url, params);
    return fetch(url, { method: "POST", headers: { ...c.headers, ...headers }, body: c.body });
  };
  const addMedia = (bytes: Buffer, contentType: string) => {
    const id = `ME${hex(16)}`;
    media.set(id, { bytes, contentType });
    return `${base}${accountPath}/Messages/MM${hex(16)}/Media/${id}`;
  };
  const status = (sid: string, state: string, errorCode?: string) => {
    const message = sent.find((m) => m.sid === sid);
    return {
      AccountSid: accountSid,
      ApiVersion: "2010-04-01",
      From: message?.from ?? numbers[0],
      To: message?.to ?? "",
      MessageSid: sid,
      SmsSid: sid,
      MessageStatus: state,
      SmsStatus: state,
      ...(errorCode ? { ErrorCode: errorCode } : {}),
    };
  };

  return {
    apiBase: base,
    accountSid,
    authToken,
    numbers,
    sent,
    requests,
    addMedia,
    sign,
    incoming({ from, to = numbers[0], body = "", media: files = [], sid }) {
      const messageSid = sid ?? `${files.length ? "MM" : "SM"}${hex(16)}`;
      const params: Record<string, string> = {
        ToCountry: "US",
        ToState: "CA",
        SmsMessageSid: messageSid,
        NumMedia: String(files.length),
        ToCity: "",
        FromZip: "",
        SmsSid: messageSid,
        FromState: "",
        SmsStatus: "received",
        FromCity: "",
        Body: body,
        FromCountry: "MY",
        To: to,
        MessagingServiceSid: "",
        ToZip: "",
        NumSegments: "1",
        MessageSid: messageSid,
        AccountSid: accountSid,
        From: from,
        ApiVersion: "2010-04-01",
      };
      files.forEach((f, i) => {
        params[`MediaContentType${i}`] = f.contentType;
        params[`MediaUrl${i}`] = addMedia(f.bytes, f.contentType);
      });
      return params;
    },
    status,
    call,
    post,
    callback(sid, state, errorCode) {
      const message = sent.find((m) => m.sid === sid);
      if (!message?.statusCallback) throw new Error(`no StatusCallback for ${sid}`);
      return post(message.statusCallback, status(sid, state, errorCode));
    },
    throttle(count, retryAfterSeconds) {
      throttleLeft = count;
      throttleSeconds = retryAfterSeconds;
    },
    failServer(count) {
      serverFailures = count;
    },
    refuseNextSend(status, code, message) {
      refusal = { status, code, message };
    },
    failMedia(count) {
      mediaFailures = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
