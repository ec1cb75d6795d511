// A local stand-in for the part of the Telegram Bot API the TELEGRAM adapter uses, answering as
// https://core.telegram.org/bots/api documents it:
//   /bot<token>/getMe, setWebhook, deleteWebhook, getWebhookInfo
//   /bot<token>/getUpdates      long polling from an offset (updates below it are confirmed and gone);
//                               409 while a webhook is set, or for the older of two concurrent polls
//   /bot<token>/sendMessage     JSON; sendPhoto and sendDocument as multipart (attach://<part>)
//   /bot<token>/getFile         -> file_path, then GET /file/bot<token>/<file_path> gives the bytes
//   /bot<token>/setMessageReaction  the bot's reaction on a message of the chat: an array of at most
//                               one ReactionTypeEmoji from Telegram's list (empty: taken back); other
//                               emoji REACTION_INVALID, two REACTIONS_TOO_MANY, unknown message MESSAGE_ID_INVALID
// Parameters come as JSON, form-urlencoded, multipart or the query string, as Telegram takes them.
// Answers {"ok": true, "result"} or {"ok": false, "error_code", "description", "parameters"}: 401
// for a wrong token, 400 "Bad Request: ..." (chat not found, message text is empty, file is too big),
// 403 for a chat that blocked the bot, 404 for an unknown method, 429 with parameters.retry_after,
// 500 when told to fail. Webhook calls are posted to the registered URL with the registered secret
// in X-Telegram-Bot-Api-Secret-Token, one update per call.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

export interface TgUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface SentMessage {
  method: string;
  chatId: string;
  messageId: number;
  text?: string;
  caption?: string;
  file?: { name: string; bytes: Buffer };
}

type Content =
  | { text: string }
  | { photo: Buffer; caption?: string }
  | { document: Buffer; name: string; mime: string; caption?: string }
  | { voice: Buffer }
  | { sticker: Buffer; emoji?: string }
  | { contact: { phone_number: string; first_name: string; user_id?: number } }
  | { location: { latitude: number; longitude: number } };

interface StoredFile {
  id: string;
  uniqueId: string;
  path: string;
  bytes: Buffer;
  /** A size Telegram reports beside the bytes (to try the 20 MB limit without 20 MB). */
  reportedSize?: number;
}

interface Failure {
  status: number;
  description: string;
  parameters?: Record<string, unknown>;
}

export interface TelegramStandin {
  /** The account's apiBase. */
  apiRoot: string;
  token: string;
  botId: string;
  username: string;
  /** A customer's message as Telegram would hand it over (not delivered yet). */
  update(from: TgUser, content: Content, options?: { fileSize?: number }): Record<string, unknown> & { update_id: number };
  /** Any other update (edited_message, my_chat_member, ...), numbered. */
  rawUpdate(fields: Record<string, unknown>): Record<string, unknown> & { update_id: number };
  /** Keeps an update for getUpdates. */
  queue(update: Record<string, unknown>): void;
  /** Posts an update to the registered webhook (or `url`) as Telegram does; `secret` null sends no header, a string sends that one. */
  deliver(update: Record<string, unknown>, options?: { url?: string; secret?: string | null }): Promise<number>;
  /** The webhook as setWebhook left it. */
  webhook(): { url: string; secretToken: string; allowedUpdates: string[] } | null;
  /** What the bot sent, in order. */
  sent: SentMessage[];
  /** The bot's reaction on each message it reacted to ("chat:message" -> emoji, [] when taken back), as it stands. */
  reactions: Map<string, string[]>;
  /** Every call, as "METHOD /path" with the token left out. */
  requests: string[];
  /** The next `count` calls of `method` ("file" for downloads) answer this error (after `skip` that succeed). */
  failNext(method: string, failure: Failure, count?: number, skip?: number): void;
  /** The chat refuses the bot (403 Forbidden: bot was blocked by the user). */
  block(chatId: number | string): void;
  close(): Promise<void>;
}

/** ReactionTypeEmoji's list, as the Bot API documents it. */
const LISTED = new Set(
  "👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡".split(
    " ",
  ),
);

