import { describe, expect, it } from "vitest";
import { translatorFor } from "./i18n.server";
import { buildNav, parseVisibility, serializeVisibility, type NavInput } from "./nav";
import type { PluginManifest } from "./plugins/manifest";

const plugin = (id: string, menu: [string, PluginManifest["menu"][number]["rule"]][], trial = false): PluginManifest => ({
  id,
  title: `plugin_${id}.title`,
  status: "planned",
  trial,
  menu: menu.map(([itemId, rule]) => ({ id: itemId, path: `/${itemId}`, icon: "x", rule, label: `plugin_${id}.menu.${itemId}` })),
  routes: [],
  channels: [],
  publicRoutes: [],
  widgets: [],
  requires: [],
  sharedFiles: [],
});

const base: NavInput = {
  plugins: [
    plugin("tickets", [["ticket", "always"]]),
    plugin("calls", [
      ["call", { notHidden: "hide_call" }],
      ["voicemail", { anyOf: [{ admin: true }, { permission: "view_voicemail" }] }],
    ]),
    plugin("payment", [["plan", { admin: true }]], true),
  ],
  enabledPlugins: ["calls", "tickets", "payment"],
  hiddenByDefault: [],
  visibility: {},
  viewer: { type: "admin", permissions: [], clientId: 1, plan: 2, variant: "default" },
  trial: false,
  language: "en",
  // a stand-in for the translation files: "plugin_calls.menu.call" reads CALL
  translate: (key) => key.split(".").at(-1)!.toUpperCase(),
};
const ids = (input: NavInput) => buildNav(input).map((i) => i.id);

describe("buildNav", () => {
  it("follows the edition's plugin order", () => {
    expect(ids(base)).toEqual(["call", "voicemail", "ticket", "plan"]);
  });
  it("drops the items of disabled plugins", () => {
    expect(ids({ ...base, enabledPlugins: ["tickets"] })).toEqual(["ticket"]);
  });
  it("applies menu rules to the viewer", () => {
    expect(ids({ ...base, viewer: { ...base.viewer, type: "agent" } })).toEqual(["call", "ticket"]);
  });
  it("keeps trial accounts to trial plugins", () => {
    expect(ids({ ...base, trial: true })).toEqual(["plan"]);
  });
  it("marks edition defaults hidden and lets the browser's choice override them", () => {
    const hidden = buildNav({ ...base, hiddenByDefault: ["call", "voicemail"], visibility: { voicemail: true, ticket: false } });
    expect(Object.fromEntries(hidden.map((i) => [i.id, i.hidden]))).toEqual({ call: true, voicemail: false, ticket: true, plan: false });
  });
  it("labels items by translating their manifest keys", () => {
    expect(buildNav(base)[0].label).toBe("CALL");
  });
  it("reads labels from the plugin locale files with the server's translator", () => {
    // the test plugins' keys are real ones: plugins/calls/locales/ja.json holds plugin_calls.menu.call
    expect(buildNav({ ...base, language: "en", translate: translatorFor("en") }).map((i) => i.label)).toEqual(["Calls", "Voicemail", "Tickets", "Plan"]);
    expect(buildNav({ ...base, language: "ja", translate: translatorFor("ja") }).map((i) => i.label)).toEqual(["通話", "ボイスメール", "チケット", "プラン"]);
  });
});

describe("menu visibility cookie", () => {
  it("round-trips and ignores junk", () => {
    expect(parseVisibility("call:0, ticket:1,bad,x:2,<script>:1")).toEqual({ call: false, ticket: true });
    expect(parseVisibility(serializeVisibility({ a_b: true, c: false }))).toEqual({ a_b: true, c: false });
    expect(parseVisibility(undefined)).toEqual({});
  });
});
