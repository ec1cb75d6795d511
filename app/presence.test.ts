import { describe, expect, it } from "vitest";
import { presenceClass, statusChangeError, statusLabel } from "./presence";

describe("status change rules", () => {
  it.each([
    ["ONLINE", "ONLINE", "", "status.same"],
    ["ONLINE", "AWAY", "", "status.reasonRequired"],
    ["ONLINE", "BUSY", "   ", "status.reasonRequired"],
    ["ONLINE", "AWAY", "lunch meeting", null],
    ["ONLINE", "MEAL_BREAK", "", null],
    ["AWAY", "ONLINE", "", null],
    ["ONLINE", "OFFLINE", "", "status.invalid"],
    ["ONLINE", "HACKER", "", "status.invalid"],
  ])("%s -> %s (reason %j)", (current, chosen, reason, expected) => {
    expect(statusChangeError(current, chosen, reason)).toBe(expected);
  });
});

describe("custom statuses in the status rules", () => {
  const custom = [
    { name: "Training", needsReason: true },
    { name: "Coffee", needsReason: false },
  ];
  it.each([
    ["ONLINE", "Training", "", "status.reasonRequired"],
    ["ONLINE", "Training", "new hires", null],
    ["ONLINE", "Coffee", "", null],
    ["Coffee", "Coffee", "", "status.same"],
    ["Coffee", "ONLINE", "", null],
    ["ONLINE", "training", "x", "status.invalid"],
  ])("%s -> %s (reason %j)", (current, chosen, reason, expected) => {
    expect(statusChangeError(current, chosen, reason, custom)).toBe(expected);
  });

  it("shows a custom status by its name and a built-in one translated", () => {
    const t = (key: string) => `<${key}>`;
    expect(statusLabel(t, "AWAY")).toBe("<status.AWAY>");
    expect(statusLabel(t, "On site.visit")).toBe("On site.visit");
    expect(presenceClass("MEAL_BREAK")).toBe("presence presence-meal_break");
    expect(presenceClass("On site")).toBe("presence presence-custom");
  });
});
