import { describe, expect, it } from "vitest";
import { safeRedirect } from "./forms";

describe("safeRedirect", () => {
  it.each([
    ["/ticket/5?status=1#m-3", "/ticket/5?status=1#m-3"],
    ["/settings", "/settings"],
    ["//evil.example", "/"],
    ["/\\evil.example", "/"],
    ["/\t/evil.example", "/"],
    ["/\n/evil.example", "/"],
    ["https://evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["", "/"],
  ])("%j goes to %j", (target, expected) => {
    expect(safeRedirect(target)).toBe(expected);
  });
  it("uses the fallback for missing values", () => expect(safeRedirect(null, "/home")).toBe("/home"));
});
