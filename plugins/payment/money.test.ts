import { describe, expect, it } from "vitest";
import { formatMoney, formatPercent, parseQuantity, pricingFor, quote, toDecimal, MAX_QUANTITY } from "./money";

describe("pricing by country", () => {
  it("Malaysia pays MYR with 8% Sales and Service Tax; unknown countries the home market", () => {
    expect(pricingFor("MY")).toMatchObject({ currency: "MYR", taxBp: 800 });
    expect(pricingFor("my").currency).toBe("MYR");
    expect(pricingFor(null).currency).toBe("MYR");
    expect(pricingFor("").currency).toBe("MYR");
  });
  it("listed countries pay their own currency, the rest US dollars without SST", () => {
    expect(pricingFor("SG")).toMatchObject({ currency: "SGD", taxBp: 0 });
    expect(pricingFor("JP")).toMatchObject({ currency: "JPY", exponent: 0 });
    expect(pricingFor("DE")).toMatchObject({ currency: "USD", taxBp: 0 });
  });
});

describe("amounts in minor units", () => {
  it("Basic for 3 users in Malaysia: 267.00 + 8% = 288.36", () => {
    const q = quote(pricingFor("MY"), 2, 3);
    expect(q).toMatchObject({ unitMinor: 8900, amountMinor: 26700, taxMinor: 2136, totalMinor: 28836 });
    expect(formatMoney(q.totalMinor, q.currency, q.exponent)).toBe("MYR 288.36");
  });
  it("rounds the tax half up to the sen, never through floats", () => {
    // 4900 * 7 = 34300; 8% = 2744 exactly; Starter x 1 = 392 sen tax
    expect(quote(pricingFor("MY"), 1, 1).taxMinor).toBe(392);
    // a rate giving half a minor unit: 8.25% of 4900 x 3 = 1212.75 -> 1213
    const entry = { ...pricingFor("MY"), taxBp: 825 };
    expect(quote(entry, 1, 3).taxMinor).toBe(1213);
    // 0.1 + 0.2 style: 8% of 13900 x 11 = 12232 exactly
    expect(quote(pricingFor("MY"), 3, 11)).toMatchObject({ amountMinor: 152900, taxMinor: 12232, totalMinor: 165132 });
  });
  it("zero-decimal currencies and zero tax", () => {
    const q = quote(pricingFor("JP"), 3, 2);
    expect(q).toMatchObject({ amountMinor: 9000, taxMinor: 0, totalMinor: 9000 });
    expect(formatMoney(q.totalMinor, q.currency, q.exponent)).toBe("JPY 9,000");
    expect(formatMoney(quote(pricingFor("US"), 3, MAX_QUANTITY).totalMinor, "USD", 2)).toBe("USD 320,000.00");
  });
  it("refuses quantities outside 1..MAX", () => {
    expect(() => quote(pricingFor("MY"), 2, 0)).toThrow();
    expect(() => quote(pricingFor("MY"), 2, 1.5)).toThrow();
    expect(() => quote(pricingFor("MY"), 2, MAX_QUANTITY + 1)).toThrow();
  });
});

describe("Number of Users", () => {
  it.each([
    ["3", 3],
    ["1", 1],
    [" 7 ", 7],
    [String(MAX_QUANTITY), MAX_QUANTITY],
    [5, 5],
    ["0", null],
    ["-3", null],
    ["1.5", null],
    ["2e3", null],
    ["", null],
    ["abc", null],
    ["99999999999999999999", null],
    [String(MAX_QUANTITY + 1), null],
    [1.5, null],
    [-1, null],
    [null, null],
    [undefined, null],
  ])("%j -> %j", (input, expected) => {
    expect(parseQuantity(input)).toBe(expected);
  });
});

describe("formatting", () => {
  it("decimal strings and percentages", () => {
    expect(toDecimal(5, 2)).toBe("0.05");
    expect(toDecimal(12345, 2)).toBe("123.45");
    expect(toDecimal(1600, 0)).toBe("1600");
    expect(formatPercent(800)).toBe("8%");
    expect(formatPercent(825)).toBe("8.25%");
    expect(formatPercent(0)).toBe("0%");
  });
});
