// The trading edition's analyst pages (issue 21 Deliver 7), with JavaScript on and off, signed in on
// the trading host (trade.localhost): each page renders its charts on the server with a data table
// and passes axe (with JavaScript on, where axe can run); a watched keyword is added (a bad one refused with the text kept); an agent is
// sent home from the admin-only pages.
import { test, expect } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { chooseLanguage, login, originFor } from "./helpers";

const PAGES = [
  { path: "/analyst_intelligence", heading: "Analyst intelligence" },
  { path: "/prediction_validator", heading: "Prediction validator" },
  { path: "/ai_learning", heading: "AI learning" },
  { path: "/integrated_insight", heading: "Integrated insight" },
  { path: "/customer_analysis", heading: "Customer analysis" },
];

for (const javaScriptEnabled of [true, false]) {
  test.describe(`analyst pages with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });

    test("an admin reads every page: charts with their tables, no axe violation", async ({ page, context, baseURL }) => {
      test.setTimeout(120_000);
      const origin = originFor(baseURL!, "trade.localhost");
      await chooseLanguage(context, baseURL!, "en", "trade.localhost");
      await login(page, "admin", "admin", undefined, origin);
      for (const { path, heading } of PAGES) {
        await page.goto(`${origin}${path}`);
        await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
        await expect(page.locator(".chart-card").first()).toBeVisible();
        await expect(page.locator(".chart-card details summary").first()).toHaveText("Data table");
        // axe runs as a script in the page: with JavaScript on only (the markup is the same)
        if (!javaScriptEnabled) continue;
        const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
        expect(result.violations.map((v) => `${path}: ${v.id}`)).toEqual([]);
      }
    });

    test("an admin watches an instrument; a bad keyword is refused and kept", async ({ page, context, baseURL }) => {
      const origin = originFor(baseURL!, "trade.localhost");
      await chooseLanguage(context, baseURL!, "en", "trade.localhost");
      await login(page, "admin", "admin", undefined, origin);
      await page.goto(`${origin}/analyst_intelligence`);
      const alerts = page.getByTestId("trade-alerts");
      const keyword = `XAU${javaScriptEnabled ? "J" : "N"}${Date.now() % 100000}`;
      await alerts.getByLabel("Word or instrument").fill("<gold>");
      await alerts.getByRole("button", { name: "Watch" }).click();
      await expect(alerts.getByRole("alert")).toContainText("Use letters, digits");
      await expect(alerts.getByLabel("Word or instrument")).toHaveValue("<gold>");
      await alerts.getByLabel("Word or instrument").fill(keyword);
      await alerts.getByRole("button", { name: "Watch" }).click();
      await expect(alerts.getByRole("button", { name: `Stop watching ${keyword}` })).toBeVisible();
      await alerts.getByRole("button", { name: `Stop watching ${keyword}` }).click();
      await expect(alerts.getByRole("button", { name: `Stop watching ${keyword}` })).toHaveCount(0);
    });

    test("an agent is sent home from the admin-only pages", async ({ page, context, baseURL }) => {
      const origin = originFor(baseURL!, "trade.localhost");
      await chooseLanguage(context, baseURL!, "en", "trade.localhost");
      await login(page, "agent", "agent", undefined, origin);
      for (const path of ["/analyst_intelligence", "/prediction_validator", "/integrated_insight", "/ai_learning"]) {
        await page.goto(`${origin}${path}`);
        await expect(page).toHaveURL(`${origin}/`);
      }
    });
  });
}
