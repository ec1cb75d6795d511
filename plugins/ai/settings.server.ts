// The AI service's settings, one set for the workspace: which adapter reads messages (off, the
// offline default, or an OpenAI-compatible server), that server's base URL, models and key (sealed
// at rest with ~/secrets.server, never sent back to a browser), and the limits every call keeps.
import { eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { seal, unseal } from "~/secrets.server";
import { audit } from "~/accounts/audit.server";

export const ADAPTERS = ["off", "offline", "openai"] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export interface AiSettings {
  adapter: AdapterName;
  baseUrl: string;
  model: string;
  embeddingModel: string;
  /** The key, unsealed (server only). */
  apiKey: string;
  timeoutMs: number;
  /** Calls to the outside adapter a day. */
  dailyBudget: number;
  /** Calls to the outside adapter a minute. */
  ratePerMinute: number;
}

export const DEFAULTS: AiSettings = {
  adapter: "offline",
  baseUrl: "",
  model: "",
  embeddingModel: "",
  apiKey: "",
  timeoutMs: 10_000,
  dailyBudget: 2_000,
  ratePerMinute: 60,
};

const KEYS = ["adapter", "baseUrl", "model", "embeddingModel", "apiKey", "timeoutMs", "dailyBudget", "ratePerMinute"] as const;

let cache: { at: number; value: AiSettings } | undefined;
const CACHE_MS = 5_000;

export function forgetSettings() {
  cache = undefined;
}

/** The settings, from a cache of a few seconds (another node's change is seen within CACHE_MS); `fresh` reads the database. */
export async function aiSettings(fresh = false): Promise<AiSettings> {
  const now = Date.now();
  if (!fresh && cache && now - cache.at < CACHE_MS) return cache.value;
  const { db, schema } = getDb();
  const rows = await db
    .select()
    .from(schema.aiSettings)
    .where(inArray(schema.aiSettings.key, [...KEYS]));
  const stored = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  const value: AiSettings = {
    adapter: (ADAPTERS as readonly string[]).includes(stored.adapter) ? (stored.adapter as AdapterName) : DEFAULTS.adapter,
    baseUrl: stored.baseUrl ?? "",
    model: stored.model ?? "",
    embeddingModel: stored.embeddingModel ?? "",
    apiKey: unseal(stored.apiKey ?? "") ?? "",
    timeoutMs: Number(stored.timeoutMs) || DEFAULTS.timeoutMs,
    dailyBudget: Number(stored.dailyBudget) || DEFAULTS.dailyBudget,
    ratePerMinute: Number(stored.ratePerMinute) || DEFAULTS.ratePerMinute,
  };
  cache = { at: now, value };
  return value;
}

/** Whether anything of a conversation leaves this machine with these settings, and to where. */
export function leavesMachine(s: Pick<AiSettings, "adapter" | "baseUrl">): { leaves: boolean; host: string } {
  if (s.adapter !== "openai" || !s.baseUrl) return { leaves: false, host: "" };
  let host = "";
  try {
    host = new URL(s.baseUrl).host;
  } catch {
    return { leaves: false, host: "" };
  }
  const local = /^(localhost|127\.|\[::1\])/.test(host);
  return { leaves: !local, host };
}

export const settingsSchema = z
  .object({
    adapter: z.enum(ADAPTERS, { message: "plugin_ai.settings.error.adapter" }),
    baseUrl: z.string().trim().max(500, "plugin_ai.settings.error.baseUrl"),
    model: z.string().trim().max(200, "plugin_ai.settings.error.model"),
    embeddingModel: z.string().trim().max(200, "plugin_ai.settings.error.model"),
    apiKey: z.string().max(500, "plugin_ai.settings.error.apiKey"),
    clearKey: z.string().optional(),
    timeoutMs: z.coerce
      .number({ message: "plugin_ai.settings.error.timeout" })
      .int("plugin_ai.settings.error.timeout")
      .min(1000, "plugin_ai.settings.error.timeout")
      .max(120_000, "plugin_ai.settings.error.timeout"),
    dailyBudget: z.coerce
      .number({ message: "plugin_ai.settings.error.budget" })
      .int("plugin_ai.settings.error.budget")
      .min(1, "plugin_ai.settings.error.budget")
      .max(10_000_000, "plugin_ai.settings.error.budget"),
    ratePerMinute: z.coerce
      .number({ message: "plugin_ai.settings.error.rate" })
      .int("plugin_ai.settings.error.rate")
      .min(1, "plugin_ai.settings.error.rate")
      .max(100_000, "plugin_ai.settings.error.rate"),
  })
  .superRefine((v, ctx) => {
    if (v.adapter !== "openai") return;
    let ok = false;
    try {
      const url = new URL(v.baseUrl);
      ok = url.protocol === "https:" || url.protocol === "http:";
    } catch {
      ok = false;
    }
    if (!ok) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["baseUrl"], message: "plugin_ai.settings.error.baseUrl" });
    if (!v.model) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["model"], message: "plugin_ai.settings.error.model" });
  });

export type SettingsInput = z.infer<typeof settingsSchema>;

/** Saves the settings and their audit entry in one transaction; an empty key field keeps the stored key unless clearKey. */
export async function saveSettings(input: SettingsInput, by?: { actor: { id: number; name: string }; ip?: string }) {
  const handle = getDb();
  const t = handle.schema.aiSettings;
  const values: Record<string, string> = {
    adapter: input.adapter,
    baseUrl: input.baseUrl,
    model: input.model,
    embeddingModel: input.embeddingModel,
    timeoutMs: String(input.timeoutMs),
    dailyBudget: String(input.dailyBudget),
    ratePerMinute: String(input.ratePerMinute),
  };
  if (input.apiKey) values.apiKey = seal(input.apiKey);
  else if (input.clearKey) values.apiKey = "";
  await handle.transaction(async (tx) => {
    for (const [key, value] of Object.entries(values)) await tx.insert(t).values({ key, value }).onConflictDoUpdate({ target: t.key, set: { value } });
    if (by)
      await audit(
        {
          action: "ai.settings",
          actor: by.actor,
          ip: by.ip,
          target: { type: "ai", id: "settings" },
          // never the key itself: only whether it changed
          detail: { adapter: input.adapter, baseUrl: input.baseUrl, model: input.model, key: input.apiKey ? "changed" : input.clearKey ? "cleared" : "kept" },
        },
        tx,
      );
  });
  forgetSettings();
}

/** Whether a key is stored (the page says so without showing it). */
export async function hasStoredKey() {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.aiSettings).where(eq(schema.aiSettings.key, "apiKey"));
  return !!row?.value;
}
