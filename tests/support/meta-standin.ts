// A local stand-in for the part of Meta's Graph API the WhatsApp Cloud adapter uses, answering as
// the documentation says it does:
//   GET  /v21.0/{phone-number-id}                 the number (display_phone_number, verified_name)
//   POST /v21.0/{phone-number-id}/messages        JSON send -> {messaging_product, contacts, messages:[{id:"wamid..."}]}
//   POST /v21.0/{phone-number-id}/media           multipart upload -> {id}
//   GET  /v21.0/{media-id}                        -> {url, mime_type, sha256, file_size, id}
//   GET  /media/{media-id}                        the bytes (bearer token required, like lookaside.fbsbx.com)
//   GET  /v21.0/{waba-id}/message_templates       the business's templates, paged (limit, after), status filter
// A template send is checked as WhatsApp does: the name must exist in that language, approved
// (132001), with as many body values as the body has placeholders (132000).
// Errors in Graph's shape {"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}:
// 401/code 190 for a wrong token, 400/131047 outside the 24-hour window, 400/131056 when told to
// rate-limit, 500 when told to fail. It also plays Meta's side of webhooks: signs a body with
// X-Hub-Signature-256 (HMAC-SHA256 of the exact bytes with the app secret) and posts it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, createHmac, randomBytes } from "node:crypto";

export interface SentMessage {
  phoneNumberId: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
  id: string;
}

export interface StandinTemplate {
  name: string;
  language: string;
  status?: string;
  category?: string;
  components: { type: string; format?: string; text?: string; buttons?: unknown[] }[];
}

export interface MetaStandin {
  /** The account's apiBase. */
  apiBase: string;
  /** The WhatsApp Business Account whose templates GET /{id}/message_templates lists. */
  businessAccountId: string;
  /** Adds a template as Graph lists it (status APPROVED unless given). */
  addTemplate(template: StandinTemplate): void;
  accessToken: string;
  appSecret: string;
  phoneNumberId: string;
  sent: SentMessage[];
  uploads: { id: string; type: string; name: string; bytes: Buffer }[];
  /** Serves a customer's file; answers its media id. */
  addMedia(bytes: Buffer, mime: string): string;
  /** The next `count` media downloads answer 500. */
  failMediaDownloads(count: number): void;
  /** The next `count` sends (after `after` more that succeed) answer this status and Graph error. */
  failSends(count: number, status: number, code: number, message: string, after?: number): void;
  /** Signs a webhook body as Meta does (secret null: unsigned) and posts it; answers the product's status and text. */
  deliver(url: string, body: unknown, options?: { secret?: string | null }): Promise<{ status: number; text: string }>;
  /** The same call as a Request, for handing to the route's function directly. */
  webhookRequest(url: string, body: unknown, options?: { secret?: string | null }): Request;
  close(): Promise<void>;
}

const graphError = (res: http.ServerResponse, status: number, code: number, message: string, type = "OAuthException") => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ error: { message, type, code, error_subcode: 0, fbtrace_id: randomBytes(8).toString("base64url") } }));
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

