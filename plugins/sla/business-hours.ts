// Business-hours arithmetic of the SLA engine: pure functions over a workspace calendar (weekly
// hours in its time zone, holidays by local date) and pauses (a ticket's Pending spans, when its
// policy pauses). Times are UTC milliseconds; hours are local minutes since midnight, so a day
// that gains or loses an hour at a DST change still opens and closes at its local times.

/** A day's open spans: [from, to) in local minutes since midnight (0..1440). */
export type DayHours = [number, number][];

export interface BusinessCalendar {
  timeZone: string;
  /** Index 0 Sunday .. 6 Saturday. */
  week: DayHours[];
  /** Local dates (YYYY-MM-DD) the desk is closed. */
  isHoliday?: (day: string) => boolean;
}

/** [from, to) in UTC ms during which the clock stands still; `to` null: still paused. */
export type Pause = [number, number | null];

export const ALWAYS_OPEN: DayHours[] = Array.from({ length: 7 }, () => [[0, 1440]] as DayHours);

/** The longest SLA a policy may have: one year of minutes. 0 and anything longer are refused. */
export const MAX_SLA_MINUTES = 365 * 24 * 60;
export const isValidSlaMinutes = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= MAX_SLA_MINUTES;

const DAY_MS = 86_400_000;
const MINUTE = 60_000;
/** How far ahead a due time is looked for: a calendar with no open hour never finishes. */
const HORIZON_DAYS = 3 * 366;

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
function parts(at: number, timeZone: string) {
  let f = partsFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    partsFormatters.set(timeZone, f);
  }
  const p: Record<string, number> = {};
  for (const x of f.formatToParts(at)) if (x.type !== "literal") p[x.type] = Number(x.value);
  return p as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}

/** The zone's offset from UTC at `at`, in ms (local = utc + offset). */
export function zoneOffset(at: number, timeZone: string) {
  const p = parts(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (at - (((at % 1000) + 1000) % 1000));
}

/**
 * The UTC instant of a local wall time (the day as a UTC midnight, plus minutes). A time that does
 * not exist (the hour skipped in spring) lands after the gap; a time that happens twice (autumn)
 * is its first occurrence.
 */
export function localToUtc(dayUtcMidnight: number, minutes: number, timeZone: string) {
  const wall = dayUtcMidnight + minutes * MINUTE;
  const o1 = zoneOffset(wall - zoneOffset(wall, timeZone), timeZone);
  let at = wall - o1;
  const o2 = zoneOffset(at, timeZone);
  if (o2 !== o1) {
    // across a change: pick the reading that maps back to the wall time, or the later one (gap)
    const alt = wall - o2;
    at = alt + zoneOffset(alt, timeZone) === wall ? alt : Math.max(at, alt);
  }
  return at;
}

const isoDay = (dayUtcMidnight: number) => new Date(dayUtcMidnight).toISOString().slice(0, 10);

/** Open spans [from, to) in UTC from the local day containing `from` on, in order, up to the horizon. */
function* openSpans(from: number, cal: BusinessCalendar): Generator<[number, number]> {
  const p = parts(from, cal.timeZone);
  let day = Date.UTC(p.year, p.month - 1, p.day);
  for (let i = 0; i < HORIZON_DAYS; i++, day += DAY_MS) {
    const hours = cal.week[new Date(day).getUTCDay()] ?? [];
    if (!hours.length || cal.isHoliday?.(isoDay(day))) continue;
    for (const [a, b] of hours) {
      const s = Math.max(localToUtc(day, a, cal.timeZone), from);
      const e = localToUtc(day, b, cal.timeZone);
      if (e > s) yield [s, e];
    }
  }
}

/** Open spans with the pauses taken out (pauses sorted or not). */
function* runningSpans(from: number, cal: BusinessCalendar, pauses: Pause[]): Generator<[number, number]> {
  const sorted = pauses.map(([a, b]) => [a, b ?? Infinity] as [number, number]).sort((x, y) => x[0] - y[0]);
  for (const [s0, e] of openSpans(from, cal)) {
    let s = s0;
    for (const [pa, pb] of sorted) {
      if (pb <= s || pa >= e) continue;
      if (pa > s) yield [s, pa];
      s = Math.max(s, pb);
      if (s >= e) break;
    }
    if (s === Infinity) return;
    if (s < e) yield [s, e];
  }
}

/**
 * The instant `minutes` business minutes after `start`; null when it never comes (a pause with no
 * end, a calendar with no open hour within three years).
 */
export function addBusinessMinutes(start: number, minutes: number, cal: BusinessCalendar, pauses: Pause[] = []): number | null {
  let left = minutes * MINUTE;
  if (left <= 0) {
    // the first running instant at or after start
    const first = runningSpans(start, cal, pauses).next();
    return first.done ? null : first.value[0];
  }
  for (const [s, e] of runningSpans(start, cal, pauses)) {
    if (e - s >= left) return s + left;
    left -= e - s;
  }
  return null;
}

/** Business minutes (fractional) from `from` to `to`, pauses not counted; 0 when to <= from. */
export function businessMinutesBetween(from: number, to: number, cal: BusinessCalendar, pauses: Pause[] = []): number {
  if (to <= from) return 0;
  let ms = 0;
  for (const [s, e] of runningSpans(from, cal, pauses)) {
    if (s >= to) break;
    ms += Math.min(e, to) - s;
  }
  return ms / MINUTE;
}

/** "HH:MM" to minutes since midnight ("24:00" is 1440); null when malformed. */
export function parseClock(value: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(value.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min > 0)) return null;
  return h * 60 + min;
}

export const formatClock = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
