import { describe, expect, it } from "vitest";
import { canSee, type Viewer } from "./permissions";
import type { MenuRule } from "./plugins/manifest";

const admin: Viewer = { type: "admin", permissions: [], clientId: 1, plan: 2, variant: "default" };
const agent: Viewer = { type: "agent", permissions: [], clientId: 1, plan: 2, variant: "default" };
const withPerm = (v: Viewer, ...permissions: string[]): Viewer => ({ ...v, permissions });

// rule, viewer, expected (spec section 6)
const table: [MenuRule, string, Viewer, boolean][] = [
  ["report", "admin", admin, true],
  ["report", "agent", agent, false],
  ["report", "agent with view_report", withPerm(agent, "view_report"), true],
  ["voicemail", "agent", agent, false],
  ["voicemail", "agent with view_voicemail", withPerm(agent, "view_voicemail"), true],
  ["chat", "agent", agent, true],
  ["chat", "agent with hide_chat", withPerm(agent, "hide_chat"), false],
  ["chat", "admin with hide_chat", withPerm(admin, "hide_chat"), true],
  ["contacts", "agent with hide_contacts", withPerm(agent, "hide_contacts"), false],
  ["case", "agent with hide_case", withPerm(agent, "hide_case"), false],
  ["calendar", "agent with hide_calendar", withPerm(agent, "hide_calendar"), false],
  ["call", "agent with hide_call", withPerm(agent, "hide_call"), false],
  ["call", "agent", agent, true],
  ["call_config", "agent", agent, false],
  ["call_config", "agent with call_settings", withPerm(agent, "call_settings"), true],
  ["call_config", "admin", admin, true],
  ["supervisory", "agent with view_report", withPerm(agent, "view_report"), true],
  ["supervisory", "agent", agent, false],
  ["kanban", "admin", admin, true],
  ["kanban", "admin with hide_kanban", withPerm(admin, "hide_kanban"), false],
  ["kanban", "agent", agent, false],
  ["analyst", "admin on default", admin, false],
  ["analyst", "admin on trading", { ...admin, variant: "trading" }, true],
  ["analyst", "agent on trading", { ...agent, variant: "trading" }, false],
  ["call_verification", "admin client 2 on call", { ...admin, clientId: 2, variant: "call" }, true],
  ["call_verification", "admin client 2 on support", { ...admin, clientId: 2, variant: "support" }, false],
  ["call_verification", "admin client 1 on call", { ...admin, variant: "call" }, false],
  ["call_verification", "agent client 2 on call", { ...agent, clientId: 2, variant: "call" }, false],
  ["customer_analysis", "client 273", { ...agent, clientId: 273 }, true],
  ["customer_analysis", "client 408", { ...agent, clientId: 408 }, true],
  ["customer_analysis", "basic plan", agent, false],
  ["customer_analysis", "pro plan", { ...agent, plan: 3 }, true],
  ["customer_analysis", "enterprise plan", { ...agent, plan: 4 }, true],
  ["admin", "agent", agent, false],
  ["admin", "admin", admin, true],
  ["always", "agent", agent, true],
];

describe("menu rules", () => {
  it.each(table)("%s for %s", (rule, _who, viewer, expected) => {
    expect(canSee(rule, viewer)).toBe(expected);
  });
});
