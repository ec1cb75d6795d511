// Relative time as the list shows it (spec section 4): under 5 s "Now", then s, min, h, d, w.
export type Relative = { key: "now" | "seconds" | "minutes" | "hours" | "days" | "weeks"; count: number };

export function relativeTime(then: number, now: number): Relative {
  const s = Math.max(0, Math.floor((now - then) / 1000));
  if (s < 5) return { key: "now", count: 0 };
  if (s < 60) return { key: "seconds", count: s };
  if (s < 3600) return { key: "minutes", count: Math.floor(s / 60) };
  if (s < 86400) return { key: "hours", count: Math.floor(s / 3600) };
  if (s < 7 * 86400) return { key: "days", count: Math.floor(s / 86400) };
  return { key: "weeks", count: Math.floor(s / (7 * 86400)) };
}

// Intl formatters are slow to build and a page formats dozens of times: one per zone and shape.
const formatters = new Map<string, Intl.DateTimeFormat>();
export function formatter(timeZone: string, shape: "date" | "time" | "clock") {
  const key = `${shape}|${timeZone}`;
  let f = formatters.get(key);
  if (!f) {
    const options: Record<typeof shape, Intl.DateTimeFormatOptions> = {
      date: { day: "2-digit", month: "2-digit", year: "numeric" },
      time: { hour: "2-digit", minute: "2-digit", hourCycle: "h23" },
      clock: { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
    };
    f = new Intl.DateTimeFormat(shape === "clock" ? "en-US" : "en-GB", { timeZone, ...options[shape] });
    formatters.set(key, f);
  }
  return f;
}

/** DD/MM/YYYY in the given time zone (spec section 9). */
export function formatDate(at: number, timeZone: string) {
  const p = Object.fromEntries(
    formatter(timeZone, "date")
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return `${p.day}/${p.month}/${p.year}`;
}

/** HH:MM (24 h) in the given time zone. */
export function formatTime(at: number, timeZone: string) {
  return formatter(timeZone, "time").format(at);
}

/** Start of the local day containing `at`, for the workspace time zone. */
export function startOfDay(at: number, timeZone: string) {
  const parts = Object.fromEntries(
    formatter(timeZone, "clock")
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const sinceMidnight = ((+parts.hour * 60 + +parts.minute) * 60 + +parts.second) * 1000 + (at % 1000);
  return at - sinceMidnight;
}

/** Local time minus UTC, in ms, at `at` in `timeZone`. */
export function zoneOffset(at: number, timeZone: string) {
  const p = Object.fromEntries(
    formatter(timeZone, "clock")
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  const asUtc = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second);
  return asUtc - (at - (((at % 1000) + 1000) % 1000));
}

/** The instant a YYYY-MM-DD day starts in `timeZone` (daylight saving respected). */
export function zonedDayStart(ymd: string, timeZone: string) {
  const [y, m, d] = ymd.split("-").map(Number);
  const utc = Date.UTC(y, m - 1, d);
  const guess = utc - zoneOffset(utc, timeZone);
  // the offset at the guess may differ (a change of offset that night): once more settles it
  return utc - zoneOffset(guess, timeZone);
}

/**
 * The zone's offsets from `from` to `to`: spans of one offset each, every span but the last ending
 * (exclusive) at `until`. Sampled once a week (offsets change a few times a year at most) and each
 * change narrowed to the minute, so a range of decades costs a few thousand look-ups.
 */
export function offsetSpans(from: number, to: number, timeZone: string): { until: number; offset: number }[] {
  const spans: { until: number; offset: number }[] = [];
  const STEP = 7 * 86_400_000;
  let at = from;
  let offset = zoneOffset(at, timeZone);
  while (at < to) {
    const next = Math.min(at + STEP, to);
    const nextOffset = zoneOffset(next, timeZone);
    if (nextOffset !== offset) {
      // the first minute of the new offset lies in (at, next]
      let lo = at;
      let hi = next;
      while (hi - lo > 60_000) {
        const mid = lo + Math.max(60_000, Math.floor((hi - lo) / 120_000) * 60_000);
        if (zoneOffset(mid, timeZone) === offset) lo = mid;
        else hi = mid;
      }
      // changes happen on a whole minute
      const minute = Math.floor(hi / 60_000) * 60_000;
      if (minute > lo && zoneOffset(minute, timeZone) !== offset) hi = minute;
      spans.push({ until: hi, offset });
      offset = zoneOffset(hi, timeZone);
    }
    at = next;
  }
  spans.push({ until: Number.POSITIVE_INFINITY, offset });
  return spans;
}
