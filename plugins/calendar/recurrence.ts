// Times of appointments in the workspace's time zone, and the occurrences of a recurring one.
// rrule counts in one fixed offset, so a series is expanded on "floating" wall-clock times (a UTC
// date whose fields are the local time) and each occurrence turned back into an instant in the
// zone: a weekly 09:00 meeting stays 09:00 on both sides of a DST change.
// rrule's ESM build is what the bundler sees, but Node loads its CommonJS build, whose named exports
// it cannot detect: at run time RRule is on the namespace's default
import * as rruleModule from "rrule";

const { RRule } = (rruleModule as unknown as { default?: typeof rruleModule }).default ?? rruleModule;

export const REPEATS = ["none", "daily", "weekly", "monthly"] as const;
export type Repeat = (typeof REPEATS)[number];
const FREQ = { daily: RRule.DAILY, weekly: RRule.WEEKLY, monthly: RRule.MONTHLY } as const;
/** A series with no end is expanded at most this far (a view asks for a month or a year). */
const MAX_OCCURRENCES = 1_000;

const clocks = new Map<string, Intl.DateTimeFormat>();
function clock(timeZone: string) {
  let f = clocks.get(timeZone);
  if (!f)
    clocks.set(
      timeZone,
      (f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
      })),
    );
  return f;
}

/** The instant's wall-clock time in the zone, as a floating time (UTC fields = local fields). */
export function floating(at: number, timeZone: string) {
  const p = Object.fromEntries(
    clock(timeZone)
      .formatToParts(at)
      .map((x) => [x.type, Number(x.value)]),
  );
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, ((at % 1000) + 1000) % 1000);
}

/** The instant a wall-clock time (floating) names in the zone; a time skipped by DST moves forward. */
export function instant(wall: number, timeZone: string) {
  let at = wall - (floating(wall, timeZone) - wall);
  // a second pass settles times near an offset change
  at = wall - (floating(at, timeZone) - at);
  return at;
}

/** YYYY-MM-DD of the instant in the zone. */
export const dayKey = (at: number, timeZone: string) => new Date(floating(at, timeZone)).toISOString().slice(0, 10);

/** A YYYY-MM-DD day's midnight in the zone, or NaN for a date that does not exist. */
export function dayStart(day: string, timeZone: string) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return NaN;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3]);
  if (new Date(wall).toISOString().slice(0, 10) !== day) return NaN;
  return instant(wall, timeZone);
}

/** "YYYY-MM-DD" plus n days. */
export function addDays(day: string, n: number) {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

/** The RRULE of a repeat choice: a count or an until instant (UTC, as RFC 5545 asks with a TZID). */
export function ruleOf(repeat: Repeat, count: number | null, until: number | null) {
  if (repeat === "none") return "";
  const options: Partial<ConstructorParameters<typeof RRule>[0]> = { freq: FREQ[repeat] };
  if (count) options.count = count;
  if (until !== null) options.until = new Date(until);
  return new RRule(options).toString().replace(/^RRULE:/, "");
}

/** The repeat choice an RRULE came from, for the edit form. */
export function repeatOf(rrule: string): { repeat: Repeat; count: number | null; until: number | null } {
  if (!rrule) return { repeat: "none", count: null, until: null };
  const o = RRule.parseString(rrule);
  const repeat = (Object.keys(FREQ) as Repeat[]).find((k) => FREQ[k as keyof typeof FREQ] === o.freq) ?? "none";
  return { repeat, count: o.count ?? null, until: o.until ? o.until.getTime() : null };
}

export interface Timed {
  startsAt: number;
  endsAt: number;
  rrule: string;
}

function ruleFor(item: Timed, timeZone: string) {
  const options = RRule.parseString(item.rrule);
  // UNTIL is an instant; the expansion runs on wall-clock times
  if (options.until) options.until = new Date(floating(options.until.getTime(), timeZone));
  return new RRule({ ...options, dtstart: new Date(floating(item.startsAt, timeZone)) });
}

/**
 * The occurrences (start and end instants) of an appointment that overlap [from, to), in order.
 * Each lasts as long on the wall clock as the first one.
 */
export function occurrences(item: Timed, from: number, to: number, timeZone: string): { startsAt: number; endsAt: number }[] {
  if (!item.rrule) return item.startsAt < to && item.endsAt > from ? [{ startsAt: item.startsAt, endsAt: item.endsAt }] : [];
  const length = floating(item.endsAt, timeZone) - floating(item.startsAt, timeZone);
  // a day either side: the window's edges are instants, the rule's times are wall-clock
  const walls = ruleFor(item, timeZone).between(new Date(floating(from, timeZone) - length - 86_400_000), new Date(floating(to, timeZone) + 86_400_000), true);
  return walls
    .slice(0, MAX_OCCURRENCES)
    .map((w) => ({ startsAt: instant(w.getTime(), timeZone), endsAt: instant(w.getTime() + length, timeZone) }))
    .filter((o) => o.startsAt < to && o.endsAt > from);
}

/** The next `n` occurrences that have not ended by `after`. */
export function nextOccurrences(item: Timed, after: number, n: number, timeZone: string) {
  if (!item.rrule) return item.endsAt > after ? [{ startsAt: item.startsAt, endsAt: item.endsAt }] : [];
  const length = floating(item.endsAt, timeZone) - floating(item.startsAt, timeZone);
  const out: { startsAt: number; endsAt: number }[] = [];
  const rule = ruleFor(item, timeZone);
  rule.all((w, i) => {
    if (i >= MAX_OCCURRENCES * 10) return false;
    const o = { startsAt: instant(w.getTime(), timeZone), endsAt: instant(w.getTime() + length, timeZone) };
    if (o.endsAt > after) out.push(o);
    return out.length < n;
  });
  return out;
}

/** When the last occurrence ends, or null for a series without end. */
export function seriesEnd(item: Timed, timeZone: string): number | null {
  if (!item.rrule) return item.endsAt;
  const o = RRule.parseString(item.rrule);
  if (!o.count && !o.until) return null;
  const all = nextOccurrences(item, -Infinity, MAX_OCCURRENCES * 10, timeZone);
  return all.length ? all[all.length - 1].endsAt : item.endsAt;
}
