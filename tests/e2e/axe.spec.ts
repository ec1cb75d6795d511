// The accessibility guard (issue 23): axe-core's WCAG 2.0/2.1 A and AA rules on every page an
// admin reaches from the menu and the settings pages, a conversation, search and a report, and on
// the public pages (sign-in, new ticket, live chat, survey, sign-up, 404), in the light and the
// dark theme. The menu is crawled, so a page that gains a menu link is checked from then on. Any
// violation fails, with the rule, the page and the element; no rule is switched off.
import { test, expect, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { chooseLanguage, login, remixCookieValue } from "./helpers";

const WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const PUBLIC = ["/", "/new_ticket/demo", "/livechat/demo", "/survey/demo", "/signup", "/no-such-page"];

/** Same-site links of the page's menu and navigation, without query or hash. */
async function linksOf(page: Page, selector: string) {
  const hrefs = await page.locator(`${selector} a[href^="/"]`).evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  return hrefs.map((h) => h.split(/[?#]/)[0]).filter((h) => h && !h.startsWith("/logout") && !h.startsWith("/files/"));
}

async function violations(page: Page, path: string) {
  const result = await new AxeBuilder({ page }).withTags(WCAG).analyze();
  return result.violations.map((v) => `${path}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

for (const theme of ["light", "dark"] as const) {
  test.describe(`WCAG 2.1 AA in the ${theme} theme`, () => {
    test.beforeEach(async ({ context, baseURL }) => {
      await chooseLanguage(context, baseURL!);
      await context.addCookies([{ name: "theme", value: remixCookieValue(theme), url: baseURL! }]);
    });

    test("every page an admin reaches: no violation", async ({ page }) => {
      test.setTimeout(240_000);
      await login(page, "admin", "admin");
      const pages = new Set(await linksOf(page, "#menu"));
      await page.goto("/settings");
      for (const link of await linksOf(page, "main")) if (link.startsWith("/settings")) pages.add(link);
      // a conversation, a search and a report of a ticket, from the pages themselves
      await page.goto("/ticket");
      pages.add(`/ticket/${await page.locator(".ticket-item").first().getAttribute("data-ticket")}`);
      for (const extra of ["/search?q=refund", "/profile", "/report/ticket/4", "/preferences", "/notifications"]) pages.add(extra);
      const found: string[] = [];
      for (const path of [...pages].sort()) {
        await page.goto(path);
        found.push(...(await violations(page, path)));
      }
      expect(pages.size).toBeGreaterThan(15);
      console.log(`[axe ${theme}] ${pages.size} signed-in pages checked, ${found.length} violations`);
      expect(found).toEqual([]);
    });

    test("the public pages: no violation", async ({ page }) => {
      const found: string[] = [];
      for (const path of PUBLIC) {
        await page.goto(path);
        found.push(...(await violations(page, path)));
      }
      console.log(`[axe ${theme}] ${PUBLIC.length} public pages checked, ${found.length} violations`);
      expect(found).toEqual([]);
    });
  });
}
