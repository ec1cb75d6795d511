// Date presets of the list (current, yesterday, 1week, custom) in the workspace time zone.
import { describe, expect, it } from "vitest";
import { dateRange } from "@plugins/tickets/ticket-list.server";
import { startOfDay } from "~/time";

const KL = "Asia/Kuala_Lumpur"; // UTC+8, no daylight saving
const now = Date.UTC(2026, 10, 21, 2, 30); // 21 Nov 10:30 in Kuala Lumpur
const klMidnight = Date.UTC(2026, 10, 20, 16, 0); // 21 Nov 00:00 in Kuala Lumpur
const DAY = 86_400_000;

describe("list date presets", () => {
  it("finds the local midnight", () => {
    expect(startOfDay(now, KL)).toBe(klMidnight);
    expect(startOfDay(now, "UTC")).toBe(Date.UTC(2026, 10, 21));
  });
  it.each([
    ["current", undefined, undefined, [klMidnight, klMidnight + DAY]],
    ["yesterday", undefined, undefined, [klMidnight - DAY, klMidnight]],
    ["1week", undefined, undefined, [klMidnight - 6 * DAY, klMidnight + DAY]],
    ["custom", "2026-11-01", "2026-11-02", [Date.UTC(2026, 9, 31, 16), Date.UTC(2026, 10, 2, 16)]],
  ] as const)("%s", (preset, from, to, expected) => {
    expect(dateRange({ preset, from, to }, now, KL)).toEqual(expected);
  });
  it("has no range without a preset, or a custom one without dates", () => {
    expect(dateRange({ preset: undefined, from: "2026-11-01", to: undefined }, now, KL)).toBeUndefined();
    expect(dateRange({ preset: "custom", from: undefined, to: undefined }, now, KL)).toBeUndefined();
  });
});
