// The AI service: one door for every AI call of the product. It picks the adapter the workspace
// chose (off, the offline default, or an OpenAI-compatible server) and gives every outside call a
// timeout, the workspace's rate limit (rate-limiter-flexible) and daily budget (counted in the
// database, so every node and every restart see the same count) and a cache of answers. An outside
// call that fails in any way (timeout, 429, 5xx, garbage, over the limits) never hangs or throws
// at its caller: the offline reading answers instead and says the outside model was unavailable.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { getDb } from "@db/client";
import { analyseText, detectLanguage, LANGUAGE_WEIGHT, MAX_CHARS, type Analysis } from "./analyse";
import { analysisPrompt, readAnswer } from "./adapters/llm-analyse";
import { AdapterError, chat, type OpenAiConfig } from "./adapters/openai.server";
import { aiSettings, type AiSettings } from "./settings.server";

export type ServiceAnswer =
  | { state: "not_configured" }
  | { state: "ok"; analysis: Analysis }
  /** The outside model could not answer: `analysis` is the offline reading, `reason` why. */
  | { state: "unavailable"; analysis: Analysis; reason: string };

const CACHE_MAX = 1_000;
const cache = new Map<string, unknown>();

function remember(key: string, value: unknown) {
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

let limiter: { rate: number; limiter: RateLimiterMemory } | undefined;
function rateLimiter(rate: number) {
  if (limiter?.rate !== rate) limiter = { rate, limiter: new RateLimiterMemory({ points: rate, duration: 60 }) };
  return limiter.limiter;
}

export function resetServiceState() {
  cache.clear();
  limiter = undefined;
}

const day = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Takes one call from today's budget; false when it is spent. */
export async function takeFromBudget(budget: number, now = Date.now()): Promise<boolean> {
  const { db, schema, dialect } = getDb();
  const key = `usage:${day(now)}`;
  const t = schema.aiSettings;
  // one statement: two nodes at once cannot both take the last call
  const cast = dialect === "pg" ? sql`(${t.value}::integer + 1)::text` : sql`CAST(CAST(${t.value} AS INTEGER) + 1 AS TEXT)`;
  await db.insert(t).values({ key, value: "0" }).onConflictDoNothing();
  const updated = await db
    .update(t)
    .set({ value: cast })
    .where(sql`${t.key} = ${key} AND CAST(${t.value} AS INTEGER) < ${budget}`)
    .returning();
  return updated.length > 0;
}

export async function usedToday(now = Date.now()): Promise<number> {
  const { db, schema } = getDb();
  const rows = await db
    .select()
    .from(schema.aiSettings)
    .where(sql`${schema.aiSettings.key} = ${`usage:${day(now)}`}`);
  return Number(rows[0]?.value ?? 0);
}

export function openAiConfig(s: AiSettings): OpenAiConfig {
  return { baseUrl: s.baseUrl, model: s.model, embeddingModel: s.embeddingModel, apiKey: s.apiKey, timeoutMs: s.timeoutMs };
}

/** Reads one message with the workspace's adapter. */
export async function analyse(input: string, settings?: AiSettings): Promise<ServiceAnswer> {
  const s = settings ?? (await aiSettings());
  if (s.adapter === "off") return { state: "not_configured" };
  const offline = analyseText(input);
  if (!usesOutside(s)) return { state: "ok", analysis: offline };

  const text = input.length > MAX_CHARS ? input.slice(0, MAX_CHARS) : input;
  const answer = await callOutside(s, `analyse\n${text}`, async () => {
    const language = detectLanguage(text);
    const reply = await chat(openAiConfig(s), analysisPrompt(text));
    return readAnswer(
      reply,
      text,
      { language, degraded: (LANGUAGE_WEIGHT[language] ?? 0) < 1 && language !== "", truncated: offline.truncated },
      `openai:${s.model}`.slice(0, 100),
    );
  });
  return answer.ok ? { state: "ok", analysis: answer.value } : { state: "unavailable", analysis: offline, reason: answer.reason };
}

/**
 * One call to the outside model with the service's guards: the cache (by `what`, the call's kind
 * and input), the per-minute rate limit, the daily budget, and any failure (timeout, 429,
 * garbage, a refused answer) answered as its reason, never thrown. Every outside call of the
 * plugin (analysis, recommendations, translation) goes through here.
 */
export async function callOutside<T>(s: AiSettings, what: string, call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; reason: string }> {
  const key = createHash("sha256").update(`${s.baseUrl}\n${s.model}\n${what}`).digest("hex");
  if (cache.has(key)) return { ok: true, value: cache.get(key) as T };
  try {
    await rateLimiter(s.ratePerMinute).consume("workspace");
  } catch {
    return { ok: false, reason: "rate_limit" };
  }
  if (!(await takeFromBudget(s.dailyBudget))) return { ok: false, reason: "budget" };
  try {
    const value = await call();
    remember(key, value);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, reason: error instanceof AdapterError ? error.kind : "network" };
  }
}

/** Whether the workspace reads with an outside model (an OpenAI-compatible server with an address and a model). */
export const usesOutside = (s: AiSettings) => s.adapter === "openai" && !!s.baseUrl && !!s.model;
