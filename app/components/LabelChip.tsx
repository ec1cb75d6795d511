// A label as lists show it: a chip (or a dot beside its name) in the label's colour for the page's
// theme, made readable by app/contrast.ts. Both shades go in as CSS variables and the stylesheet
// picks one by theme (light, dark, or the system's for "auto"), so no script is needed.
import type { CSSProperties, ReactNode } from "react";
import { labelShades } from "~/contrast";

export interface LabelColors {
  color?: string | null;
  colorDark?: string | null;
}

const shades = new Map<string, CSSProperties>();

/** The style that colours a chip or dot: --label-light and --label-dark (absent ones fall back to the theme's text colour). */
export function labelStyle({ color, colorDark }: LabelColors): CSSProperties | undefined {
  const key = `${color ?? ""}/${colorDark ?? ""}`;
  let style = shades.get(key);
  if (!style) {
    const [light, dark] = labelShades(color, colorDark);
    style = { ...(light ? { "--label-light": light } : {}), ...(dark ? { "--label-dark": dark } : {}) } as CSSProperties;
    if (shades.size > 500) shades.clear();
    shades.set(key, style);
  }
  return Object.keys(style).length ? style : undefined;
}

export function LabelChip({ label, children }: { label: LabelColors; children: ReactNode }) {
  return (
    <span className="label-chip" style={labelStyle(label)}>
      {children}
    </span>
  );
}

/** The colour swatch beside a label's name (decorative: the name says it). */
export const LabelDot = ({ label }: { label: LabelColors }) => <span className="dot" style={labelStyle(label)} aria-hidden="true" />;
