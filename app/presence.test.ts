import { describe, expect, it } from "vitest";
import { statusChangeError } from "./presence";

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
