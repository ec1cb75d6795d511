// The WAUCHAT settings page without JavaScript: an admin reaches it from /settings, adds a keyword
// rule (an empty answer is refused with its message, the keywords kept), edits and deletes it.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

const TITLE = "WAUCHAT chat bot";

/** Switches the plugin on for the default edition; answers whether it was on. */
async function setPlugin(page: Page, on: boolean) {
  await page.goto("/admin/editions");
  const card = page.locator("form#edition-default");
  const box = card.getByRole("checkbox", { name: TITLE, exact: true });
  const was = await box.isChecked();
  await box.setChecked(on);
  await card.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/admin\/editions\?saved=default/);
  return was;
}

test.describe("WAUCHAT settings with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("an admin adds, edits and deletes a keyword rule", async ({ page }) => {
    const run = Date.now().toString(36);
    await login(page, "admin", "admin");
    const was = await setPlugin(page, true);
    try {
      await page.goto("/settings");
      await page.getByRole("link", { name: TITLE, exact: true }).click();
      await expect(page.getByRole("heading", { level: 1, name: TITLE })).toBeVisible();

      const add = page.getByRole("form", { name: "Add a keyword rule" });
      await add.getByLabel("Keywords", { exact: true }).fill(`warranty-${run}, guarantee`);
      await add.getByRole("button", { name: "Add rule" }).click();
      // refused: the answer is missing; the keywords stay as typed
      const refused = page.getByRole("form", { name: "Add a keyword rule" });
      await expect(refused.getByText("Please fill in this field.")).toBeVisible();
      await expect(refused.getByLabel("Keywords", { exact: true })).toHaveValue(`warranty-${run}, guarantee`);
      await refused.getByLabel("Answer", { exact: true }).fill("Every product has two years of warranty.");
      await refused.getByRole("button", { name: "Add rule" }).click();
      await expect(page.getByRole("status")).toHaveText("The keyword rule is saved.");

      const rule = page.getByRole("form", { name: `Keyword rule: warranty-${run}, guarantee` });
      await expect(rule.getByLabel("Answer", { exact: true })).toHaveValue("Every product has two years of warranty.");
      await rule.getByLabel("Keywords", { exact: true }).fill(`warranty-${run}`);
      await rule.getByLabel("Answer", { exact: true }).fill("Three years, from the date on the receipt.");
      await rule.getByLabel("Hand over to an agent after answering").check();
      await rule.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("status")).toHaveText("The keyword rule is saved.");
      const edited = page.getByRole("form", { name: `Keyword rule: warranty-${run}` });
      await expect(edited.getByLabel("Answer", { exact: true })).toHaveValue("Three years, from the date on the receipt.");
      await expect(edited.getByLabel("Hand over to an agent after answering")).toBeChecked();

      await edited.getByRole("button", { name: "Delete" }).click();
      await expect(page.getByRole("status")).toHaveText("The keyword rule is deleted.");
      await expect(page.getByRole("form", { name: `Keyword rule: warranty-${run}` })).toHaveCount(0);
    } finally {
      if (!was) await setPlugin(page, false);
    }
  });
});
