// /ticket, the main menu's Tickets: the list beside an empty detail column ('its empty'), with
// JavaScript on and off; choosing a ticket from the list opens it. On a phone (the "phone"
// project) the list takes the screen instead of the empty detail. /mobile/ticket: the list alone.
import { test, expect } from "@playwright/test";
import { chooseLanguage, isPhone, login, openMainMenu } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`the ticket page with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("Tickets in the main menu shows the list and an empty detail column, not a placeholder", async ({ page }) => {
      await login(page, "agent", "agent");
      await openMainMenu(page);
      await page.getByRole("complementary", { name: "Main navigation" }).getByRole("link", { name: "Tickets", exact: true }).click();
      await expect(page).toHaveURL(/\/ticket$/);
      const empty = page.getByText("its empty", { exact: true });
      if (isPhone(page)) await expect(empty).toBeHidden();
      else await expect(empty).toBeVisible();
      await expect(page.getByText("This feature is not available yet", { exact: false })).toHaveCount(0);
      const first = page.locator(".ticket-item .title").first();
      const title = (await first.textContent())!.trim();
      await first.click();
      await expect(page).toHaveURL(/\/ticket\/\d+$/);
      await expect(page.getByRole("heading", { level: 1 })).toContainText(title);
    });

    test("/mobile/ticket and /mobile show the list without the detail panel", async ({ page }) => {
      await login(page, "agent", "agent");
      for (const path of ["/mobile/ticket", "/mobile"]) {
        const response = await page.goto(path);
        expect(response?.status()).toBe(200);
        await expect(page.getByRole("heading", { level: 1, name: "Tickets" })).toBeAttached();
        await expect(page.getByRole("region", { name: "Conversations" }).locator(".ticket-item").first()).toBeVisible();
        await expect(page.getByText("its empty", { exact: true })).toHaveCount(0);
        await expect(page.getByText("This feature is not available yet", { exact: false })).toHaveCount(0);
      }
      // its tabs stay on /mobile/ticket
      await page.goto("/mobile/ticket");
      await page.getByRole("navigation", { name: "Status filter" }).getByRole("link", { name: "Pending" }).click();
      await expect(page).toHaveURL(/\/mobile\/ticket\?status=1$/);
      // the ticket read, wherever other agents' news has moved it meanwhile (or out of Pending: then the next)
      await expect(async () => {
        // a retry starts from the list again (on a phone the opened ticket hides it)
        if (!page.url().endsWith("/mobile/ticket?status=1")) await page.goto("/mobile/ticket?status=1");
        const number = await page.locator(".ticket-item").first().getAttribute("data-ticket", { timeout: 3000 });
        await page.locator(`.ticket-item[data-ticket="${number}"]`).click({ timeout: 3000 });
        await expect(page).toHaveURL(new RegExp(`/ticket/${number}\\?status=1$`), { timeout: 3000 });
      }).toPass({ timeout: 20_000 });
    });
  });
}
