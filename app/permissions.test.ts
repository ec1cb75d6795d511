import { describe, expect, it } from "vitest";
import { allows, PLAN, type Viewer } from "./permissions";
import { rule as ruleSchema, type Rule } from "./plugins/manifest";
import { plugins } from "./plugins/registry.server";

const admin: Viewer = { type: "admin", permissions: [], clientId: 1, plan: 2, variant: "default" };
const agent: Viewer = { type: "agent", permissions: [], clientId: 1, plan: 2, variant: "default" };
const withPerm = (v: Viewer, ...permissions: string[]): Viewer => ({ ...v, permissions });

/** The rule of a menu item as the real manifest (plugins/<id>/plugin.json) writes it. */
function ruleOf(ref: string): Rule {
  const [pluginId, itemId] = ref.split("/");
  const item = plugins()
    .find((p) => p.id === pluginId)
    ?.menu.find((i) => i.id === itemId);
  if (!item) throw new Error(`no menu item ${ref}`);
  return item.rule;
}

// plugin/menu item, viewer, expected (spec section 6; these were the rules report, voicemail, ...)
const table: [string, string, Viewer, boolean][] = [
  ["reports/report", "admin", admin, true],
  ["reports/report", "agent", agent, false],
  ["reports/report", "agent with view_report", withPerm(agent, "view_report"), true],
  ["calls/voicemail", "agent", agent, false],
  ["calls/voicemail", "agent with view_voicemail", withPerm(agent, "view_voicemail"), true],
  ["chat/chat", "agent", agent, true],
  ["chat/chat", "agent with hide_chat", withPerm(agent, "hide_chat"), false],
  ["chat/chat", "admin with hide_chat", withPerm(admin, "hide_chat"), true],
  ["contacts/contacts", "agent with hide_contacts", withPerm(agent, "hide_contacts"), false],
  ["case/case", "agent with hide_case", withPerm(agent, "hide_case"), false],
  ["calendar/calendar", "agent with hide_calendar", withPerm(agent, "hide_calendar"), false],
  ["calls/call", "agent with hide_call", withPerm(agent, "hide_call"), false],
  ["calls/call", "agent", agent, true],
  ["calls/call_config", "agent", agent, false],
  ["calls/call_config", "agent with call_settings", withPerm(agent, "call_settings"), true],
  ["calls/call_config", "admin", admin, true],
  ["calls/supervisory", "agent with view_report", withPerm(agent, "view_report"), true],
  ["calls/supervisory", "agent", agent, false],
  ["kanban/kanban", "admin", admin, true],
  ["kanban/kanban", "admin with hide_kanban", withPerm(admin, "hide_kanban"), false],
  ["kanban/kanban", "agent", agent, false],
  ["analyst/analyst_intelligence", "admin on default", admin, false],
  ["analyst/analyst_intelligence", "admin on trading", { ...admin, variant: "trading" }, true],
  ["analyst/analyst_intelligence", "agent on trading", { ...agent, variant: "trading" }, false],
  ["calls/call_verification", "admin client 2 on call", { ...admin, clientId: 2, variant: "call" }, true],
  ["calls/call_verification", "admin client 2 on support", { ...admin, clientId: 2, variant: "support" }, false],
  ["calls/call_verification", "admin client 1 on call", { ...admin, variant: "call" }, false],
  ["calls/call_verification", "agent client 2 on call", { ...agent, clientId: 2, variant: "call" }, false],
  [
    "calls/call_verification",
    "agent client 2 on call with every permission",
    withPerm({ ...agent, clientId: 2, variant: "call" }, "view_report", "call_settings", "view_voicemail"),
    false,
  ],
  ["calls/call_verification", "admin client 2 on trading", { ...admin, clientId: 2, variant: "trading" }, false],
  ["calls/call_verification", "admin client 2 on default", { ...admin, clientId: 2 }, false],
  ["customer_analysis/customer_analysis", "client 273", { ...agent, clientId: 273 }, true],
  ["customer_analysis/customer_analysis", "client 408", { ...agent, clientId: 408 }, true],
  ["customer_analysis/customer_analysis", "basic plan", agent, false],
  ["customer_analysis/customer_analysis", "pro plan", { ...agent, plan: 3 }, true],
  ["customer_analysis/customer_analysis", "enterprise plan", { ...agent, plan: 4 }, true],
  ["payment/plan", "agent", agent, false],
  ["payment/plan", "admin", admin, true],
  ["tickets/ticket", "agent", agent, true],
];

