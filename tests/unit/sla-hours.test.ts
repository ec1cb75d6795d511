// The SLA engine's business-hours arithmetic against a table of cases: weekends, holidays, DST
// (America/New_York and Europe/London), lunch breaks, pauses, and the SLA bounds.
import { describe, expect, it } from "vitest";
import {
  ALWAYS_OPEN,
  addBusinessMinutes,
  businessMinutesBetween,
  isValidSlaMinutes,
  parseClock,
  type BusinessCalendar,
  type DayHours,
  type Pause,
} from "../../plugins/sla/business-hours";
import { holidayChecker } from "../../plugins/sla/holidays.server";

const NINE_TO_FIVE: DayHours[] = [[], [[540, 1020]], [[540, 1020]], [[540, 1020]], [[540, 1020]], [[540, 1020]], []];
const LUNCH: DayHours[] = [
  [],
  [
    [540, 720],
    [780, 1020],
  ],
  [
    [540, 720],
    [780, 1020],
  ],
  [
    [540, 720],
    [780, 1020],
  ],
  [
    [540, 720],
    [780, 1020],
  ],
  [
    [540, 720],
    [780, 1020],
  ],
  [],
];
const ny: BusinessCalendar = { timeZone: "America/New_York", week: NINE_TO_FIVE };
const nyHolidays: BusinessCalendar = { ...ny, isHoliday: holidayChecker("US") };
const london: BusinessCalendar = { timeZone: "Europe/London", week: NINE_TO_FIVE };
const ny247: BusinessCalendar = { timeZone: "America/New_York", week: ALWAYS_OPEN };
const london247: BusinessCalendar = { timeZone: "Europe/London", week: ALWAYS_OPEN };
const utc247: BusinessCalendar = { timeZone: "UTC", week: ALWAYS_OPEN };
const utcLunch: BusinessCalendar = { timeZone: "UTC", week: LUNCH };
const kl: BusinessCalendar = { timeZone: "Asia/Kuala_Lumpur", week: NINE_TO_FIVE, isHoliday: holidayChecker("MY") };

const T = (iso: string) => Date.parse(iso);
const M = 60_000;

