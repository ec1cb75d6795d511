// A list badge's live countdown (the SLA's time left): the shape a plugin sends with its badge and
// the arithmetic the list uses to redraw it each tick with JavaScript. The server renders the same
// text once (without JavaScript the badge is right as of the page's load).

export interface BadgeCountdown {
  /** The clock the plugin counted with when it answered (its test clock included), ms. */
  now: number;
  dueAt: number;
  /** When the warning starts (the badge turns "warning"), or null. */
  warnAt: number | null;
  /** Text key prefixes: `${left}.${unit}` before the due time, `${overdue}.${unit}` after. */
  left: string;
  overdue: string;
  /** Keys of the longer text for assistive technology, before and after the due time. */
  leftLabel: string;
  overdueLabel: string;
  /** Values besides the duration's (a "t:key" value is translated). */
  values: Record<string, string>;
}

/** Whole minutes as a badge says them: "12 min", "1 h 5 min", "2 d 3 h" (the unit names a text of each shape). */
export function duration(ms: number): { unit: "minutes" | "hours" | "days"; values: Record<string, string> } {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return { unit: "minutes", values: { minutes: String(minutes) } };
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return { unit: "hours", values: { hours: String(hours), minutes: String(minutes % 60) } };
  return { unit: "days", values: { days: String(Math.floor(hours / 24)), hours: String(hours % 24) } };
}

/** The badge at `now`: its text and label (keys with values) and its state. */
export function countdownAt(c: BadgeCountdown, now: number) {
  const d = duration(Math.abs(c.dueAt - now));
  const values = { ...d.values, ...c.values };
  if (c.dueAt <= now) return { state: "breached" as const, text: { key: `${c.overdue}.${d.unit}`, values }, label: { key: c.overdueLabel, values } };
  return {
    state: c.warnAt !== null && c.warnAt <= now ? ("warning" as const) : ("ok" as const),
    text: { key: `${c.left}.${d.unit}`, values },
    label: { key: c.leftLabel, values },
  };
}
