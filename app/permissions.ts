// Menu rules of spec section 6: each manifest writes its own (Rule in app/plugins/manifest.ts),
// one pure evaluator reads them. Table-tested against the real manifests in permissions.test.ts.
import type { Rule } from "./plugins/manifest";
import type { Edition } from "@editions/types";

export interface Viewer {
  type: "admin" | "agent";
  /** Permission and hide_* flags the workspace gave this user (view_report, hide_chat, ...). */
  permissions: string[];
  clientId: number;
  /** 0 trial, 1 starter, 2 basic, 3 pro, 4 enterprise, 99 unknown. */
  plan: number;
  variant: Edition["variant"];
}

export const PLAN = { TRIAL: 0, STARTER: 1, BASIC: 2, PRO: 3, ENTERPRISE: 4, UNKNOWN: 99 } as const;

const isAdmin = (v: Viewer) => v.type === "admin";
const has = (v: Viewer, flag: string) => v.permissions.includes(flag);

/** Whether the rule lets this viewer see the item. */
export function allows(rule: Rule, viewer: Viewer): boolean {
  if (rule === "always") return true;
  if ("admin" in rule) return isAdmin(viewer);
  if ("permission" in rule) return has(viewer, rule.permission);
  if ("notHidden" in rule) return isAdmin(viewer) || !has(viewer, rule.notHidden);
  if ("not" in rule) return !allows(rule.not, viewer);
  if ("variant" in rule) return viewer.variant === rule.variant;
  if ("clients" in rule) return rule.clients.includes(viewer.clientId);
  if ("plans" in rule) return rule.plans.includes(viewer.plan);
  if ("anyOf" in rule) return rule.anyOf.some((r) => allows(r, viewer));
  if ("allOf" in rule) return rule.allOf.every((r) => allows(r, viewer));
  // a rule form added to the grammar without a branch here fails to compile
  const unknown: never = rule;
  throw new Error(`Unknown menu rule ${JSON.stringify(unknown)}`);
}