const cases: { name: string; cal: BusinessCalendar; start: string; minutes: number; due: string | null; pauses?: Pause[] }[] = [
  { name: "within the day", cal: ny, start: "2025-06-03T10:00:00-04:00", minutes: 30, due: "2025-06-03T10:30:00-04:00" },
  { name: "before opening starts at nine", cal: ny, start: "2025-06-03T06:00:00-04:00", minutes: 30, due: "2025-06-03T09:30:00-04:00" },
  { name: "after closing goes to the next morning", cal: ny, start: "2025-06-03T18:00:00-04:00", minutes: 30, due: "2025-06-04T09:30:00-04:00" },
  { name: "Friday afternoon crosses the weekend", cal: ny, start: "2025-06-06T16:00:00-04:00", minutes: 120, due: "2025-06-09T10:00:00-04:00" },
  { name: "a Saturday start waits for Monday", cal: ny, start: "2025-06-07T12:00:00-04:00", minutes: 30, due: "2025-06-09T09:30:00-04:00" },
  { name: "exactly at closing time", cal: ny, start: "2025-06-03T16:00:00-04:00", minutes: 60, due: "2025-06-03T17:00:00-04:00" },
  { name: "several days", cal: ny, start: "2025-06-02T09:00:00-04:00", minutes: 3 * 480 + 60, due: "2025-06-05T10:00:00-04:00" },
  { name: "Independence Day (a Friday) is skipped", cal: nyHolidays, start: "2025-07-03T16:00:00-04:00", minutes: 120, due: "2025-07-07T10:00:00-04:00" },
  { name: "no holidays: the same Friday counts", cal: ny, start: "2025-07-03T16:00:00-04:00", minutes: 120, due: "2025-07-04T10:00:00-04:00" },
  { name: "Christmas and a weekend", cal: nyHolidays, start: "2025-12-24T16:30:00-05:00", minutes: 60, due: "2025-12-26T09:30:00-05:00" },
  { name: "Malaysia Day is skipped in Kuala Lumpur", cal: kl, start: "2025-09-15T16:00:00+08:00", minutes: 120, due: "2025-09-17T10:00:00+08:00" },
  { name: "New York spring forward, business hours", cal: ny, start: "2025-03-07T16:00:00-05:00", minutes: 120, due: "2025-03-10T10:00:00-04:00" },
  { name: "New York spring forward, 24/7: real minutes", cal: ny247, start: "2025-03-09T01:30:00-05:00", minutes: 60, due: "2025-03-09T03:30:00-04:00" },
  {
    name: "New York fall back, 24/7: the repeated hour counts twice",
    cal: ny247,
    start: "2025-11-02T00:30:00-04:00",
    minutes: 120,
    due: "2025-11-02T01:30:00-05:00",
  },
  { name: "London clocks go back, business hours", cal: london, start: "2025-10-24T16:00:00+01:00", minutes: 120, due: "2025-10-27T10:00:00Z" },
  { name: "London clocks go forward, business hours", cal: london, start: "2025-03-28T16:30:00Z", minutes: 60, due: "2025-03-31T09:30:00+01:00" },
  { name: "London night of the change, 24/7", cal: london247, start: "2025-10-25T23:00:00+01:00", minutes: 240, due: "2025-10-26T02:00:00Z" },
  { name: "lunch break is not counted", cal: utcLunch, start: "2025-06-03T11:30:00Z", minutes: 60, due: "2025-06-03T13:30:00Z" },
  {
    name: "a pause pushes the due time",
    cal: utc247,
    start: "2025-06-03T00:00:00Z",
    minutes: 60,
    due: "2025-06-03T02:00:00Z",
    pauses: [[T("2025-06-03T00:30:00Z"), T("2025-06-03T01:30:00Z")]],
  },
  {
    name: "a pause before the start changes nothing",
    cal: utc247,
    start: "2025-06-03T00:00:00Z",
    minutes: 60,
    due: "2025-06-03T01:00:00Z",
    pauses: [[T("2025-06-02T00:00:00Z"), T("2025-06-02T05:00:00Z")]],
  },
  {
    name: "a pause over the weekend adds nothing",
    cal: ny,
    start: "2025-06-06T16:00:00-04:00",
    minutes: 120,
    due: "2025-06-09T10:00:00-04:00",
    pauses: [[T("2025-06-06T18:00:00-04:00"), T("2025-06-08T18:00:00-04:00")]],
  },
  {
    name: "a pause in business hours",
    cal: ny,
    start: "2025-06-06T16:00:00-04:00",
    minutes: 120,
    due: "2025-06-09T11:00:00-04:00",
    pauses: [[T("2025-06-09T09:00:00-04:00"), T("2025-06-09T10:00:00-04:00")]],
  },
  {
    name: "two pauses, unsorted",
    cal: utc247,
    start: "2025-06-03T00:00:00Z",
    minutes: 60,
    due: "2025-06-03T01:20:00Z",
    pauses: [
      [T("2025-06-03T00:50:00Z"), T("2025-06-03T01:00:00Z")],
      [T("2025-06-03T00:10:00Z"), T("2025-06-03T00:20:00Z")],
    ],
  },
  {
    name: "a pause still running: no due time",
    cal: utc247,
    start: "2025-06-03T00:00:00Z",
    minutes: 60,
    due: null,
    pauses: [[T("2025-06-03T00:30:00Z"), null]],
  },
  {
    name: "a calendar with no open hour: no due time",
    cal: { timeZone: "UTC", week: [[], [], [], [], [], [], []] },
    start: "2025-06-03T00:00:00Z",
    minutes: 1,
    due: null,
  },
];

describe("addBusinessMinutes", () => {
  it.each(cases)("$name", ({ cal, start, minutes, due, pauses }) => {
    const got = addBusinessMinutes(T(start), minutes, cal, pauses);
    expect(got === null ? null : new Date(got).toISOString()).toBe(due === null ? null : new Date(T(due)).toISOString());
  });
});

describe("businessMinutesBetween", () => {
  it.each(cases.filter((c) => c.due !== null))("undoes $name", ({ cal, start, minutes, due, pauses }) => {
    expect(businessMinutesBetween(T(start), T(due!), cal, pauses)).toBeCloseTo(minutes, 6);
  });
  it("is 0 backwards and counts only open minutes", () => {
    expect(businessMinutesBetween(T("2025-06-03T10:00:00Z"), T("2025-06-03T09:00:00Z"), utc247)).toBe(0);
    expect(businessMinutesBetween(T("2025-06-06T12:00:00-04:00"), T("2025-06-09T12:00:00-04:00"), ny)).toBe(8 * 60);
    expect(businessMinutesBetween(T("2025-06-03T00:00:00Z"), T("2025-06-03T00:10:00Z"), utc247, [[0, null]])).toBe(0);
    expect(businessMinutesBetween(0, 90 * M, utc247)).toBe(90);
  });
});

describe("SLA bounds and clocks", () => {
  it.each([
    [0, false],
    [-5, false],
    [1.5, false],
    [100 * 365 * 24 * 60, false],
    [Number.NaN, false],
    [1, true],
    [30, true],
    [365 * 24 * 60, true],
    [365 * 24 * 60 + 1, false],
  ])("isValidSlaMinutes(%s) is %s", (n, ok) => expect(isValidSlaMinutes(n)).toBe(ok));
  it.each([
    ["09:00", 540],
    ["24:00", 1440],
    ["9:05", 545],
    ["24:01", null],
    ["12:60", null],
    ["noon", null],
  ])("parseClock(%s)", (s, n) => expect(parseClock(s)).toBe(n));
});
