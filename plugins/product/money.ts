// Product prices: integer minor units of an ISO 4217 currency (as plugins/payment keeps money), typed
// as a plain decimal and shown in the reader's language. Pure: the server parses, the page formats.

/** Currencies a price may be in; the first is the default (the workspace's home market, as the payment plugin's). */
export const CURRENCIES = ["MYR", "SGD", "USD", "CNY", "JPY", "KRW", "EUR", "GBP", "IDR", "THB", "PHP"] as const;
export type Currency = (typeof CURRENCIES)[number];
export const DEFAULT_CURRENCY: Currency = "MYR";

export const isCurrency = (v: unknown): v is Currency => typeof v === "string" && (CURRENCIES as readonly string[]).includes(v);

/** Digits after the decimal point (JPY 0, MYR 2), from the runtime's ISO 4217 data. */
export function exponentOf(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** The most a price may be, in minor units (a safe integer on both databases). */
export const PRICE_MAX_MINOR = 1_000_000_000_000;

/**
 * A typed price as minor units: "" is no price (null); "1,299.50" -> 129950 (MYR). A translation
 * key when it is not a plain non-negative number, has more decimals than the currency, or is too big.
 */
export function parsePrice(text: string, currency: string): { minor: number | null } | { error: string } {
  const value = text.trim().replace(/[\s,]/g, "");
  if (!value) return { minor: null };
  const m = /^(\d+)(?:\.(\d*))?$/.exec(value);
  if (!m) return { error: "plugin_product.error.priceNotNumber" };
  const exponent = exponentOf(currency);
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > exponent) return { error: exponent ? "plugin_product.error.priceDecimals" : "plugin_product.error.priceWhole" };
  const minor = Number(m[1]) * 10 ** exponent + Number(frac.padEnd(exponent, "0") || "0");
  if (!Number.isSafeInteger(minor) || minor > PRICE_MAX_MINOR) return { error: "plugin_product.error.priceTooLarge" };
  return { minor };
}

/** Minor units back as the plain decimal the form shows: 129950 (MYR) -> "1299.50". */
export function priceInput(minor: number | null, currency: string): string {
  if (minor == null) return "";
  const exponent = exponentOf(currency);
  const digits = String(minor).padStart(exponent + 1, "0");
  return exponent ? `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}` : digits;
}

/** A price in the reader's language: "RM 1,299.50" (en), "¥1,600" (ja JPY). */
export function formatPrice(minor: number, currency: string, language: string): string {
  const exponent = exponentOf(currency);
  return new Intl.NumberFormat(language, { style: "currency", currency }).format(minor / 10 ** exponent);
}
