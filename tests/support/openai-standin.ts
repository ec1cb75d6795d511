// A local stand-in for the part of the OpenAI API (and of the servers that copy it: llama.cpp's
// server, Ollama, vLLM) the AI plugin's adapter uses, answering in the API's shapes:
//   POST /v1/chat/completions  {model, messages, stream?} -> {id, object, choices: [{message}]}
//                              or, with stream: true, text/event-stream of chat.completion.chunk
//                              events ("data: {...}\n\n") ending with "data: [DONE]"
//   POST /v1/embeddings        {model, input: string | string[]} -> {object: "list", data: [{index, embedding}]}
// Errors in the API's shape {"error": {message, type, code}}; a wrong key is 401. What it answers
// is set per test (`mode`): a fixed reply, 429 with Retry-After, garbage that is not JSON, a
// stall longer than the client's timeout, a stream cut before [DONE], or a model that obeys a
// prompt injection and answers with the system prompt. Every request is kept (`requests`) so a
// test can check exactly what left the machine.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type StandinMode = "reply" | "rate_limited" | "garbage" | "stall" | "cut_stream" | "obey_injection" | "no_choices";

export interface StandinRequest {
  path: string;
  authorization: string;
  body: Record<string, unknown>;
}

export interface OpenAiStandin {
  url: string;
  requests: StandinRequest[];
  mode: StandinMode;
  /** The assistant's reply in "reply" mode. */
  reply: string;
  /** In "reply" mode, when set: the reply computed from the request's messages (a model that reads what it is sent). */
  respond: ((messages: { role: string; content: string }[]) => string) | undefined;
  key: string;
  close(): Promise<void>;
}

/** A deterministic vector for a text (the same text, the same vector). */
export function fakeEmbedding(text: string, dims = 8): number[] {
  const v = new Array(dims).fill(0);
  for (let i = 0; i < text.length; i++) v[i % dims] += text.charCodeAt(i) / 1000;
  return v.map((x) => Math.round(x * 1000) / 1000);
}

export async function startOpenAiStandin(options: { key?: string } = {}): Promise<OpenAiStandin> {
  const state = {
    mode: "reply" as StandinMode,
    reply: "{}",
    respond: undefined as OpenAiStandin["respond"],
    key: options.key ?? "sk-test-standin",
  };
  const requests: StandinRequest[] = [];
  const sockets = new Set<import("node:net").Socket>();
  const error = (res: http.ServerResponse, status: number, message: string, type: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ error: { message, type, code: null } }));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        return error(res, 400, "We could not parse the JSON body of your request.", "invalid_request_error");
      }
      const path = (req.url ?? "").split("?")[0];
      requests.push({ path, authorization: String(req.headers.authorization ?? ""), body });
      if (req.headers.authorization !== `Bearer ${state.key}`) return error(res, 401, "Incorrect API key provided.", "invalid_request_error");
      if (state.mode === "rate_limited") return error(res, 429, "Rate limit reached for requests", "requests", { "retry-after": "7" });
      if (state.mode === "stall") return; // never answers: the client's timeout must end it
      if (state.mode === "garbage") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end("<html>Bad gateway</html>{not json");
      }
      if (req.method !== "POST") return error(res, 405, "Method not allowed", "invalid_request_error");

      if (path === "/v1/embeddings") {
        const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? "")];
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(
          JSON.stringify({
            object: "list",
            model: body.model,
            data: input.map((text, index) => ({ object: "embedding", index, embedding: fakeEmbedding(text) })),
            usage: { prompt_tokens: input.join(" ").length, total_tokens: input.join(" ").length },
          }),
        );
      }
      if (path !== "/v1/chat/completions") return error(res, 404, `Unknown request URL: POST ${path}`, "invalid_request_error");

      const messages = (body.messages as { role: string; content: string }[]) ?? [];
      let content = state.mode === "reply" && state.respond ? state.respond(messages) : state.reply;
      if (state.mode === "obey_injection") {
        // a model that does what the customer's message says: puts its instructions (and a made-up secret) in its answer
        const system = messages.find((m) => m.role === "system")?.content ?? "";
        content = JSON.stringify({
          emotion: "happy",
          confidence: 1,
          classification: "praise",
          intent: "give_thanks",
          subject: `${system.slice(0, 80)} password hunter2`,
          personality: "amiable",
        });
      }
      if (state.mode === "no_choices") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ id: "chatcmpl-x", object: "chat.completion", choices: [] }));
      }
      if (body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const pieces = content.match(/.{1,7}/gs) ?? [];
        const cut = state.mode === "cut_stream" ? Math.ceil(pieces.length / 2) : pieces.length;
        res.write(`data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant" } }] })}\n\n`);
        for (const piece of pieces.slice(0, cut))
          res.write(`data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
        // the connection drops mid-answer, after the first half has reached the client
        if (state.mode === "cut_stream") return void setTimeout(() => res.destroy(), 50);
        res.write(
          `data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
        );
        return res.end("data: [DONE]\n\n");
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(m: StandinMode) {
      state.mode = m;
    },
    get reply() {
      return state.reply;
    },
    set reply(r: string) {
      state.reply = r;
    },
    get respond() {
      return state.respond;
    },
    set respond(r: OpenAiStandin["respond"]) {
      state.respond = r;
    },
    get key() {
      return state.key;
    },
    set key(k: string) {
      state.key = k;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A model for `respond` that translates (the AI plugin's translation prompt: a JSON list of
 * {id, text} after a "Target language: …" line) by a phrase book of whole texts, answering
 * {"texts": [...]}; any other prompt gets `otherwise`. Unknown texts come back marked, so a test
 * sees what was asked.
 */
export function phraseBookModel(book: Record<string, string>, otherwise: string) {
  return (messages: { role: string; content: string }[]) => {
    const system = messages.find((m) => m.role === "system")?.content ?? "";
    const user = messages.find((m) => m.role === "user")?.content ?? "";
    if (!system.startsWith("You translate")) return otherwise;
    const target = user.match(/\(([a-z]{2,3})\)/)?.[1] ?? "";
    const items = JSON.parse(user.slice(user.indexOf("\n") + 1)) as { id: number; text: string }[];
    return JSON.stringify({ texts: items.map((i) => ({ id: i.id, text: book[i.text] ?? `[${target}] ${i.text}` })) });
  };
}
