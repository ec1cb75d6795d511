// A local stand-in for the part of Meta's Graph API the Instagram adapter uses, answering as the
// Instagram Messaging and Instagram Graph documentation says:
//   GET  /v21.0/{ig-id}?fields=username,name            the account
//   GET  /v21.0/{ig-id}?fields=mentioned_media.media_id({id}){caption,username,permalink,timestamp}
//   GET  /v21.0/{ig-id}?fields=mentioned_comment.comment_id({id}){text,username,timestamp,media{id,permalink}}
//   GET  /v21.0/{igsid}?fields=name,username            a customer's profile
//   POST /v21.0/me/messages                             Send API -> {recipient_id, message_id}
//   POST /v21.0/me/message_attachments                  multipart upload (platform=instagram) -> {attachment_id}
//   POST /v21.0/{comment-id}/replies   message          a reply comment -> {id} (top-level comments only)
//   POST /v21.0/{ig-id}/mentions  media_id, comment_id?, message   a mention reply -> {id}
//   GET  /cdn/{id}                                      a customer's file (a signed CDN link: no token)
// Errors in Graph's shape {"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}:
// 401/190 for a wrong token, 400/10 subcode 2534022 for a direct message outside the allowed window
// (24 hours, or 7 days with the HUMAN_AGENT tag, counted from the customer's last message in a
// webhook this stand-in signed), and whatever it is told to fail with. It also plays Meta's side of
// webhooks: signs a body with X-Hub-Signature-256 (HMAC-SHA256 of the exact bytes, app secret).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomBytes } from "node:crypto";

export interface IgSent {
  id: string;
  to: string;
  messagingType: string;
  tag?: string;
  text?: string;
  attachment?: { type: string; attachmentId: string };
}

export interface WebhookBody {
  object: "instagram";
  entry: Record<string, unknown>[];
}

export interface InstagramStandin {
  apiBase: string;
  accessToken: string;
  appSecret: string;
  igId: string;
  username: string;
  sent: IgSent[];
  uploads: { id: string; type: string; name: string; mime: string; bytes: Buffer }[];
  replies: { id: string; commentId: string; message: string }[];
  /** The account's reactions to customers' messages and their take-backs (sender actions react and unreact). */
  reactions: { to: string; action: string; messageId: string; reaction?: string }[];
  mentionReplies: { id: string; mediaId: string; commentId?: string; message: string }[];
  /** The customers whose profile was asked for, in order. */
  profileLookups: string[];
  /** A customer (their Instagram-scoped id). */
  addUser(name: string, username: string): string;
  /** Serves a customer's file; answers its CDN address. */
  addMedia(bytes: Buffer, mime: string): string;
  /** The next `count` CDN downloads answer 500. */
  failMediaDownloads(count: number): void;
  /** The next `count` mention look-ups (mentioned_media, mentioned_comment) answer 500. */
  failLookups(count: number): void;
  /** The next `count` sends (messages, replies, mention replies; after `after` that succeed) answer this status and Graph error. */
  failSends(count: number, status: number, code: number, message: string, options?: { after?: number; retryAfter?: number }): void;
  /** Someone's post whose caption @mentions the account; answers its media id. */
  addMentionedMedia(username: string, caption: string): string;
  /** Someone's comment that @mentions the account, on a media of theirs; answers its id. */
  addMentionedComment(mediaId: string, username: string, text: string): string;
  /** A comment on one of the account's posts, as the "comments" field's value (known to the replies edge). */
  comment(from: { id: string; username: string }, text: string, media: string, parentId?: string): Record<string, unknown>;
  /** A webhook body of direct-message events. */
  messagingBody(events: unknown[]): WebhookBody;
  /** A webhook body of one field's changes ("comments", "mentions"). */
  changesBody(field: string, values: unknown[]): WebhookBody;
  text(from: string, text: string, options?: { at?: number; mid?: string }): Record<string, unknown>;
  attachment(from: string, type: string, url: string): Record<string, unknown>;
  read(from: string, mid: string): Record<string, unknown>;
  reaction(from: string, mid: string, emoji: string): Record<string, unknown>;
  /** Signs a webhook body as Meta does (secret null: unsigned), as a Request for the route's function. */
  webhookRequest(url: string, body: unknown, options?: { secret?: string | null }): Request;
  /** The same, posted; answers the product's status. */
  deliver(url: string, body: unknown, options?: { secret?: string | null }): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

const HOUR = 3_600_000;

function graphError(res: http.ServerResponse, status: number, code: number, message: string, subcode = 0, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ error: { message, type: "OAuthException", code, error_subcode: subcode, fbtrace_id: randomBytes(8).toString("base64url") } }));
}

