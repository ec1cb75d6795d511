// Client-safe helpers for the accounts' texts.

/**
 * FormResult.messageValues are strings, but i18next picks a plural form only for a numeric
 * `count` ("Try again in 1 minute" / "in 5 minutes"), so it is turned back into a number.
 */
export function withCount(values: Record<string, string> | undefined): Record<string, string | number> | undefined {
  if (!values?.count) return values;
  const count = Number(values.count);
  return Number.isFinite(count) ? { ...values, count } : values;
}
