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
