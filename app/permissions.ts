// Menu rules of spec section 6, one pure function per rule. Table-tested in permissions.test.ts.
import type { MenuRule } from "./plugins/manifest";

export interface Viewer {
  type: "admin" | "agent";
  /** Permission and hide_* flags the workspace gave this user (view_report, hide_chat, ...). */
  permissions: string[];
  clientId: number;
  /** 0 trial, 1 starter, 2 basic, 3 pro, 4 enterprise, 99 unknown. */
  plan: number;
  variant: "support" | "call" | "trading" | "default";
}

const has = (v: Viewer, p: string) => v.permissions.includes(p);
const isAdmin = (v: Viewer) => v.type === "admin";
/** hide_* flags hide an item from agents; admins always see it. */
const notHidden = (flag: string) => (v: Viewer) => isAdmin(v) || !has(v, flag);

export const PLAN = { TRIAL: 0, STARTER: 1, BASIC: 2, PRO: 3, ENTERPRISE: 4, UNKNOWN: 99 } as const;
const CUSTOMER_ANALYSIS_CLIENTS = [2, 273, 408];

export const menuRules: Record<MenuRule, (v: Viewer) => boolean> = {
  always: () => true,
  admin: isAdmin,
  report: (v) => isAdmin(v) || has(v, "view_report"),
  voicemail: (v) => isAdmin(v) || has(v, "view_voicemail"),
  chat: notHidden("hide_chat"),
  contacts: notHidden("hide_contacts"),
  case: notHidden("hide_case"),
  calendar: notHidden("hide_calendar"),
  call: notHidden("hide_call"),
  call_config: (v) => isAdmin(v) || has(v, "call_settings"),
  supervisory: (v) => isAdmin(v) || has(v, "view_report"),
  kanban: (v) => isAdmin(v) && !has(v, "hide_kanban"),
  analyst: (v) => isAdmin(v) && v.variant === "trading",
  call_verification: (v) => isAdmin(v) && v.clientId === 2 && v.variant === "call",
  customer_analysis: (v) => CUSTOMER_ANALYSIS_CLIENTS.includes(v.clientId) || v.plan === PLAN.PRO || v.plan === PLAN.ENTERPRISE,
};

export function canSee(rule: MenuRule, viewer: Viewer) {
  return menuRules[rule](viewer);
}
