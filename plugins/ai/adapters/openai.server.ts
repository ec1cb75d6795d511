// The OpenAI-compatible adapter: chat completions (whole or streamed as server-sent events) and
// embeddings, against a hosted API or a local server (llama.cpp's server, Ollama, vLLM all speak
// it). Every call has a timeout; a 429, a 5xx, a timeout or an answer that is not the API's JSON
// becomes an AdapterError the service turns into "AI is unavailable" (and the offline reading).
import { retryAfterMs } from "~/jobs/retry-after";

export interface OpenAiConfig {
  baseUrl: string;
  model: string;
  embeddingModel: string;
  apiKey: string;
  timeoutMs: number;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type AdapterErrorKind = "timeout" | "rate_limited" | "bad_response" | "http" | "network";

export class AdapterError extends Error {
  constructor(
    readonly kind: AdapterErrorKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const endpoint = (config: OpenAiConfig, path: string) => `${config.baseUrl.replace(/\/+$/, "")}/${path}`;

async function post(config: OpenAiConfig, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(config.timeoutMs);
  let response: Response;
  try {
    response = await fetch(endpoint(config, path), {
      method: "POST",
      headers: { "content-type": "application/json", ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      redirect: "error",
    });
  } catch (error) {
    if (timeout.aborted) throw new AdapterError("timeout", `no answer within ${config.timeoutMs} ms`);
    throw new AdapterError("network", String((error as Error)?.message ?? error));
  }
  if (response.status === 429) {
    const after = retryAfterMs(response.headers.get("retry-after"));
    await response.body?.cancel();
    throw new AdapterError("rate_limited", "the model's server is rate limiting (429)", after || undefined);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new AdapterError("http", `the model's server answered ${response.status}`);
  }
  return response;
}

async function readJson(response: Response, timeoutMs: number): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new AdapterError("timeout", `no whole answer within ${timeoutMs} ms`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AdapterError("bad_response", "the model's server answered something that is not JSON");
  }
}

/** One chat completion's text. With `onToken`, asks for a stream and hands on each piece as it comes. */
export async function chat(
  config: OpenAiConfig,
  messages: ChatMessage[],
  options: { onToken?: (piece: string) => void; maxTokens?: number; signal?: AbortSignal } = {},
): Promise<string> {
  const stream = !!options.onToken;
  const response = await post(
    config,
    "chat/completions",
    { model: config.model, messages, temperature: 0, max_tokens: options.maxTokens ?? 300, stream },
    options.signal,
  );
  if (!stream) {
    const body = (await readJson(response, config.timeoutMs)) as { choices?: { message?: { content?: unknown } }[] };
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== "string") throw new AdapterError("bad_response", "the answer has no choices[0].message.content");
    return content;
  }
  if (!response.body) throw new AdapterError("bad_response", "a stream with no body");
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") return text;
        let event: { choices?: { delta?: { content?: unknown } }[] };
        try {
          event = JSON.parse(data);
        } catch {
          throw new AdapterError("bad_response", "a stream event that is not JSON");
        }
        const piece = event?.choices?.[0]?.delta?.content;
        if (typeof piece === "string" && piece) {
          text += piece;
          options.onToken!(piece);
        }
      }
    }
  } catch (error) {
    if (error instanceof AdapterError) throw error;
    throw new AdapterError("network", `the stream stopped: ${String((error as Error)?.message ?? error)}`);
  }
  // the server closed without [DONE]: what came is the answer
  return text;
}

/** One vector per input, in the inputs' order. */
export async function embed(config: OpenAiConfig, inputs: string[]): Promise<number[][]> {
  const response = await post(config, "embeddings", { model: config.embeddingModel || config.model, input: inputs });
  const body = (await readJson(response, config.timeoutMs)) as { data?: { index?: number; embedding?: unknown }[] };
  if (!Array.isArray(body?.data) || body.data.length !== inputs.length) throw new AdapterError("bad_response", "the answer has no embedding per input");
  const out: number[][] = new Array(inputs.length);
  body.data.forEach((row, i) => {
    const vector = row.embedding;
    if (!Array.isArray(vector) || !vector.every((n) => typeof n === "number"))
      throw new AdapterError("bad_response", "an embedding that is not a list of numbers");
    out[typeof row.index === "number" ? row.index : i] = vector as number[];
  });
  return out;
}

/** The JSON object a chat model answered (the text from its first "{" to its last "}"), or AdapterError("bad_response"). */
export function answerObject(answer: string): unknown {
  try {
    return JSON.parse(answer.slice(answer.indexOf("{"), answer.lastIndexOf("}") + 1));
  } catch {
    throw new AdapterError("bad_response", "the model did not answer with JSON");
  }
}
