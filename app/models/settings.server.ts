// Workspace settings: key/value rows with typed defaults.
import { eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";

export const SETTING_DEFAULTS = {
  admin_name: "Demo Admin",
  admin_username: "admin",
  client_id: "1",
  plan: "99",
  account_type: "1",
  /** Unix ms when the subscription or trial ends; empty for none. */
  account_expires_at: "",
  /** Users paid for (payment plugin); 0 when nothing was bought: no limit (app/accounts/seats.server.ts). */
  seats: "0",
  /** Users a trial workspace (account_type 0) may have. */
  trial_seats: "5",
  /** Who invoices are made out to; a purchase needs both (spec: 'Billing information could not be found.'). */
  billing_name: "",
  billing_email: "",
  rank: "9999999",
  acw_seconds: "30",
  timezone: "Asia/Kuala_Lumpur",
  popup_on_call: "0",
  /** The SIP trunk agents' outside calls go out through (host or host:port); empty: no outbound calls (/call_config). */
  call_trunk: "",
  /** Put in front of each outside number's digits towards the trunk (the auth check's call_prefix). */
  call_prefix: "",
  /** The caller ID outside calls show (one of the workspace's DIDs, in P-Asserted-Identity); empty: the agent's extension. */
  call_caller_id: "",
  /** The trunk's digest credentials, for a trunk that challenges our INVITEs (401/407); empty user: none. The password is sealed (secrets.server). */
  call_trunk_user: "",
  call_trunk_password: "",
  language: "en",
  /** Department that receives tickets from the public new-ticket form (2: Support in the demo). */
  new_ticket_department: "2",
  /** Department whose agents take live chats (2: Support in the demo). */
  livechat_department: "2",
  /** Name and photo the live chat shows visitors ("You are connecting to"); empty: the product title and logo. */
  livechat_name: "",
  livechat_photo: "",
  /** Links on the public live chat pages. */
  privacy_url: "/about#privacy",
  /** The admin's announcement to all agents: JSON {text, by, at}, or empty. */
  announcement: "",
  terms_url: "/about#terms",
  /** A session unused this many hours ends (on top of its one-year lifetime); /settings/security. */
  session_idle_hours: "12",
  /** A sign-in lasts at most this many days, however active (ASVS 3.3.2 L1: 30); /settings/security. */
  session_max_days: "30",
  /** Days a resolved ticket waits before it closes (0: never), set by POST /api/settings/update; nothing applies it yet. */
  auto_close_days: "0",
  /** "1": agents too get the debug shortcuts (alt+shift+letter); admins always have them. */
  debug_shortcuts: "0",
} as const;
export type SettingKey = keyof typeof SETTING_DEFAULTS;

export async function getSettings(): Promise<Record<SettingKey, string>> {
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.settings);
  const out: Record<string, string> = { ...SETTING_DEFAULTS };
  for (const row of rows) if (row.key in SETTING_DEFAULTS) out[row.key] = row.value;
  return out as Record<SettingKey, string>;
}

export async function setSetting(key: SettingKey, value: string, tx?: Tx) {
  const { db, schema } = getDb();
  await (tx ?? db).insert(schema.settings).values({ key, value }).onConflictDoUpdate({ target: schema.settings.key, set: { value } });
}

export async function getSetting(key: SettingKey) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.settings).where(eq(schema.settings.key, key));
  return row?.value ?? SETTING_DEFAULTS[key];
}

export interface Workspace {
  adminName: string;
  adminUsername: string;
  clientId: number;
  plan: number;
  accountType: number;
  expiresAt: number | null;
  timeZone: string;
  /** Agents get a popup for new CALL tickets (app/popups.ts). */
  popupOnCall: boolean;
  /** The admin's announcement (JSON, see announcement.server.ts), or empty. */
  announcement: string;
  /** Agents get the debug shortcuts too (app/components/DebugShortcuts.tsx). */
  debugShortcuts: boolean;
}

export async function getWorkspace(): Promise<Workspace> {
  const s = await getSettings();
  return {
    adminName: s.admin_name,
    adminUsername: s.admin_username,
    clientId: Number(s.client_id),
    plan: Number(s.plan),
    accountType: Number(s.account_type),
    expiresAt: s.account_expires_at ? Number(s.account_expires_at) : null,
    timeZone: s.timezone,
    popupOnCall: s.popup_on_call === "1",
    announcement: s.announcement,
    debugShortcuts: s.debug_shortcuts === "1",
  };
}
