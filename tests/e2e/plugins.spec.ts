import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

const kanbanLink = (page: Page) => page.getByRole("complementary", { name: "Main navigation" }).getByRole("link", { name: "Kanban", exact: true });

/** Sets the Kanban plugin of the default edition ("OmniDesk" card) on or off and saves. */
async function setKanban(page: Page, on: boolean) {
  await page.goto("/admin/editions");
  const card = page.locator("form#edition-default");
  await expect(card.getByRole("heading", { level: 2 })).toContainText("OmniDesk");
  const box = card.getByRole("checkbox", { name: "Kanban notifications" });
  await box.setChecked(on);
  await card.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/admin\/editions\?saved=default/);
  await expect(page.locator("form#edition-default").getByRole("status")).toHaveText("Settings updated");
  await expect(page.locator("form#edition-default").getByRole("checkbox", { name: "Kanban notifications" })).toBeChecked({
    checked: on,
  });
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`plugin toggles with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("switching Kanban off removes its menu link and route; switching it on brings them back", async ({ page }) => {
      await login(page, "admin", "admin");
      await expect(kanbanLink(page)).toBeVisible();
      let restored = false;
      try {
        await setKanban(page, false);
        await expect(kanbanLink(page)).toHaveCount(0);
        const response = await page.goto("/kanban");
        expect(response?.status()).toBe(404);
        await expect(page.getByRole("heading", { name: "Error 404" })).toBeVisible();
        // other plugins are untouched
        await page.goto("/");
        await expect(page.getByRole("complementary", { name: "Main navigation" }).getByRole("link", { name: "Tickets", exact: true })).toBeVisible();

        await setKanban(page, true);
        restored = true;
        await expect(kanbanLink(page)).toBeVisible();
        const back = await page.goto("/kanban");
        expect(back?.status()).toBe(200);
        await expect(page.getByRole("heading", { level: 1, name: "Kanban board" })).toBeVisible();
      } finally {
        // leave the default edition as it was for the other tests
        if (!restored) await setKanban(page, true).catch(() => undefined);
      }
    });
  });
}

test("an agent is refused the editions page", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "agent", "agent");
  const response = await page.goto("/admin/editions");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Editions and plugins" })).toHaveCount(0);
  await expect(page.locator("form#edition-default")).toHaveCount(0);
});
