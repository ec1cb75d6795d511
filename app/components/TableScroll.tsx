import type { ReactNode } from "react";

/**
 * A wide table's scroll box: a keyboard user can focus it and scroll it with the arrow keys
 * (WCAG 2.1.1; axe's scrollable-region-focusable), and a screen reader names it by `label`.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region must take focus
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
