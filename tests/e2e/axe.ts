// axe-core's WCAG 2.0/2.1 A and AA rules on a page, for every spec that checks accessibility.
// axe runs as a script in the page, so with JavaScript on (the markup is the same without).
import type { Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";

export const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Each violation as `where: rule (impact) at element, element`; [] when there is none. Only
 * violations are gathered: collecting every passing element's selector as well (axe's default) is
 * most of its time on a big page, and no test reads them.
 */
export async function axeViolations(page: Page, options: { where?: string; include?: string } = {}) {
  // options() replaces every option set before it (withTags too): it comes first
  let builder = new AxeBuilder({ page }).options({ resultTypes: ["violations"] }).withTags(WCAG);
  if (options.include) builder = builder.include(options.include);
  const result = await builder.analyze();
  const where = options.where ?? new URL(page.url()).pathname;
  return result.violations.map((v) => `${where}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
