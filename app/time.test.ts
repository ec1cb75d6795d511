import { describe, expect, it } from "vitest";
import { formatDate, relativeTime } from "./time";

describe("relativeTime", () => {
  const now = 1_000_000_000_000;
  it.each([
    [0, "now", 0],
    [4_999, "now", 0],
    [5_000, "seconds", 5],
    [59_000, "seconds", 59],
    [60_000, "minutes", 1],
    [3_599_000, "minutes", 59],
    [3_600_000, "hours", 1],
    [86_400_000, "days", 1],
    [6 * 86_400_000, "days", 6],
    [7 * 86_400_000, "weeks", 1],
    [30 * 86_400_000, "weeks", 4],
  ])("%i ms ago is %s %i", (ago, key, count) => {
    expect(relativeTime(now - ago, now)).toEqual({ key, count });
  });
  it("treats clock skew as now", () => expect(relativeTime(now + 10_000, now).key).toBe("now"));
});

describe("formatDate", () => {
  it("writes DD/MM/YYYY in the workspace time zone", () => {
    const at = Date.UTC(2026, 10, 20, 20, 0); // 21 Nov 04:00 in Kuala Lumpur
    expect(formatDate(at, "Asia/Kuala_Lumpur")).toBe("21/11/2026");
    expect(formatDate(at, "UTC")).toBe("20/11/2026");
  });
});
