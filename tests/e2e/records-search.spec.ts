// Records in the global search, and custom contact fields, JavaScript on and off: an admin adds a
// number field and a select field to every contact (a select without choices refused, what was
// typed kept); a customer writes in; the search finds the contact (linked to /contacts/{uid}) and a
// demo product by its SKU (linked to /product/{id}); on the contact's page a wrong number is
// refused with its message and the typed values kept, then saved.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login } from "./helpers";

/** WCAG 2.1 AA on the pages with their refusals shown (axe runs in the page: with JavaScript on). */
async function expectAccessible(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`records in search, custom fields, JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("the search finds a contact and a product; the contact's custom fields are checked and saved", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      const name = `Qistina ${tag}`;
      const visitor = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitor, baseURL!);
      const form = await visitor.newPage();
      await form.goto("/new_ticket/demo");
      await form.getByLabel("Name").fill(name);
      await form.getByLabel("Email").fill(`qistina.${tag}@example.com`);
      await form.getByLabel("Subject").fill(`Warranty ${tag}`);
      await form.getByLabel("Message").fill("My fridge stopped cooling.");
      await form.getByRole("button", { name: "Submit" }).click();
      await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
      await visitor.close();

      await login(page, "admin", "admin");
      // custom fields: a choice list needs its choices
      await page.goto("/contacts/fields");
      await expect(page.getByRole("heading", { level: 1, name: "Custom contact fields" })).toBeVisible();
      const add = page.getByRole("region", { name: "Add a field" });
      const units = `Units ${tag}`;
      const tier = `Tier ${tag}`;
      await add.getByLabel("Label").fill(tier);
      await add.getByLabel("Kind").selectOption({ label: "Choice from a list" });
      await add.getByRole("button", { name: "Add field" }).click();
      await expect(page.getByText("Please give at least one choice, one per line.")).toBeVisible();
      await expect(add.getByLabel("Label")).toHaveValue(tier);
      if (javaScriptEnabled) await expectAccessible(page);
      await add.getByLabel("Choices").fill("Gold\nSilver");
      await add.getByRole("button", { name: "Add field" }).click();
      await expect(add.getByRole("status").filter({ hasText: "Field added." })).toBeVisible();
      await add.getByLabel("Label").fill(units);
      await add.getByLabel("Kind").selectOption({ label: "Number" });
      await add.getByRole("button", { name: "Add field" }).click();
      await expect(add.getByRole("status").filter({ hasText: "Field added." })).toBeVisible();

      // the search finds the contact (linked within seconds) and a product by its SKU
      await expect(async () => {
        await page.goto(`/search?q=${encodeURIComponent(name)}`);
        await expect(page.locator('[data-records="contacts"]').getByRole("link", { name })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await page.goto("/search?q=TV-55-4K");
      const product = page.locator('[data-records="product"]').getByRole("link", { name: /Smart TV 55" 4K UHD/ });
      await expect(product).toHaveAttribute("href", /^\/product\/\d+$/);
      if (javaScriptEnabled) await expectAccessible(page);
      await page.goto(`/search?q=${encodeURIComponent(name)}`);
      const hit = page.locator('[data-records="contacts"]').getByRole("link", { name });
      await expect(hit).toHaveAttribute("href", /^\/contacts\/[A-Za-z0-9_-]+$/);
      await hit.click();
      await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();

      // a number that is not one: refused with its message, everything typed kept
      const custom = page.getByRole("region", { name: "Custom fields" });
      await custom.getByLabel(units).fill("a dozen");
      await custom.getByLabel(tier).selectOption("Silver");
      await custom.getByRole("button", { name: "Save fields" }).click();
      await expect(page.getByText("Please enter a number, for example 42 or 3.5.").first()).toBeVisible();
      await expect(custom.getByLabel(units)).toHaveAttribute("aria-invalid", "true");
      await expect(custom.getByLabel(units)).toHaveValue("a dozen");
      await expect(custom.getByLabel(tier)).toHaveValue("Silver");
      if (javaScriptEnabled) await expectAccessible(page);
      await custom.getByLabel(units).fill("12");
      await custom.getByRole("button", { name: "Save fields" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
      await page.reload();
      await expect(page.getByRole("region", { name: "Custom fields" }).getByLabel(units)).toHaveValue("12");
      await expect(page.getByRole("region", { name: "Custom fields" }).getByLabel(tier)).toHaveValue("Silver");

      // the fields are retired again, so other specs' contact pages stay as they were
      await page.goto("/contacts/fields");
      await page.getByRole("button", { name: `Retire ${units}` }).click();
      await page.getByRole("button", { name: `Retire ${tier}` }).click();
      await expect(page.getByRole("button", { name: `Bring back ${tier}` })).toBeVisible();
    });
  });
}