const digits = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 1 + Math.floor(Math.random() * 9) : Math.floor(Math.random() * 10))).join("");

export async function startTelegramStandin(options: { username?: string } = {}): Promise<TelegramStandin> {
  const botId = digits(10);
  const token = `${botId}:AA${randomBytes(24).toString("base64url").slice(0, 33)}`;
  const username = options.username ?? "omnidesk_test_bot";
  const bot = { id: Number(botId), is_bot: true, first_name: "OmniDesk", username };
  let updateSeq = 700_000_000 + Math.floor(Math.random() * 1000);
  const messageSeq = new Map<string, number>();
  const files = new Map<string, StoredFile>();
  const chats = new Map<string, Record<string, unknown>>();
  const blocked = new Set<string>();
  const pending: Record<string, unknown>[] = [];
  /** Per method, what its next calls answer: a failure, or null for a call that goes through. */
  const failures = new Map<string, (Failure | null)[]>();
  const sent: SentMessage[] = [];
  const reactions = new Map<string, string[]>();
  const requests: string[] = [];
  let hook: { url: string; secretToken: string; allowedUpdates: string[] } | null = null;
  let poller: { answer: (status: number, body: unknown) => void; timer: NodeJS.Timeout } | undefined;
  let wakePoller: (() => void) | undefined;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const nextMessageId = (chatId: string) => {
    const n = (messageSeq.get(chatId) ?? 0) + 1;
    messageSeq.set(chatId, n);
    return n;
  };
  const addFile = (bytes: Buffer, folder: string, ext: string, reportedSize?: number) => {
    const uniqueId = `AgAD${randomBytes(8).toString("base64url")}`;
    const f: StoredFile = {
      id: `${folder.slice(0, 2).toUpperCase()}ACAgUAAxkBAAI${randomBytes(24).toString("base64url")}`,
      uniqueId,
      path: `${folder}/file_${files.size}.${ext}`,
      bytes,
      reportedSize,
    };
    files.set(f.id, f);
    return f;
  };
  const fileFields = (f: StoredFile) => ({ file_id: f.id, file_unique_id: f.uniqueId, file_size: f.reportedSize ?? f.bytes.length });

  const reply = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const ok = (res: http.ServerResponse, result: unknown) => reply(res, 200, { ok: true, result });
  const fail = (res: http.ServerResponse, f: Failure) =>
    reply(res, f.status, { ok: false, error_code: f.status, description: f.description, ...(f.parameters ? { parameters: f.parameters } : {}) });
  const takeFailure = (method: string) => {
    const list = failures.get(method);
    return list?.length ? (list.shift() ?? undefined) : undefined;
  };

  const readBody = async (req: http.IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  /** Parameters and uploaded files, however they were sent. */
  function parseParams(url: URL, type: string, body: Buffer) {
    const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const uploads = new Map<string, { name: string; bytes: Buffer }>();
    if (/^application\/json/i.test(type) && body.length) Object.assign(params, JSON.parse(body.toString("utf8")));
    else if (/^application\/x-www-form-urlencoded/i.test(type)) Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString("utf8"))));
    else if (/^multipart\/form-data/i.test(type)) {
      const boundary = /boundary=("?)([^";]+)\1/i.exec(type)?.[2];
      if (!boundary) throw new Error("no boundary");
      const delimiter = Buffer.from(`--${boundary}`);
      let at = body.indexOf(delimiter);
      while (at >= 0) {
        const start = at + delimiter.length;
        if (body.subarray(start, start + 2).toString() === "--") break;
        const next = body.indexOf(delimiter, start);
        if (next < 0) break;
        // each part: CRLF, headers, CRLF CRLF, content, CRLF
        const part = body.subarray(start + 2, next - 2);
        const split = part.indexOf("\r\n\r\n");
        const headers = part.subarray(0, split).toString("utf8");
        const content = part.subarray(split + 4);
        const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? "";
        const filename = /filename=(?:"([^"]*)"|([^\r\n;]*))/i.exec(headers);
        if (filename) uploads.set(name, { name: (filename[1] ?? filename[2] ?? "").trim(), bytes: Buffer.from(content) });
        else params[name] = content.toString("utf8");
        at = next;
      }
    }
    return { params, uploads };
  }

  const chatOf = (chatId: unknown): { chat?: Record<string, unknown>; failure?: Failure } => {
    const id = String(chatId ?? "");
    if (!id) return { failure: { status: 400, description: "Bad Request: chat_id is empty" } };
    const chat = chats.get(id);
    if (!chat) return { failure: { status: 400, description: "Bad Request: chat not found" } };
    if (blocked.has(id)) return { failure: { status: 403, description: "Forbidden: bot was blocked by the user" } };
    return { chat };
  };

  function getUpdates(res: http.ServerResponse, params: Record<string, unknown>) {
    if (hook)
      return fail(res, {
        status: 409,
        description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      });
    const offset = Number(params.offset) || 0;
    // an update is confirmed once getUpdates is called with an offset higher than its update_id
    if (offset > 0) for (let i = pending.length - 1; i >= 0; i--) if ((pending[i].update_id as number) < offset) pending.splice(i, 1);
    const limit = Math.min(Math.max(Number(params.limit) || 100, 1), 100);
    const ready = () => pending.filter((u) => (u.update_id as number) >= offset).slice(0, limit);
    const timeout = Math.min(Number(params.timeout) || 0, 50);
    if (ready().length || timeout <= 0) return ok(res, ready());
    // only one long poll at a time: the earlier one is told it was cut off
    poller?.answer(409, {
      ok: false,
      error_code: 409,
      description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    });
    const mine = {
      answer: (status: number, body: unknown) => {
        clearTimeout(mine.timer);
        if (poller === mine) {
          poller = undefined;
          wakePoller = undefined;
        }
        if (!res.writableEnded) reply(res, status, body);
      },
      timer: setTimeout(() => mine.answer(200, { ok: true, result: ready() }), timeout * 1000),
    };
    poller = mine;
    wakePoller = () => mine.answer(200, { ok: true, result: ready() });
    res.on("close", () => mine.answer(200, { ok: true, result: [] }));
  }

  function sendFile(
    res: http.ServerResponse,
    method: string,
    field: "photo" | "document",
    params: Record<string, unknown>,
    uploads: Map<string, { name: string; bytes: Buffer }>,
  ) {
    const { chat, failure } = chatOf(params.chat_id);
    if (failure) return fail(res, failure);
    const ref = String(params[field] ?? "");
    const upload = ref.startsWith("attach://") ? uploads.get(ref.slice("attach://".length)) : uploads.get(field);
    if (!upload) return fail(res, { status: 400, description: `Bad Request: there is no ${field} in the request` });
    if (!upload.bytes.length) return fail(res, { status: 400, description: "Bad Request: file must be non-empty" });
    if (field === "photo" && upload.bytes.length > 10 * 1024 * 1024) return fail(res, { status: 400, description: "Bad Request: PHOTO_INVALID_DIMENSIONS" });
    const chatId = String(chat!.id);
    const messageId = nextMessageId(chatId);
    const stored = addFile(upload.bytes, field === "photo" ? "photos" : "documents", field === "photo" ? "jpg" : "bin");
    sent.push({ method, chatId, messageId, caption: params.caption as string | undefined, file: upload });
    const body =
      field === "photo"
        ? { photo: [{ ...fileFields(stored), width: 800, height: 600 }] }
        : { document: { ...fileFields(stored), file_name: upload.name, mime_type: "application/octet-stream" } };
    ok(res, { message_id: messageId, from: bot, chat, date: Math.floor(Date.now() / 1000), ...body });
  }

  /** A reaction list as Telegram checks it: parsed (JSON, or a JSON string in a form), of known types, emoji from its list, one for a bot. */
  function setMessageReaction(res: http.ServerResponse, params: Record<string, unknown>) {
    const { chat, failure } = chatOf(params.chat_id);
    if (failure) return fail(res, failure);
    const chatId = String(chat!.id);
    const messageId = Number(params.message_id);
    if (!Number.isSafeInteger(messageId) || messageId <= 0 || messageId > (messageSeq.get(chatId) ?? 0))
      return fail(res, { status: 400, description: "Bad Request: MESSAGE_ID_INVALID" });
    let list: unknown = params.reaction ?? [];
    if (typeof list === "string") {
      try {
        list = JSON.parse(list);
      } catch {
        return fail(res, { status: 400, description: "Bad Request: can't parse reaction types JSON object" });
      }
    }
    if (!Array.isArray(list)) return fail(res, { status: 400, description: "Bad Request: can't parse reaction types JSON object" });
    const emoji: string[] = [];
    for (const r of list as Record<string, unknown>[]) {
      if (!r || typeof r !== "object" || !["emoji", "custom_emoji", "paid"].includes(String(r.type)))
        return fail(res, { status: 400, description: "Bad Request: can't parse ReactionType JSON object" });
      if (r.type !== "emoji" || !LISTED.has(String(r.emoji))) return fail(res, { status: 400, description: "Bad Request: REACTION_INVALID" });
      emoji.push(String(r.emoji));
    }
    if (emoji.length > 1) return fail(res, { status: 400, description: "Bad Request: REACTIONS_TOO_MANY" });
    reactions.set(`${chatId}:${messageId}`, emoji);
    ok(res, true);
  }

  server.on("request", async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", base);
      const path = decodeURIComponent(url.pathname);
      requests.push(`${req.method} ${path.replace(token, "<token>")}`);
      const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(path);
      if (download) {
        if (download[1] !== token) return fail(res, { status: 401, description: "Unauthorized" });
        const f = takeFailure("file");
        if (f) return fail(res, f);
        const file = [...files.values()].find((x) => x.path === download[2]);
        if (!file) return fail(res, { status: 404, description: "Not Found" });
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(file.bytes.length) });
        return res.end(file.bytes);
      }
      const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
      if (!call) return fail(res, { status: 404, description: "Not Found" });
      if (call[1] !== token) return fail(res, { status: 401, description: "Unauthorized" });
      const method = call[2];
      const body = await readBody(req);
      if (body.length > 50 * 1024 * 1024) return fail(res, { status: 413, description: "Request Entity Too Large" });
      const failure = takeFailure(method);
      if (failure) return fail(res, failure);
      const { params, uploads } = parseParams(url, String(req.headers["content-type"] ?? ""), body);
      switch (method) {
        case "getMe":
          return ok(res, { ...bot, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
        case "setWebhook": {
          const target = String(params.url ?? "");
          if (target && !/^https?:\/\//.test(target))
            return fail(res, { status: 400, description: "Bad Request: bad webhook: Failed to resolve host: Name or service not known" });
          const secret = params.secret_token === undefined ? "" : String(params.secret_token);
          if (secret && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
            return fail(res, { status: 400, description: "Bad Request: secret token contains unallowed characters" });
          const allowed = typeof params.allowed_updates === "string" ? JSON.parse(params.allowed_updates) : params.allowed_updates;
          hook = target ? { url: target, secretToken: secret, allowedUpdates: (allowed as string[]) ?? [] } : null;
          return ok(res, true);
        }
        case "deleteWebhook":
          hook = null;
          if (params.drop_pending_updates === true || params.drop_pending_updates === "true") pending.length = 0;
          return ok(res, true);
        case "getWebhookInfo":
          return ok(res, { url: hook?.url ?? "", has_custom_certificate: false, pending_update_count: pending.length, allowed_updates: hook?.allowedUpdates });
        case "getUpdates":
          return getUpdates(res, params);
        case "sendMessage": {
          const { chat, failure: refused } = chatOf(params.chat_id);
          if (refused) return fail(res, refused);
          const text = String(params.text ?? "");
          if (!text.trim()) return fail(res, { status: 400, description: "Bad Request: message text is empty" });
          if (text.length > 4096) return fail(res, { status: 400, description: "Bad Request: message is too long" });
          const chatId = String(chat!.id);
          const messageId = nextMessageId(chatId);
          sent.push({ method, chatId, messageId, text });
          return ok(res, { message_id: messageId, from: bot, chat, date: Math.floor(Date.now() / 1000), text });
        }
        case "sendPhoto":
          return sendFile(res, method, "photo", params, uploads);
        case "sendDocument":
          return sendFile(res, method, "document", params, uploads);
        case "setMessageReaction":
          return setMessageReaction(res, params);
        case "getFile": {
          const file = files.get(String(params.file_id ?? ""));
          if (!file) return fail(res, { status: 400, description: "Bad Request: invalid file_id" });
          if ((file.reportedSize ?? file.bytes.length) > 20 * 1024 * 1024) return fail(res, { status: 400, description: "Bad Request: file is too big" });
          return ok(res, { ...fileFields(file), file_path: file.path });
        }
      }
      fail(res, { status: 404, description: "Not Found" });
    } catch (error) {
      fail(res, { status: 500, description: `Internal Server Error: ${String(error)}` });
    }
  });

  const numbered = (fields: Record<string, unknown>) => ({ update_id: ++updateSeq, ...fields });

  return {
    apiRoot: base,
    token,
    botId,
    username,
    update(from, content, opts = {}) {
      const chat = { id: from.id, type: "private", first_name: from.first_name, last_name: from.last_name, username: from.username };
      chats.set(String(from.id), chat);
      const chatId = String(from.id);
      const message: Record<string, unknown> = {
        message_id: nextMessageId(chatId),
        from: { ...from, is_bot: false, language_code: "en" },
        chat,
        date: Math.floor(Date.now() / 1000),
      };
      if ("text" in content) message.text = content.text;
      else if ("photo" in content) {
        const f = addFile(content.photo, "photos", "jpg", opts.fileSize);
        const thumb = addFile(content.photo.subarray(0, Math.min(64, content.photo.length)), "photos", "jpg");
        message.photo = [
          { ...fileFields(thumb), width: 90, height: 67 },
          { ...fileFields(f), width: 1280, height: 960 },
        ];
        if (content.caption) message.caption = content.caption;
      } else if ("document" in content) {
        const f = addFile(content.document, "documents", content.name.split(".").pop() || "bin", opts.fileSize);
        message.document = { ...fileFields(f), file_name: content.name, mime_type: content.mime };
        if (content.caption) message.caption = content.caption;
      } else if ("voice" in content) {
        const f = addFile(content.voice, "voice", "oga", opts.fileSize);
        message.voice = { ...fileFields(f), duration: 3, mime_type: "audio/ogg" };
      } else if ("sticker" in content) {
        const f = addFile(content.sticker, "stickers", "webp");
        message.sticker = { ...fileFields(f), width: 512, height: 512, is_animated: false, is_video: false, type: "regular", emoji: content.emoji };
      } else if ("contact" in content) message.contact = content.contact;
      else if ("location" in content) message.location = content.location;
      return numbered({ message });
    },
    rawUpdate: numbered,
    queue(update) {
      pending.push(update);
      pending.sort((a, b) => (a.update_id as number) - (b.update_id as number));
      wakePoller?.();
    },
    async deliver(update, opts = {}) {
      const target = opts.url ?? hook?.url;
      if (!target) throw new Error("no webhook is set");
      const secret = opts.secret === undefined ? hook?.secretToken : opts.secret;
      const response = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json", ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}) },
        body: JSON.stringify(update),
      });
      await response.body?.cancel();
      return response.status;
    },
    webhook: () => hook,
    sent,
    reactions,
    requests,
    failNext(method, failure, count = 1, skip = 0) {
      failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: skip }, () => null), ...Array.from({ length: count }, () => failure)]);
    },
    block(chatId) {
      blocked.add(String(chatId));
    },
    close: () =>
      new Promise<void>((resolve) => {
        poller?.answer(200, { ok: true, result: [] });
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