const json = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

async function readBody(req: http.IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A POST's parameters as Graph takes them: query string, form-encoded or JSON body. */
async function params(req: http.IncomingMessage, url: URL): Promise<Record<string, string>> {
  const raw = (await readBody(req)).toString("utf8");
  const out: Record<string, string> = Object.fromEntries(url.searchParams);
  const type = String(req.headers["content-type"] ?? "");
  if (type.includes("json")) for (const [k, v] of Object.entries(JSON.parse(raw || "{}") as Record<string, unknown>)) out[k] = String(v);
  else Object.assign(out, Object.fromEntries(new URLSearchParams(raw)));
  return out;
}

const id = () => String(17_800_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e15)));

export async function startInstagramStandin(): Promise<InstagramStandin> {
  const accessToken = `IGQV${randomBytes(12).toString("hex")}`;
  const appSecret = randomBytes(16).toString("hex");
  const igId = id();
  const username = "standin.shop";
  const users = new Map<string, { name: string; username: string }>();
  const media = new Map<string, { bytes: Buffer; mime: string }>();
  const mentionedMedia = new Map<string, { caption: string; username: string }>();
  const mentionedComments = new Map<string, { mediaId: string; username: string; text: string }>();
  const comments = new Map<string, { parentId?: string }>();
  const lastWrote = new Map<string, number>();
  const standin = {
    sent: [] as IgSent[],
    uploads: [] as InstagramStandin["uploads"],
    replies: [] as InstagramStandin["replies"],
    reactions: [] as InstagramStandin["reactions"],
    mentionReplies: [] as InstagramStandin["mentionReplies"],
    profileLookups: [] as string[],
  };
  let mediaFailures = 0;
  let lookupFailures = 0;
  let sendFailures = { count: 0, status: 0, code: 0, message: "", after: 0, retryAfter: 0 };
  let base = "";

  /** Answers a told failure when one is due (true: answered). */
  const failedSend = (res: http.ServerResponse) => {
    if (sendFailures.count <= 0 || sendFailures.after-- > 0) return false;
    sendFailures.count--;
    const f = sendFailures;
    graphError(res, f.status, f.code, f.message, 0, f.retryAfter ? { "Retry-After": String(f.retryAfter) } : {});
    return true;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const parts = url.pathname.split("/").filter(Boolean);
    // the customers' files: signed links on Meta's CDN, fetched without a token
    if (parts[0] === "cdn" && req.method === "GET") {
      const found = media.get(parts[1] ?? "");
      if (!found) return graphError(res, 404, 100, "URL signature expired");
      if (mediaFailures > 0) {
        mediaFailures--;
        return graphError(res, 500, 2, "An unexpected error has occurred. Please retry your request later.");
      }
      res.writeHead(200, { "Content-Type": found.mime, "Content-Length": found.bytes.length });
      return res.end(found.bytes);
    }
    if (req.headers.authorization !== `Bearer ${accessToken}`) return graphError(res, 401, 190, "Invalid OAuth access token - Cannot parse access token");
    if (parts[0] !== "v21.0") return graphError(res, 404, 803, "Some of the aliases you requested do not exist");
    const [, object, edge] = parts;
    const fields = url.searchParams.get("fields") ?? "";

    if (req.method === "GET" && !edge) {
      if (object === igId) {
        if (/^mentioned_/.test(fields) && lookupFailures > 0) {
          lookupFailures--;
          return graphError(res, 500, 1, "An unknown error occurred");
        }
        const m = /^mentioned_media\.media_id\(([^)]+)\)/.exec(fields);
        if (m) {
          const found = mentionedMedia.get(m[1]);
          if (!found) return graphError(res, 400, 100, `(#100) Media with id ${m[1]} does not mention this user`);
          return json(res, {
            mentioned_media: { id: m[1], caption: found.caption, username: found.username, permalink: `https://www.instagram.com/p/${m[1]}/` },
            id: igId,
          });
        }
        const c = /^mentioned_comment\.comment_id\(([^)]+)\)/.exec(fields);
        if (c) {
          const found = mentionedComments.get(c[1]);
          if (!found) return graphError(res, 400, 100, `(#100) Comment with id ${c[1]} does not mention this user`);
          return json(res, {
            mentioned_comment: {
              id: c[1],
              text: found.text,
              username: found.username,
              media: { id: found.mediaId, permalink: `https://www.instagram.com/p/${found.mediaId}/` },
            },
            id: igId,
          });
        }
        return json(res, { id: igId, username, name: "Stand-in Shop" });
      }
      const user = users.get(object ?? "");
      if (user) {
        standin.profileLookups.push(object!);
        return json(res, { id: object, name: user.name, username: user.username });
      }
      return graphError(
        res,
        400,
        100,
        `Unsupported get request. Object with ID '${object}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      );
    }

    if (req.method === "POST" && (object === "me" || object === igId) && edge === "message_attachments") {
      const body = await readBody(req);
      const form = await new Request("http://standin/", { method: "POST", headers: { "content-type": String(req.headers["content-type"]) }, body }).formData();
      const file = form.get("filedata");
      if (form.get("platform") !== "instagram" || !(file instanceof Blob)) return graphError(res, 400, 100, "(#100) The parameter platform is required");
      const type = String((JSON.parse(String(form.get("message") ?? "{}")) as { attachment?: { type?: string } }).attachment?.type ?? "");
      const attachmentId = id();
      standin.uploads.push({ id: attachmentId, type, name: (file as File).name, mime: file.type, bytes: Buffer.from(await file.arrayBuffer()) });
      return json(res, { attachment_id: attachmentId });
    }

    if (req.method === "POST" && (object === "me" || object === igId) && edge === "messages") {
      let body: {
        recipient?: { id?: string };
        messaging_type?: string;
        tag?: string;
        message?: { text?: string; attachment?: { type?: string; payload?: { attachment_id?: string } } };
        sender_action?: string;
        payload?: { message_id?: string; reaction?: string };
      };
      try {
        body = JSON.parse((await readBody(req)).toString("utf8"));
      } catch {
        return graphError(res, 400, 100, "(#100) Invalid parameter");
      }
      const to = body.recipient?.id ?? "";
      if (!users.has(to)) return graphError(res, 400, 100, "(#100) No matching user found", 2018001);
      if (body.sender_action === "react" || body.sender_action === "unreact") {
        if (!body.payload?.message_id) return graphError(res, 400, 100, "(#100) The parameter payload[message_id] is required");
        // Instagram takes one reaction from a business: "love"
        if (body.sender_action === "react" && body.payload.reaction !== "love") return graphError(res, 400, 100, "(#100) Invalid reaction");
        standin.reactions.push({ to, action: body.sender_action, messageId: body.payload.message_id, reaction: body.payload.reaction });
        return json(res, { recipient_id: to });
      }
      if (!body.message?.text && !body.message?.attachment) return graphError(res, 400, 100, "(#100) Param message must be non-empty");
      const since = Date.now() - (lastWrote.get(to) ?? 0);
      const tagged = body.messaging_type === "MESSAGE_TAG" && body.tag === "HUMAN_AGENT";
      if (since > 7 * 24 * HOUR || (since > 24 * HOUR && !tagged))
        return graphError(res, 400, 10, "(#10) This message is sent outside of allowed window.", 2534022);
      if (failedSend(res)) return;
      const a = body.message.attachment;
      const sent: IgSent = {
        id: `aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOj${randomBytes(12).toString("base64url")}`,
        to,
        messagingType: String(body.messaging_type),
        ...(body.tag ? { tag: body.tag } : {}),
        ...(body.message.text ? { text: body.message.text } : {}),
        ...(a ? { attachment: { type: String(a.type), attachmentId: String(a.payload?.attachment_id) } } : {}),
      };
      standin.sent.push(sent);
      return json(res, { recipient_id: to, message_id: sent.id });
    }

    if (req.method === "POST" && edge === "replies") {
      const p = await params(req, url);
      const parent = comments.get(object ?? "");
      if (!parent) return graphError(res, 400, 100, `Unsupported post request. Object with ID '${object}' does not exist`);
      if (parent.parentId) return graphError(res, 400, 100, "(#100) Replies can only be made to top-level comments");
      if (!p.message) return graphError(res, 400, 100, "(#100) The parameter message is required");
      if (failedSend(res)) return;
      const reply = { id: id(), commentId: object!, message: p.message };
      comments.set(reply.id, { parentId: object });
      standin.replies.push(reply);
      return json(res, { id: reply.id });
    }

    if (req.method === "POST" && object === igId && edge === "mentions") {
      const p = await params(req, url);
      if (!p.media_id || !p.message) return graphError(res, 400, 100, "(#100) The parameters media_id and message are required");
      if (!mentionedMedia.has(p.media_id) && ![...mentionedComments.values()].some((c) => c.mediaId === p.media_id))
        return graphError(res, 400, 100, `(#100) Media with id ${p.media_id} does not mention this user`);
      if (p.comment_id && mentionedComments.get(p.comment_id)?.mediaId !== p.media_id)
        return graphError(res, 400, 100, `(#100) Comment with id ${p.comment_id} does not mention this user`);
      if (failedSend(res)) return;
      const reply = { id: id(), mediaId: p.media_id, ...(p.comment_id ? { commentId: p.comment_id } : {}), message: p.message };
      standin.mentionReplies.push(reply);
      return json(res, { id: reply.id });
    }
    graphError(res, 400, 100, "Unsupported request");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let seq = 0;
  const mid = () => `aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx${Date.now()}${++seq}`;

  const webhookRequest: InstagramStandin["webhookRequest"] = (target, body, options = {}) => {
    const raw = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    // the customers' last messages: the Send API's window counts from them
    for (const entry of ((body as { entry?: { messaging?: { sender?: { id?: string }; timestamp?: number; message?: { is_echo?: boolean } }[] }[] })?.entry ??
      []) as { messaging?: { sender?: { id?: string }; timestamp?: number; message?: { is_echo?: boolean } }[] }[])
      for (const m of entry.messaging ?? [])
        if (m.message && !m.message.is_echo && m.sender?.id && m.sender.id !== igId)
          lastWrote.set(m.sender.id, Math.max(lastWrote.get(m.sender.id) ?? 0, Number(m.timestamp) || Date.now()));
    const secret = options.secret === undefined ? appSecret : options.secret;
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (secret !== null) headers["X-Hub-Signature-256"] = `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
    return new Request(target, { method: "POST", headers, body: raw });
  };

  return {
    apiBase: `${base}/v21.0`,
    accessToken,
    appSecret,
    igId,
    username,
    ...standin,
    addUser(name, handle) {
      const igsid = String(1_000_000_000_000_000 + Math.floor(Math.random() * 1e15));
      users.set(igsid, { name, username: handle });
      return igsid;
    },
    addMedia(bytes, mime) {
      const key = randomBytes(8).toString("hex");
      media.set(key, { bytes, mime });
      return `${base}/cdn/${key}?stp=dst-jpg&_nc_sig=${randomBytes(6).toString("hex")}`;
    },
    failMediaDownloads: (count) => void (mediaFailures = count),
    failLookups: (count) => void (lookupFailures = count),
    failSends: (count, status, code, message, options = {}) =>
      void (sendFailures = { count, status, code, message, after: options.after ?? 0, retryAfter: options.retryAfter ?? 0 }),
    addMentionedMedia(owner, caption) {
      const mediaId = id();
      mentionedMedia.set(mediaId, { caption, username: owner });
      return mediaId;
    },
    addMentionedComment(mediaId, owner, text) {
      const commentId = id();
      mentionedComments.set(commentId, { mediaId, username: owner, text });
      return commentId;
    },
    comment(from, text, mediaId, parentId) {
      const commentId = id();
      comments.set(commentId, { parentId });
      return { from, media: { id: mediaId, media_product_type: "FEED" }, id: commentId, ...(parentId ? { parent_id: parentId } : {}), text };
    },
    messagingBody: (events) => ({ object: "instagram" as const, entry: [{ time: Date.now(), id: igId, messaging: events }] }),
    changesBody: (field, values) => ({
      object: "instagram" as const,
      entry: [{ id: igId, time: Math.floor(Date.now() / 1000), changes: values.map((value) => ({ field, value })) }],
    }),
    text: (from, text, options = {}) => ({
      sender: { id: from },
      recipient: { id: igId },
      timestamp: options.at ?? Date.now(),
      message: { mid: options.mid ?? mid(), text },
    }),
    attachment: (from, type, link) => ({
      sender: { id: from },
      recipient: { id: igId },
      timestamp: Date.now(),
      message: { mid: mid(), attachments: [{ type, payload: { url: link } }] },
    }),
    read: (from, readMid) => ({ sender: { id: from }, recipient: { id: igId }, timestamp: Date.now(), read: { mid: readMid } }),
    reaction: (from, reactedMid, emoji) => ({
      sender: { id: from },
      recipient: { id: igId },
      timestamp: Date.now(),
      reaction: { mid: reactedMid, action: "react", reaction: "love", emoji },
    }),
    webhookRequest,
    async deliver(target, body, options = {}) {
      const response = await fetch(webhookRequest(target, body, options));
      return { status: response.status, text: await response.text() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
