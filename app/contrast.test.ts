import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DARK_SURFACE, LIGHT_SURFACE, contrastRatio, labelShades, luminance, ratioText, readableOn, shortfall } from "./contrast";
import { DEMO_LABELS } from "./seed/seed";

describe("contrast ratio (WCAG 2.1)", () => {
  it("matches the definition's fixed points", () => {
    expect(luminance("#000000")).toBe(0);
    expect(luminance("#ffffff")).toBeCloseTo(1, 10);
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 10);
    expect(contrastRatio("#ffffff", "#000000")).toBeCloseTo(21, 10);
    expect(contrastRatio("#123456", "#123456")).toBe(1);
    // the well-known grey that just misses AA on white
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
  });

  it("measures the issue's failing chips as axe did", () => {
    expect(ratioText(contrastRatio("#f57c00", LIGHT_SURFACE))).toBe("2.7");
    expect(ratioText(contrastRatio("#7b1fa2", DARK_SURFACE))).toBe("2.0");
  });

  it("shows a ratio rounded down, so a miss never reads as a pass", () => {
    expect(ratioText(4.4999)).toBe("4.4");
    expect(ratioText(4.5)).toBe("4.5");
    expect(ratioText(21)).toBe("21.0");
  });
});

describe("readable label shades", () => {
  it("darkens #f57c00 on the light theme and lightens #7b1fa2 on the dark one until each reaches 4.5:1", () => {
    const orange = readableOn("#f57c00", LIGHT_SURFACE);
    expect(contrastRatio(orange, LIGHT_SURFACE)).toBeGreaterThanOrEqual(4.5);
    expect(luminance(orange)).toBeLessThan(luminance("#f57c00"));
    const purple = readableOn("#7b1fa2", DARK_SURFACE);
    expect(contrastRatio(purple, DARK_SURFACE)).toBeGreaterThanOrEqual(4.5);
    expect(luminance(purple)).toBeGreaterThan(luminance("#7b1fa2"));
  });

  it("keeps the hue: a darkened orange is still orange", () => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(readableOn("#f57c00", LIGHT_SURFACE).slice(i, i + 2), 16));
    expect(r).toBeGreaterThan(g);
    expect(g).toBeGreaterThan(b);
  });

  it("leaves a colour that already reads as the admin picked it", () => {
    expect(readableOn("#d32f2f", LIGHT_SURFACE)).toBe("#d32f2f");
    expect(readableOn("#ce93d8", DARK_SURFACE)).toBe("#ce93d8");
  });

  it("reaches 4.5:1 for every colour of a 16-step grid, on both themes", () => {
    const steps = Array.from({ length: 16 }, (_, i) => i * 17);
    const hex = (n: number) => n.toString(16).padStart(2, "0");
    let worst = 21;
    for (const r of steps)
      for (const g of steps)
        for (const b of steps) {
          const color = `#${hex(r)}${hex(g)}${hex(b)}`;
          const [light, dark] = labelShades(color, color);
          worst = Math.min(worst, contrastRatio(light!, LIGHT_SURFACE), contrastRatio(dark!, DARK_SURFACE));
        }
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });

  it("gives every demo label a readable shade in both themes, from its color and its colorDark", () => {
    for (const label of DEMO_LABELS) {
      const [light, dark] = labelShades(label.color, label.colorDark);
      expect(contrastRatio(light!, LIGHT_SURFACE), label.name).toBeGreaterThanOrEqual(4.5);
      expect(contrastRatio(dark!, DARK_SURFACE), label.name).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("has no shade for a missing or malformed colour (the chip falls back to the theme's text colour)", () => {
    expect(labelShades(null, "#12345")).toEqual([null, null]);
  });
});

describe("the label editor's warning", () => {
  it("names the ratio a colour reaches on its theme when it falls short, and nothing when it reads", () => {
    expect(shortfall("#f57c00", "light")).toBeCloseTo(contrastRatio("#f57c00", LIGHT_SURFACE), 10);
    expect(shortfall("#7b1fa2", "dark")).toBeCloseTo(contrastRatio("#7b1fa2", DARK_SURFACE), 10);
    expect(shortfall("#7b1fa2", "light")).toBeNull();
    expect(shortfall("#ffcc80", "dark")).toBeNull();
    expect(shortfall("not a colour", "light")).toBeNull();
  });
});

it("measures against the surfaces the stylesheet really paints", () => {
  const css = fs.readFileSync(path.resolve("app/styles/app.css"), "utf8");
  const surfaces = [...css.matchAll(/--surface:\s*(#[0-9a-f]{6})/gi)].map((m) => m[1].toLowerCase());
  expect(new Set(surfaces)).toEqual(new Set([LIGHT_SURFACE, DARK_SURFACE]));
});
