// /ticket, the main menu's Tickets: the list beside an empty detail column ('its empty'), with
// JavaScript on and off; choosing a ticket from the list opens it.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`the ticket page with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("Tickets in the main menu shows the list and an empty detail column, not a placeholder", async ({ page }) => {
      await login(page, "agent", "agent");
      await page.getByRole("complementary", { name: "Main navigation" }).getByRole("link", { name: "Tickets", exact: true }).click();
      await expect(page).toHaveURL(/\/ticket$/);
      await expect(page.getByText("its empty", { exact: true })).toBeVisible();
      await expect(page.getByText("This feature is not available yet", { exact: false })).toHaveCount(0);
      const first = page.locator(".ticket-item .title").first();
      const title = (await first.textContent())!.trim();
      await first.click();
      await expect(page).toHaveURL(/\/ticket\/\d+$/);
      await expect(page.getByRole("heading", { level: 1 })).toContainText(title);
    });
  });
}
