// The accessibility guard (issue 23): axe-core's WCAG 2.0/2.1 A and AA rules on every page an
// admin reaches from the menu and the settings pages, a conversation, search and a report, and on
// the public pages (sign-in, new ticket, live chat, survey, sign-up, 404; the list is
// tests/e2e/pages.ts, shared with the language-leak guard), in the light and the dark theme. Any
// violation fails, with the rule, the page and the element; no rule is switched off.
import { test, expect } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login, remixCookieValue } from "./helpers";
import { PUBLIC_PAGES, adminPages } from "./pages";

for (const theme of ["light", "dark"] as const) {
  test.describe(`WCAG 2.1 AA in the ${theme} theme`, () => {
    test.beforeEach(async ({ context, baseURL }) => {
      await chooseLanguage(context, baseURL!);
      await context.addCookies([{ name: "theme", value: remixCookieValue(theme), url: baseURL! }]);
    });

    test("every page an admin reaches: no violation", async ({ page }) => {
      // some 60 pages, each analysed in full: minutes on a busy 2-core runner
      test.setTimeout(600_000);
      await login(page, "admin", "admin");
      const pages = await adminPages(page);
      const found: string[] = [];
      for (const path of pages) {
        await page.goto(path);
        found.push(...(await axeViolations(page, { where: path })));
      }
      expect(pages.length).toBeGreaterThan(15);
      console.log(`[axe ${theme}] ${pages.length} signed-in pages checked, ${found.length} violations`);
      expect(found).toEqual([]);
    });

    test("the public pages: no violation", async ({ page }) => {
      const found: string[] = [];
      for (const path of PUBLIC_PAGES) {
        await page.goto(path);
        found.push(...(await axeViolations(page, { where: path })));
      }
      console.log(`[axe ${theme}] ${PUBLIC_PAGES.length} public pages checked, ${found.length} violations`);
      expect(found).toEqual([]);
    });
  });
}
