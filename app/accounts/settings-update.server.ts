// The settings the JSON twins change (spec section 7: /api/settings/update_2 {function, value}
// and /api/settings/update {action, day}). The auth check's settings list (language,
// popup_on_call) and the workspace fields it returns: language is the caller's own; every other
// key is the workspace's, for admins only.
import { getDb } from "@db/client";
import { isLanguage } from "~/i18n";
import { setSetting, type SettingKey } from "~/models/settings.server";
import { broadcast } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { audit, type AuditEvent } from "./audit.server";
import { setUserLanguage, type UserRow } from "./users.server";

const validTimeZone = (v: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: v });
    return v.length <= 64;
  } catch {
    return false;
  }
};
const wholeNumber = (min: number, max: number) => (v: string) => /^\d{1,6}$/.test(v) && +v >= min && +v <= max;

type Rule = { scope: "own" | "workspace"; valid: (v: string) => boolean; key?: SettingKey; invalid: string };

/** update_2's functions: what each accepts (texts are the JSON answer's English descriptions). */
export const SETTING_FUNCTIONS: Record<string, Rule> = {
  language: { scope: "own", valid: isLanguage, invalid: "The language must be one of en, ms, zh, ko, ja." },
  popup_on_call: { scope: "workspace", key: "popup_on_call", valid: (v) => v === "0" || v === "1", invalid: "popup_on_call must be 0 or 1." },
  timezone: { scope: "workspace", key: "timezone", valid: validTimeZone, invalid: "That is not a known time zone." },
  acw_seconds: { scope: "workspace", key: "acw_seconds", valid: wholeNumber(0, 3600), invalid: "acw_seconds must be a whole number from 0 to 3600." },
  debug_shortcuts: { scope: "workspace", key: "debug_shortcuts", valid: (v) => v === "0" || v === "1", invalid: "debug_shortcuts must be 0 or 1." },
};

/** update's duration actions: a number of days (spec: saved only when a day value is given). */
export const DURATION_ACTIONS: Record<string, SettingKey> = { auto_close: "auto_close_days" };

export type SettingUpdate = { ok: true; key: string; value: string } | { ok: false; status: 400 | 403; description: string };

/** Workspace settings saved together with their audit entry, then every open page told. */
export async function saveWorkspaceSettings(values: Partial<Record<SettingKey, string>>, entry: AuditEvent) {
  await getDb().transaction(async (tx) => {
    for (const [key, value] of Object.entries(values)) await setSetting(key as SettingKey, value!, tx);
    await audit(entry, tx);
  });
  for (const key of Object.keys(values)) broadcast(SERVER_EVENTS.settingsChanged, { setting: key });
}

/** One workspace setting, audited as settings.changed. */
export async function saveWorkspace(actor: { id: number; name: string }, key: SettingKey, value: string, ip?: string) {
  await saveWorkspaceSettings({ [key]: value }, { action: "settings.changed", actor, target: { type: "setting", id: key }, detail: { value }, ip });
}

export async function updateSetting(actor: UserRow, name: string, raw: unknown, ip = ""): Promise<SettingUpdate> {
  const rule = Object.hasOwn(SETTING_FUNCTIONS, name) ? SETTING_FUNCTIONS[name] : undefined;
  if (!rule) return { ok: false, status: 400, description: "Unknown setting." };
  if (rule.scope === "workspace" && actor.type !== "admin") return { ok: false, status: 403, description: "Access denied" };
  const value = typeof raw === "string" || typeof raw === "number" ? String(raw).trim() : "";
  if (!rule.valid(value)) return { ok: false, status: 400, description: rule.invalid };
  if (rule.scope === "own") await setUserLanguage(actor.id, value);
  else await saveWorkspace(actor, rule.key!, value, ip);
  return { ok: true, key: name, value };
}

export async function updateDuration(actor: UserRow, action: string, day: unknown, ip = ""): Promise<SettingUpdate> {
  const key = Object.hasOwn(DURATION_ACTIONS, action) ? DURATION_ACTIONS[action] : undefined;
  if (!key) return { ok: false, status: 400, description: "Unknown action." };
  if (actor.type !== "admin") return { ok: false, status: 403, description: "Access denied" };
  const value = typeof day === "string" || typeof day === "number" ? String(day).trim() : "";
  if (!value) return { ok: false, status: 400, description: "Please give the number of days." };
  if (!wholeNumber(0, 365)(value)) return { ok: false, status: 400, description: "The number of days must be a whole number from 0 to 365." };
  await saveWorkspace(actor, key, String(Number(value)), ip);
  return { ok: true, key: action, value: String(Number(value)) };
}