// items that shared one named rule before rules moved into the manifests keep sharing it
const sameRule: [string, string[]][] = [
  ["reports/report", ["reports/dashboard", "reports/call_report", "reports/interactions", "calls/supervisory"]],
  ["analyst/analyst_intelligence", ["analyst/prediction_validator", "analyst/integrated_insight", "analyst/ai_learning"]],
  ["case/case", ["kb/kb"]],
  ["tickets/ticket", ["campaign/campaign", "forms/forms", "livechat/livechat", "product/product", "sms/sms", "voice_analysis/upload"]],
];

describe("menu rules of the manifests", () => {
  it.each(table)("%s for %s", (ref, _who, viewer, expected) => {
    expect(allows(ruleOf(ref), viewer)).toBe(expected);
  });

  it.each(sameRule)("%s rules %s alike", (ref, others) => {
    for (const other of others) expect(ruleOf(other), other).toEqual(ruleOf(ref));
  });
});

// rule, viewer description, viewer, expected: the grammar on its own
const grammar: [Rule, string, Viewer, boolean][] = [
  ["always", "agent", agent, true],
  [{ admin: true }, "admin", admin, true],
  [{ admin: true }, "agent", agent, false],
  [{ permission: "view_report" }, "agent with it", withPerm(agent, "view_report"), true],
  [{ permission: "view_report" }, "admin without it", admin, false],
  [{ notHidden: "hide_chat" }, "agent", agent, true],
  [{ notHidden: "hide_chat" }, "agent with the flag", withPerm(agent, "hide_chat"), false],
  [{ notHidden: "hide_chat" }, "admin with the flag", withPerm(admin, "hide_chat"), true],
  [{ not: { admin: true } }, "agent", agent, true],
  [{ not: { admin: true } }, "admin", admin, false],
  [{ variant: "trading" }, "viewer on trading", { ...agent, variant: "trading" }, true],
  [{ variant: "trading" }, "viewer on default", agent, false],
  [{ clients: [2, 273] }, "client 273", { ...agent, clientId: 273 }, true],
  [{ clients: [2, 273] }, "client 1", agent, false],
  [{ plans: [PLAN.PRO, PLAN.ENTERPRISE] }, "enterprise plan", { ...agent, plan: PLAN.ENTERPRISE }, true],
  [{ plans: [PLAN.PRO, PLAN.ENTERPRISE] }, "basic plan", agent, false],
  [{ anyOf: [{ admin: true }, { permission: "x" }] }, "agent with x", withPerm(agent, "x"), true],
  [{ anyOf: [{ admin: true }, { permission: "x" }] }, "agent", agent, false],
  [{ allOf: [{ admin: true }, { permission: "x" }] }, "admin with x", withPerm(admin, "x"), true],
  [{ allOf: [{ admin: true }, { permission: "x" }] }, "agent with x", withPerm(agent, "x"), false],
  [
    { allOf: [{ admin: true }, { anyOf: [{ clients: [5] }, { not: { variant: "call" } }] }] },
    "admin on call, client 5",
    { ...admin, clientId: 5, variant: "call" },
    true,
  ],
  [{ allOf: [{ admin: true }, { anyOf: [{ clients: [5] }, { not: { variant: "call" } }] }] }, "admin on call, client 1", { ...admin, variant: "call" }, false],
];

describe("rule grammar", () => {
  it.each(grammar)("%j for %s", (rule, _who, viewer, expected) => {
    expect(allows(rule, viewer)).toBe(expected);
  });

  it("accepts every form, nested", () => {
    for (const [rule] of grammar) expect(ruleSchema.safeParse(rule).success, JSON.stringify(rule)).toBe(true);
  });

  it.each([
    ["an unknown name", "report"],
    ["an unknown key", { role: "admin" }],
    ["two keys in one object", { admin: true, permission: "view_report" }],
    ["admin false", { admin: false }],
    ["an empty anyOf", { anyOf: [] }],
    ["an empty client list", { clients: [] }],
    ["an unknown variant", { variant: "sales" }],
    ["a bad rule deep inside", { allOf: [{ admin: true }, { anyOf: [{ permission: "" }] }] }],
  ])("rejects %s", (_what, value) => {
    expect(ruleSchema.safeParse(value).success).toBe(false);
  });
});
