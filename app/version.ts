/** Build 1.1.10, tag b (spec section 1); id grows with every release for the new-version notice. */
export const VERSION = { id: 11010, build: "1.1.10", tag: "b", description: "Foundation release" } as const;

/** The version of the server that rendered this page (<html data-version>, set by root.tsx); the build's own elsewhere. */
export function pageVersionId() {
  const rendered = typeof document === "undefined" ? NaN : Number(document.documentElement.dataset.version);
  return Number.isInteger(rendered) && rendered > 0 ? rendered : VERSION.id;
}
