// The trading edition's analyst pages (issue 21 Deliver 7), with JavaScript on and off, signed in on
// the trading host (trade.localhost): each page renders its charts on the server with a data table
// and passes axe (with JavaScript on, where axe can run); a watched keyword is added (a bad one refused with the text kept); a
// customer's message naming it reaches the admin's notification centre (Trade tab; with JavaScript pushed to the bell) and leads to
// the conversation's analyst view; an agent is sent home from the admin-only pages.
import { test, expect, type BrowserContext, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login, originFor, visitorWrites } from "./helpers";

const PAGES = [
  { path: "/analyst_intelligence", heading: "Analyst intelligence" },
  { path: "/prediction_validator", heading: "Prediction validator" },
  { path: "/ai_learning", heading: "AI learning" },
  { path: "/integrated_insight", heading: "Integrated insight" },
  { path: "/customer_analysis", heading: "Customer analysis" },
];

/** The admin signed in on the trading host, on /analyst_intelligence: its trade-alerts section. */
async function adminAlerts(page: Page, context: BrowserContext, baseURL: string) {
  const origin = originFor(baseURL, "trade.localhost");
  await chooseLanguage(context, baseURL, "en", "trade.localhost");
  await login(page, "admin", "admin", undefined, origin);
  await page.goto(`${origin}/analyst_intelligence`);
  return { origin, alerts: page.getByTestId("trade-alerts") };
}

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
        expect(await axeViolations(page, { where: path })).toEqual([]);
      }
    });

    test("an admin watches an instrument; a bad keyword is refused and kept", async ({ page, context, baseURL }) => {
      const { alerts } = await adminAlerts(page, context, baseURL!);
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

    test("a customer's message naming a watched instrument reaches the admin's notification centre as a trade alert", async ({
      page,
      context,
      browser,
      baseURL,
    }) => {
      test.setTimeout(120_000);
      const { origin, alerts } = await adminAlerts(page, context, baseURL!);
      const keyword = `XAG${javaScriptEnabled ? "J" : "N"}${Date.now() % 1000000}`;
      await alerts.getByLabel("Word or instrument").fill(keyword);
      await alerts.getByRole("button", { name: "Watch" }).click();
      await expect(alerts.getByRole("button", { name: `Stop watching ${keyword}` })).toBeVisible();
      if (javaScriptEnabled) await expect(page.locator('html[data-realtime="connected"]')).toHaveCount(1);
      const bell = page.locator(".notification-bell");
      const unseen = async () => ((await bell.locator("summary .badge").count()) ? Number(await bell.locator("summary .badge").textContent()) : 0);
      const before = await unseen();

      const subject = `Silver order ${keyword}`;
      await visitorWrites(browser, baseURL!, javaScriptEnabled, subject, `Please sell my ${keyword.toLowerCase()} position before the market closes.`);
      const text = `Trade alert: ${keyword}: ${subject}`;
      if (javaScriptEnabled) {
        // pushed: the bell counts it without a reload, and its panel's Trade tab lists it
        await expect.poll(unseen, { timeout: 30_000 }).toBeGreaterThan(before);
        await bell.locator("summary").click();
        await bell.getByRole("link", { name: /^Trade/ }).click();
        await expect(bell.getByRole("link", { name: text })).toBeVisible();
        await page.goto(`${origin}/notifications?tab=trade`);
      } else {
        await expect(async () => {
          await page.goto(`${origin}/notifications?tab=trade`);
          await expect(page.locator(".notifications-page").getByRole("link", { name: text })).toBeVisible({ timeout: 1_000 });
        }).toPass({ timeout: 30_000 });
      }
      // the notification leads to the conversation's analyst view, which names the alert
      await page.locator(".notifications-page").getByRole("link", { name: text }).click();
      await expect(page).toHaveURL(new RegExp(`${origin}/analyst_intelligence/ticket/\\d+$`));
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
      await expect(page.getByTestId("analyst-alerts")).toHaveText(keyword);

      await page.goto(`${origin}/analyst_intelligence`);
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