export async function startMetaStandin(options: { phoneNumberId?: string } = {}): Promise<MetaStandin> {
  const accessToken = `EAAG${randomBytes(12).toString("hex")}`;
  const appSecret = randomBytes(16).toString("hex");
  const phoneNumberId = options.phoneNumberId ?? String(100000000000000 + Math.floor(Math.random() * 1e9));
  const media = new Map<string, { bytes: Buffer; mime: string }>();
  const sent: SentMessage[] = [];
  const uploads: MetaStandin["uploads"] = [];
  let mediaFailures = 0;
  let sendFailures: { count: number; status: number; code: number; message: string; after: number } = { count: 0, status: 0, code: 0, message: "", after: 0 };
  let base = "";
  const businessAccountId = String(200000000000000 + Math.floor(Math.random() * 1e9));
  const templates: StandinTemplate[] = [];

  /** WhatsApp's refusal of a template send, or null. */
  const templateProblem = (template: Record<string, unknown> | undefined): [number, string] | null => {
    const name = template?.name;
    const code = (template?.language as { code?: string } | undefined)?.code;
    const found = templates.find((t) => t.name === name && t.language === code && (t.status ?? "APPROVED") === "APPROVED");
    if (!found) return [132001, "(#132001) Template name does not exist in the translation"];
    const body = found.components.find((c) => c.type === "BODY")?.text ?? "";
    const wanted = new Set([...body.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => m[1])).size;
    const components = (template?.components as { type: string; parameters?: unknown[] }[] | undefined) ?? [];
    const given = components.find((c) => c.type === "body")?.parameters?.length ?? 0;
    return given === wanted ? null : [132000, "(#132000) Number of parameters does not match the expected number of params"];
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const parts = url.pathname.split("/").filter(Boolean);
    if (req.headers.authorization !== `Bearer ${accessToken}`) return graphError(res, 401, 190, "Invalid OAuth access token - Cannot parse access token");
    // the media bytes (Meta serves them from another host, with the same token)
    if (parts[0] === "media" && req.method === "GET") {
      const found = media.get(parts[1] ?? "");
      if (!found) return graphError(res, 404, 100, "Unsupported get request.", "GraphMethodException");
      if (mediaFailures > 0) {
        mediaFailures--;
        return graphError(res, 500, 2, "An unexpected error has occurred. Please retry your request later.");
      }
      res.writeHead(200, { "Content-Type": found.mime, "Content-Length": found.bytes.length });
      return res.end(found.bytes);
    }
    if (parts[0] !== "v21.0") return graphError(res, 404, 803, "Some of the aliases you requested do not exist");
    const [, object, edge] = parts;
    if (req.method === "GET" && object === businessAccountId && edge === "message_templates") {
      const status = url.searchParams.get("status");
      const limit = Math.max(1, Number(url.searchParams.get("limit")) || 25);
      const from = Number(url.searchParams.get("after") || 0);
      const listed = templates.filter((t) => !status || (t.status ?? "APPROVED") === status);
      const page = listed.slice(from, from + limit).map((t, i) => ({ id: String(from + i + 1), status: "APPROVED", ...t }));
      const more = from + limit < listed.length;
      return json(res, {
        data: page,
        paging: { cursors: { before: String(from), after: String(from + limit) }, ...(more ? { next: `${base}${url.pathname}?after=${from + limit}` } : {}) },
      });
    }
    if (req.method === "GET" && !edge) {
      if (object === phoneNumberId) return json(res, { display_phone_number: "+1 555-0100", verified_name: "Stand-in Support", id: phoneNumberId });
      const found = media.get(object ?? "");
      if (!found) return graphError(res, 400, 100, `Unsupported get request. Object with ID '${object}' does not exist`, "GraphMethodException");
      return json(res, {
        messaging_product: "whatsapp",
        url: `${base}/media/${object}`,
        mime_type: found.mime,
        sha256: createHash("sha256").update(found.bytes).digest("hex"),
        file_size: found.bytes.length,
        id: object,
      });
    }
    if (object !== phoneNumberId)
      return graphError(res, 400, 100, `Unsupported post request. Object with ID '${object}' does not exist`, "GraphMethodException");
    if (req.method === "POST" && edge === "media") {
      const body = await readBody(req);
      const form = await new Request("http://standin/", { method: "POST", headers: { "content-type": String(req.headers["content-type"]) }, body }).formData();
      const file = form.get("file");
      if (!(file instanceof Blob) || form.get("messaging_product") !== "whatsapp")
        return graphError(res, 400, 100, "(#100) The parameter messaging_product is required.");
      const id = String(Date.now()) + randomBytes(3).toString("hex");
      uploads.push({ id, type: String(form.get("type")), name: (file as File).name, bytes: Buffer.from(await file.arrayBuffer()) });
      return json(res, { id });
    }
    if (req.method === "POST" && edge === "messages") {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse((await readBody(req)).toString("utf8"));
      } catch {
        return graphError(res, 400, 100, "(#100) Invalid parameter");
      }
      if (body.messaging_product !== "whatsapp" || typeof body.to !== "string")
        return graphError(res, 400, 100, "(#100) The parameter messaging_product is required.");
      if (body.type === "reaction") {
        const reaction = body.reaction as { message_id?: unknown; emoji?: unknown } | undefined;
        if (typeof reaction?.message_id !== "string" || typeof reaction.emoji !== "string")
          return graphError(res, 400, 100, "(#100) Invalid parameter: reaction needs message_id and emoji");
      }
      if (body.type === "template") {
        const problem = templateProblem(body.template as Record<string, unknown> | undefined);
        if (problem) return graphError(res, 400, problem[0], problem[1]);
      }
      if (sendFailures.count > 0 && sendFailures.after-- <= 0) {
        sendFailures.count--;
        return graphError(res, sendFailures.status, sendFailures.code, sendFailures.message);
      }
      const id = `wamid.${Buffer.from(randomBytes(18)).toString("base64url")}`;
      sent.push({ phoneNumberId, to: body.to, type: String(body.type), body, id });
      return json(res, { messaging_product: "whatsapp", contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] });
    }
    graphError(res, 400, 100, "Unsupported request");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const webhookRequest: MetaStandin["webhookRequest"] = (url, body, options = {}) => {
    const raw = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    const secret = options.secret === undefined ? appSecret : options.secret;
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (secret !== null) headers["X-Hub-Signature-256"] = `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
    return new Request(url, { method: "POST", headers, body: raw });
  };
  return {
    apiBase: `${base}/v21.0`,
    businessAccountId,
    addTemplate: (template) => void templates.push(template),
    accessToken,
    appSecret,
    phoneNumberId,
    sent,
    uploads,
    addMedia(bytes, mime) {
      const id = String(Date.now()) + randomBytes(4).toString("hex");
      media.set(id, { bytes, mime });
      return id;
    },
    failMediaDownloads: (count) => void (mediaFailures = count),
    failSends: (count, status, code, message, after = 0) => void (sendFailures = { count, status, code, message, after }),
    webhookRequest,
    async deliver(url, body, options = {}) {
      const response = await fetch(webhookRequest(url, body, options));
      return { status: response.status, text: await response.text() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let seq = 0;
/** WhatsApp's webhook body: one entry, one change, with these messages and statuses. */
export function whatsappBody(phoneNumberId: string, value: { messages?: unknown[]; statuses?: unknown[]; contacts?: unknown[] }) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: { messaging_product: "whatsapp", metadata: { display_phone_number: "15550100", phone_number_id: phoneNumberId }, ...value },
          },
        ],
      },
    ],
  };
}

/** A customer's text message as WhatsApp sends it. */
export function waText(from: string, text: string, id = `wamid.in${Date.now()}${++seq}`) {
  return { from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: "text", text: { body: text } };
}

export const waContact = (waId: string, name: string) => ({ profile: { name }, wa_id: waId });

/** A status (receipt) of a message sent by the business. */
export const waStatus = (id: string, status: string, recipient: string, errors?: unknown[]) => ({
  id,
  status,
  timestamp: String(Math.floor(Date.now() / 1000)),
  recipient_id: recipient,
  ...(errors ? { errors } : {}),
});
