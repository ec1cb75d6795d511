// Colour contrast as WCAG 2.1 measures it (1.4.3: text needs 4.5:1), and the colours a label's chip
// shows: the label's own colour when it reads on the theme's surface, else the nearest readable
// shade of it (darker on the light theme, lighter on the dark one), so every chip meets 4.5:1
// whatever colour an admin picks.

/** The surfaces chips sit on (--surface in app/styles/app.css; tests/unit/contrast.test.ts keeps them equal). */
export const LIGHT_SURFACE = "#ffffff";
export const DARK_SURFACE = "#1b1f26";
/** WCAG 2.1 AA for normal text. */
export const MIN_TEXT_CONTRAST = 4.5;

type Rgb = [number, number, number];

const HEX = /^#([0-9a-f]{6})$/i;
export const isHexColor = (value: unknown): value is string => typeof value === "string" && HEX.test(value.trim());

function rgbOf(hex: string): Rgb {
  const n = parseInt(hex.trim().slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const hexOf = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;

/** Relative luminance (WCAG 2.1 definition), 0 for black to 1 for white. */
export function luminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** A ratio as people read it: rounded down, so 4.49 never shows as 4.5. */
export const ratioText = (ratio: number) => (Math.floor(ratio * 10) / 10).toFixed(1);

const STEPS = 64;

/**
 * `color` itself when it reaches `min` against `background`, else the first shade of it, mixed
 * toward black (on a light background) or white (on a dark one), that does.
 */
export function readableOn(color: string, background: string, min = MIN_TEXT_CONTRAST): string {
  const from = rgbOf(color);
  const toward: Rgb = contrastRatio("#000000", background) >= contrastRatio("#ffffff", background) ? [0, 0, 0] : [255, 255, 255];
  for (let step = 0; step < STEPS; step++) {
    const shade = hexOf(from.map((c, i) => c + ((toward[i] - c) * step) / STEPS) as Rgb);
    if (contrastRatio(shade, background) >= min) return shade;
  }
  return hexOf(toward);
}

/** A label's two colours as the chip shows them: [light theme, dark theme]; null where a colour is missing or malformed. */
export function labelShades(color: string | null | undefined, colorDark: string | null | undefined): [string | null, string | null] {
  return [isHexColor(color) ? readableOn(color, LIGHT_SURFACE) : null, isHexColor(colorDark) ? readableOn(colorDark, DARK_SURFACE) : null];
}

/**
 * Whether a label colour, as an admin typed it, falls short on its theme's surface (the chip then
 * shows a darker or lighter shade): the ratio it reaches, or null when it reads as it is.
 */
export function shortfall(color: string, theme: "light" | "dark"): number | null {
  if (!isHexColor(color)) return null;
  const ratio = contrastRatio(color, theme === "light" ? LIGHT_SURFACE : DARK_SURFACE);
  return ratio >= MIN_TEXT_CONTRAST ? null : ratio;
}
