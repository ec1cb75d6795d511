// A local stand-in for the part of Meta's Graph API a Facebook Page's Messenger and comments use,
// answering as the documentation says it does (one Meta app, any number of Pages, each with its own
// Page access token):
//   GET  /v21.0/{page-id}?fields=id,name           the Page
//   GET  /v21.0/{psid}?fields=first_name,last_name  a customer's Messenger profile
//   POST /v21.0/{page-id}/messages (or /me/...)     Send API: JSON {recipient, messaging_type, tag, message},
//                                                   or multipart with filedata -> {recipient_id, message_id}
//   POST /v21.0/{comment-id}/comments               a reply comment {message} and/or {attachment_url}: a
//                                                   photo comment, the picture fetched from the URL as
//                                                   Facebook does (not a picture, or unreachable: (#100)) -> {id}
//   GET  /cdn/{id}/{name}                           a customer's file (a signed CDN address: no token)
// The Send API keeps Messenger's windows: RESPONSE only within 24 hours of the customer's last
// message, MESSAGE_TAG HUMAN_AGENT within 7 days (when the app has the permission), else
// (#10) subcode 2018278. Errors in Graph's shape {"error": {"message", "type", "code",
// "error_subcode", "fbtrace_id"}}; a wrong token is 190; sends can be told to fail (429 with
// Retry-After, code 613, 500...). It also plays Meta's side of webhooks: builds "page" bodies and
// signs them with X-Hub-Signature-256 (HMAC-SHA256 of the exact bytes with the app secret).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomBytes } from "node:crypto";

export interface FbSent {
  pageId: string;
  recipient: string;
  messagingType: string;
  tag?: string;
  text?: string;
  attachment?: { type: string; name: string; mime: string; bytes: Buffer };
  id: string;
}
export interface FbReply {
  commentId: string;
  message: string;
  /** A photo comment's picture as fetched from its attachment_url. */
  photo?: { url: string; type: string; bytes: Buffer };
  id: string;
}
export interface FbPage {
  id: string;
  accessToken: string;
  name: string;
}

const MB = 1024 * 1024;
const DAY = 24 * 3_600_000;

