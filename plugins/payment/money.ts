// Plans, per-country prices and the amount arithmetic (spec sections 6 and 9). Pure: used by the
// server (which always recomputes) and by the browser (which only previews). Money is integer minor
// units (sen, cents); tax is integer basis points (800 = 8 %), so no float ever reaches a total.

export const PLAN_IDS = { TRIAL: 0, STARTER: 1, BASIC: 2, PRO: 3, ENTERPRISE: 4 } as const;
/** Plans that can be bought here; Enterprise is contact-sales only. */
export const PURCHASABLE = [1, 2, 3] as const;
export type PurchasablePlan = (typeof PURCHASABLE)[number];

export const PLAN_KEYS: Record<number, string> = { 0: "trial", 1: "starter", 2: "basic", 3: "pro", 4: "enterprise" };

/** Limits per plan (spec section 9); null = unlimited. */
export const PLAN_LIMITS: Record<
  PurchasablePlan | 4,
  { accounts: number | null; chats: number | null; alerts: number | null; storageGb: number | null; adds: string[] }
> = {
  1: { accounts: 5, chats: 5, alerts: 100, storageGb: 1, adds: [] },
  2: { accounts: 10, chats: 10, alerts: 300, storageGb: 3, adds: ["Instagram", "Line"] },
  3: { accounts: 15, chats: 15, alerts: 500, storageGb: 5, adds: ["Telegram"] },
  4: { accounts: null, chats: null, alerts: null, storageGb: null, adds: [] },
};

export interface PriceEntry {
  country: string;
  currency: string;
  /** Digits after the decimal point of the currency (ISO 4217 minor unit). */
  exponent: number;
  /** Price per user per month in minor units, by plan. */
  prices: Record<PurchasablePlan, number>;
  /** Tax in basis points (Malaysian Sales and Service Tax on digital services: 8 %). */
  taxBp: number;
}

// Malaysia is the home market and charges SST; elsewhere the service is exported (no SST).
const TABLE: PriceEntry[] = [
  { country: "MY", currency: "MYR", exponent: 2, prices: { 1: 4900, 2: 8900, 3: 13900 }, taxBp: 800 },
  { country: "SG", currency: "SGD", exponent: 2, prices: { 1: 1500, 2: 2700, 3: 4200 }, taxBp: 0 },
  { country: "CN", currency: "CNY", exponent: 2, prices: { 1: 7900, 2: 13900, 3: 21900 }, taxBp: 0 },
  { country: "JP", currency: "JPY", exponent: 0, prices: { 1: 1600, 2: 2900, 3: 4500 }, taxBp: 0 },
  { country: "KR", currency: "KRW", exponent: 0, prices: { 1: 15000, 2: 27000, 3: 42000 }, taxBp: 0 },
];
/** Every other country pays in US dollars. */
const INTERNATIONAL: PriceEntry = { country: "*", currency: "USD", exponent: 2, prices: { 1: 1200, 2: 2000, 3: 3200 }, taxBp: 0 };
/** Where the visitor's country is unknown (loopback, private network): the home market. */
export const HOME_COUNTRY = "MY";

export function pricingFor(country: string | null | undefined): PriceEntry {
  const code = (country || HOME_COUNTRY).toUpperCase();
  return TABLE.find((e) => e.country === code) ?? INTERNATIONAL;
}

/** The largest number of users one payment may cover; more is a sales conversation. */
export const MAX_QUANTITY = 10_000;

/** Number of Users as typed: digits only, a positive whole number up to MAX_QUANTITY; else null. */
export function parseQuantity(value: unknown): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 1 && value <= MAX_QUANTITY ? value : null;
  if (typeof value !== "string" || !/^\d{1,6}$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return n >= 1 && n <= MAX_QUANTITY ? n : null;
}

export function isPurchasable(plan: unknown): plan is PurchasablePlan {
  return typeof plan === "number" && (PURCHASABLE as readonly number[]).includes(plan);
}

export interface Quote {
  currency: string;
  exponent: number;
  unitMinor: number;
  quantity: number;
  amountMinor: number;
  taxBp: number;
  taxMinor: number;
  totalMinor: number;
}

/** amount = quantity x price; tax = amount x rate rounded half up to the minor unit; total = amount + tax. */
export function quote(entry: PriceEntry, plan: PurchasablePlan, quantity: number): Quote {
  if (!Number.isSafeInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) throw new RangeError("quantity");
  const unitMinor = entry.prices[plan];
  const amountMinor = unitMinor * quantity;
  // integer half-up rounding: floor((a * bp + 5000) / 10000)
  const taxMinor = Math.floor((amountMinor * entry.taxBp + 5000) / 10000);
  return {
    currency: entry.currency,
    exponent: entry.exponent,
    unitMinor,
    quantity,
    amountMinor,
    taxBp: entry.taxBp,
    taxMinor,
    totalMinor: amountMinor + taxMinor,
  };
}

/** Minor units as a plain decimal string: 12345 (exp 2) -> "123.45"; 1600 (exp 0) -> "1600". */
export function toDecimal(minor: number, exponent: number): string {
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, "0");
  const whole = exponent ? digits.slice(0, -exponent) : digits;
  const frac = exponent ? `.${digits.slice(-exponent)}` : "";
  return `${negative ? "-" : ""}${whole}${frac}`;
}

/** "MYR 123.45", with thousands separators. */
export function formatMoney(minor: number, currency: string, exponent: number): string {
  const [whole, frac] = toDecimal(minor, exponent).split(".");
  return `${currency} ${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${frac ? `.${frac}` : ""}`;
}

/** Basis points as a percentage label: 800 -> "8%", 825 -> "8.25%". */
export function formatPercent(bp: number): string {
  return `${toDecimal(bp, 2).replace(/\.?0+$/, "")}%`;
}

/** Minor-unit digits of a currency we price in (stored payments carry only the code). */
export function exponentOf(currency: string): number {
  return [...TABLE, INTERNATIONAL].find((e) => e.currency === currency)?.exponent ?? 2;
}