const graphError = (
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  options: { subcode?: number; type?: string; retryAfter?: number } = {},
) => {
  res.writeHead(status, { "Content-Type": "application/json", ...(options.retryAfter ? { "Retry-After": String(options.retryAfter) } : {}) });
  res.end(
    JSON.stringify({
      error: { message, type: options.type ?? "OAuthException", code, error_subcode: options.subcode ?? 0, fbtrace_id: randomBytes(8).toString("base64url") },
    }),
  );
};
const json = (res: http.ServerResponse, body: unknown) => {
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};
async function readBody(req: http.IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

let seq = 0;
const nextId = () => `${Date.now()}${++seq}`;

export async function startFacebookStandin() {
  const appSecret = randomBytes(16).toString("hex");
  const pages = new Map<string, FbPage>();
  const users = new Map<string, { first_name: string; last_name: string; lastMessageAt: number }>();
  const comments = new Map<string, { pageId: string; postId: string }>();
  const files = new Map<string, { bytes: Buffer; mime: string }>();
  const sent: FbSent[] = [];
  const replies: FbReply[] = [];
  /** The Page's reactions and take-backs (sender actions react and unreact), in order. */
  const reactions: { pageId: string; recipient: string; action: string; messageId: string; reaction?: string }[] = [];
  const profileLookups: string[] = [];
  let humanAgentAllowed = true;
  let fileFailures = 0;
  let failures = { count: 0, status: 0, code: 0, message: "", after: 0, retryAfter: 0 };
  let base = "";

  const addPage = (name = "Stand-in Store"): FbPage => {
    const page = { id: String(100000000000000 + Math.floor(Math.random() * 1e12)), accessToken: `EAAB${randomBytes(12).toString("hex")}`, name };
    pages.set(page.id, page);
    return page;
  };
  const pageOfToken = (req: http.IncomingMessage) => [...pages.values()].find((p) => req.headers.authorization === `Bearer ${p.accessToken}`);
  /** A configured failure, if the next send should meet one. */
  const failing = () => {
    if (failures.count > 0 && failures.after-- <= 0) {
      failures.count--;
      return failures;
    }
    return null;
  };

  async function sendApi(req: http.IncomingMessage, res: http.ServerResponse, page: FbPage) {
    const raw = await readBody(req);
    const type = String(req.headers["content-type"] ?? "");
    let fields: Record<string, unknown>;
    let filedata: File | null = null;
    if (type.startsWith("multipart/form-data")) {
      const form = await new Request("http://standin/", { method: "POST", headers: { "content-type": type }, body: raw }).formData();
      const parse = (v: FormDataEntryValue | null) => (typeof v === "string" ? JSON.parse(v) : undefined);
      fields = {
        recipient: parse(form.get("recipient")),
        message: parse(form.get("message")),
        messaging_type: form.get("messaging_type"),
        tag: form.get("tag"),
      };
      filedata = form.get("filedata") as File | null;
    } else {
      try {
        fields = JSON.parse(raw.toString("utf8"));
      } catch {
        return graphError(res, 400, 100, "(#100) Invalid parameter");
      }
    }
    const recipient = (fields.recipient as { id?: string } | undefined)?.id;
    const message = (fields.message ?? {}) as { text?: string; attachment?: { type?: string } };
    if (!recipient) return graphError(res, 400, 100, "(#100) The parameter recipient is required");
    const user = users.get(recipient);
    if (!user) return graphError(res, 400, 100, "(#100) No matching user found", { subcode: 2018001 });
    const action = fields.sender_action;
    if (action === "react" || action === "unreact") {
      const payload = (fields.payload ?? {}) as { message_id?: string; reaction?: string };
      if (!payload.message_id) return graphError(res, 400, 100, "(#100) The parameter payload[message_id] is required");
      if (action === "react" && !payload.reaction) return graphError(res, 400, 100, "(#100) The parameter payload[reaction] is required");
      reactions.push({ pageId: page.id, recipient, action, messageId: payload.message_id, reaction: payload.reaction });
      return json(res, { recipient_id: recipient });
    }
    const messagingType = String(fields.messaging_type ?? "");
    if (!["RESPONSE", "UPDATE", "MESSAGE_TAG"].includes(messagingType))
      return graphError(res, 400, 100, "(#100) Param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}");
    const age = Date.now() - user.lastMessageAt;
    if (messagingType === "MESSAGE_TAG") {
      if (fields.tag !== "HUMAN_AGENT") return graphError(res, 400, 100, "(#100) Invalid tag");
      if (!humanAgentAllowed) return graphError(res, 400, 10, "(#10) Application does not have permission for this action", { subcode: 2018065 });
    }
    if (age > (messagingType === "MESSAGE_TAG" ? 7 * DAY : DAY))
      return graphError(res, 400, 10, "(#10) This message is sent outside of allowed window.", { subcode: 2018278 });
    if (!message.text && !message.attachment) return graphError(res, 400, 100, "(#100) Must send either message or state");
    if (message.text && Array.from(message.text).length > 2000)
      return graphError(res, 400, 100, "(#100) Length of param message[text] must be less than or equal to 2000");
    if (message.attachment && (!filedata || filedata.size > 25 * MB))
      return graphError(res, 400, 100, "(#100) Upload attachment failure.", { subcode: 2018047 });
    const failure = failing();
    if (failure) return graphError(res, failure.status, failure.code, failure.message, { retryAfter: failure.retryAfter });
    const id = `m_${randomBytes(18).toString("base64url")}`;
    sent.push({
      pageId: page.id,
      recipient,
      messagingType,
      ...(fields.tag ? { tag: String(fields.tag) } : {}),
      ...(message.text ? { text: message.text } : {}),
      ...(filedata
        ? { attachment: { type: String(message.attachment?.type), name: filedata.name, mime: filedata.type, bytes: Buffer.from(await filedata.arrayBuffer()) } }
        : {}),
      id,
    });
    return json(res, { recipient_id: recipient, message_id: id });
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const parts = url.pathname.split("/").filter(Boolean);
    // a customer's file on the CDN: a signed address, no token
    if (parts[0] === "cdn" && req.method === "GET") {
      const found = files.get(parts[1] ?? "");
      if (!found) return graphError(res, 404, 100, "URL signature expired");
      if (fileFailures > 0) {
        fileFailures--;
        res.writeHead(503);
        return res.end();
      }
      res.writeHead(200, { "Content-Type": found.mime, "Content-Length": found.bytes.length });
      return res.end(found.bytes);
    }
    const page = pageOfToken(req);
    if (!page) return graphError(res, 401, 190, "Invalid OAuth access token - Cannot parse access token");
    if (parts[0] !== "v21.0") return graphError(res, 404, 803, "Some of the aliases you requested do not exist");
    const [, object, edge] = parts;
    const target = object === "me" ? page.id : (object ?? "");
    if (req.method === "GET" && !edge) {
      if (pages.has(target)) {
        if (target !== page.id) return graphError(res, 400, 190, "(#190) This method must be called with a Page Access Token");
        return json(res, { id: page.id, name: page.name });
      }
      const user = users.get(target);
      if (!user) return graphError(res, 400, 100, `Unsupported get request. Object with ID '${target}' does not exist`, { type: "GraphMethodException" });
      profileLookups.push(target);
      return json(res, { first_name: user.first_name, last_name: user.last_name, id: target });
    }
    if (req.method === "POST" && edge === "messages") {
      if (target !== page.id)
        return graphError(res, 400, 100, `Unsupported post request. Object with ID '${target}' does not exist`, { type: "GraphMethodException" });
      return sendApi(req, res, page);
    }
    if (req.method === "POST" && edge === "comments") {
      const comment = comments.get(target);
      if (!comment || comment.pageId !== page.id)
        return graphError(res, 400, 100, `Unsupported post request. Object with ID '${target}' does not exist`, { type: "GraphMethodException" });
      let body: { message?: string; attachment_url?: string };
      try {
        body = JSON.parse((await readBody(req)).toString("utf8"));
      } catch {
        return graphError(res, 400, 100, "(#100) Invalid parameter");
      }
      if (!body.message && !body.attachment_url) return graphError(res, 400, 100, "(#100) Missing message or attachment");
      const failure = failing();
      if (failure) return graphError(res, failure.status, failure.code, failure.message, { retryAfter: failure.retryAfter });
      let photo: FbReply["photo"];
      if (body.attachment_url) {
        // Facebook fetches the picture now; one it cannot get, or that is no picture, is refused
        const fetched = await fetch(body.attachment_url, { redirect: "manual" }).catch(() => null);
        const type = fetched?.headers.get("content-type") ?? "";
        if (!fetched?.ok || !/^image\/(jpeg|png|gif)$/.test(type))
          return graphError(res, 400, 100, "(#100) The attachment_url could not be fetched or is not a supported image");
        photo = { url: body.attachment_url, type, bytes: Buffer.from(await fetched.arrayBuffer()) };
      }
      const id = `${comment.postId.split("_")[1] ?? comment.postId}_${nextId()}`;
      comments.set(id, { pageId: page.id, postId: comment.postId });
      replies.push({ commentId: target, message: body.message ?? "", id, ...(photo ? { photo } : {}) });
      return json(res, { id });
    }
    graphError(res, 400, 100, "Unsupported request");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const webhookRequest = (url: string, body: unknown, options: { secret?: string | null } = {}) => {
    const raw = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    const secret = options.secret === undefined ? appSecret : options.secret;
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (secret !== null) headers["X-Hub-Signature-256"] = `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
    return new Request(url, { method: "POST", headers, body: raw });
  };

  const firstPage = addPage();
  return {
    /** The accounts' apiBase. */
    apiBase: `${base}/v21.0`,
    appSecret,
    page: firstPage,
    addPage,
    sent,
    reactions,
    replies,
    /** Customers whose profile was asked for, in order. */
    profileLookups,
    /** A Messenger user (their page-scoped id). */
    addUser(first: string, last: string) {
      const psid = String(7000000000000000 + Math.floor(Math.random() * 1e15));
      users.set(psid, { first_name: first, last_name: last, lastMessageAt: 0 });
      return psid;
    },
    /** Serves a customer's file on the CDN; answers its address. */
    addFile(bytes: Buffer, mime: string, name: string) {
      const id = randomBytes(6).toString("hex");
      files.set(id, { bytes, mime });
      return `${base}/cdn/${id}/${encodeURIComponent(name)}?_nc_cat=1&oh=${randomBytes(8).toString("hex")}`;
    },
    failFileDownloads: (count: number) => void (fileFailures = count),
    /** The next `count` sends or comment replies (after `after` that succeed) answer this status and Graph error. */
    failSends: (count: number, status: number, code: number, message: string, options: { after?: number; retryAfter?: number } = {}) =>
      void (failures = { count, status, code, message, after: options.after ?? 0, retryAfter: options.retryAfter ?? 0 }),
    /** Whether the app was granted the HUMAN_AGENT tag. */
    allowHumanAgent: (allowed: boolean) => void (humanAgentAllowed = allowed),

    /** A customer's text message event (their message is what the Send API's windows count from). */
    text(pageId: string, psid: string, text: string, options: { at?: number; mid?: string; quickReply?: string } = {}) {
      const at = options.at ?? Date.now();
      const user = users.get(psid);
      if (user) user.lastMessageAt = Math.max(user.lastMessageAt, at);
      return {
        sender: { id: psid },
        recipient: { id: pageId },
        timestamp: at,
        message: { mid: options.mid ?? `m_in${nextId()}`, text, ...(options.quickReply ? { quick_reply: { payload: options.quickReply } } : {}) },
      };
    },
    /** A customer's message with files (each an address from addFile). */
    attachments(pageId: string, psid: string, attached: { type: string; url: string }[]) {
      const at = Date.now();
      const user = users.get(psid);
      if (user) user.lastMessageAt = Math.max(user.lastMessageAt, at);
      return {
        sender: { id: psid },
        recipient: { id: pageId },
        timestamp: at,
        message: { mid: `m_in${nextId()}`, attachments: attached.map((a) => ({ type: a.type, payload: { url: a.url } })) },
      };
    },
    echo: (pageId: string, psid: string, text: string) => ({
      sender: { id: pageId },
      recipient: { id: psid },
      timestamp: Date.now(),
      message: { mid: `m_echo${nextId()}`, is_echo: true, app_id: 1517776481860111, text },
    }),
    postback: (pageId: string, psid: string, title: string, payload: string) => ({
      sender: { id: psid },
      recipient: { id: pageId },
      timestamp: Date.now(),
      postback: { mid: `m_pb${nextId()}`, title, payload },
    }),
    delivery: (pageId: string, psid: string, watermark: number, mids?: string[]) => ({
      sender: { id: psid },
      recipient: { id: pageId },
      delivery: { ...(mids ? { mids } : {}), watermark },
    }),
    read: (pageId: string, psid: string, watermark: number) => ({
      sender: { id: psid },
      recipient: { id: pageId },
      timestamp: Date.now(),
      read: { watermark },
    }),
    /** A post of the Page (its id as Graph writes it, pageid_postid). */
    post: (pageId: string) => `${pageId}_${nextId()}`,
    /** A comment on a post (parent: the top-level comment it replies to), as the feed change Meta sends. */
    comment(
      pageId: string,
      postId: string,
      from: { id: string; name: string },
      message: string,
      options: { parent?: string; verb?: string; id?: string } = {},
    ) {
      const id = options.id ?? `${postId.split("_")[1]}_${nextId()}`;
      comments.set(id, { pageId, postId });
      return {
        field: "feed",
        value: {
          from,
          post: { status_type: "added_photos", is_published: true, updated_time: new Date().toISOString(), id: postId },
          message,
          post_id: postId,
          comment_id: id,
          created_time: Math.floor(Date.now() / 1000),
          item: "comment",
          parent_id: options.parent ?? postId,
          verb: options.verb ?? "add",
        },
      };
    },
    /** A "page" webhook body: entries of Messenger events and feed changes. */
    body(entries: { pageId: string; messaging?: unknown[]; changes?: unknown[] }[]) {
      return {
        object: "page",
        entry: entries.map((e) => ({
          id: e.pageId,
          time: Date.now(),
          ...(e.messaging ? { messaging: e.messaging } : {}),
          ...(e.changes ? { changes: e.changes } : {}),
        })),
      };
    },
    webhookRequest,
    async deliver(url: string, body: unknown, options: { secret?: string | null } = {}) {
      const response = await fetch(webhookRequest(url, body, options));
      return { status: response.status, text: await response.text() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FacebookStandin = Awaited<ReturnType<typeof startFacebookStandin>>;
