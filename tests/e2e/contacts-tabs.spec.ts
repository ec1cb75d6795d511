// Custom contact tabs, custom field order and names, and a customer's profile card, JavaScript on
// and off: an admin adds a tab (a wrong start index refused with the name kept), pages through it
// on /contacts and gets a clear message for a page that is not one; renames a custom field (an
// empty label refused) and moves one up; an agent opens a customer's card from their message and
// sees the Activity, Tickets and Live Chat tabs ending in 'All caught up!'.
import { test, expect } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`contact tabs, fields and the customer card with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an admin adds a contact tab, pages through it, and renames and reorders custom fields", async ({ page }) => {
      test.setTimeout(90_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      await login(page, "admin", "admin");
      await page.goto("/contacts");
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("link", { name: "Contact tabs" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Custom contact tabs" })).toBeVisible();
      await page.getByLabel("Name", { exact: true }).fill(`Batch ${tag}`);
      await page.getByLabel("Start index").fill("first");
      await page.getByLabel("Contacts per page").fill("1");
      await page.getByRole("button", { name: "Add tab" }).click();
      await expect(page.getByText("The start index must be a whole number from 0 to 10000000.")).toBeVisible();
      await expect(page.getByLabel("Start index")).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("Name", { exact: true })).toHaveValue(`Batch ${tag}`);
      await page.getByLabel("Start index").fill("0");
      await page.getByRole("button", { name: "Add tab" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Tab added." })).toBeVisible();

      await page.getByRole("link", { name: "All contacts" }).click();
      const tabs = page.getByRole("navigation", { name: "Contact tabs" });
      await tabs.getByRole("link", { name: `Batch ${tag}` }).click();
      await expect(page.getByRole("heading", { level: 2, name: `Batch ${tag}` })).toBeVisible();
      await expect(tabs.getByRole("link", { name: `Batch ${tag}` })).toHaveAttribute("aria-current", "page");
      await expect(page.getByTestId("contact-tab-range")).toContainText("Contacts 1 to 1 of");
      const pager = page.getByRole("navigation", { name: `Pages of Batch ${tag}` });
      await pager.getByRole("link", { name: "Next page" }).click();
      await expect(page.getByTestId("contact-tab-range")).toContainText("Contacts 2 to 2 of");
      await expect(pager).toContainText("Page 2 of");
      const url = new URL(page.url());
      await page.goto(`/contacts?tab=${url.searchParams.get("tab")}&index=two`);
      await expect(page.getByRole("alert").filter({ hasText: '"two"' })).toHaveText(
        '"two" is not a page of this tab: the page index is a whole number from 0.',
      );
      await expect(tabs.getByRole("link", { name: "All contacts" })).toBeVisible();

      // custom fields: two new ones, the first renamed (an empty label refused), the second moved up
      await page.goto("/contacts/fields");
      for (const label of [`Tier ${tag}`, `Region ${tag}`]) {
        await page.getByLabel("Label", { exact: true }).fill(label);
        await page.getByRole("button", { name: "Add field" }).click();
        await expect(page.getByRole("status").filter({ hasText: "Field added." })).toBeVisible();
      }
      await page.getByLabel(`New label for Tier ${tag}`).fill(" ");
      await page.getByRole("button", { name: `Rename Tier ${tag}` }).click();
      await expect(page.getByText("Please give the field a label.")).toBeVisible();
      await page.getByLabel(`New label for Tier ${tag}`).fill(`Loyalty ${tag}`);
      await page.getByRole("button", { name: `Rename Tier ${tag}` }).click();
      await expect(page.getByRole("status").filter({ hasText: "Field renamed; every contact keeps its value." })).toBeVisible();
      await page.getByRole("button", { name: `Move Region ${tag} up` }).click();
      await expect(page.getByRole("status").filter({ hasText: "Order saved" })).toBeVisible();
      const order = page.getByRole("region", { name: "Fields, in the order contacts show them" }).getByRole("listitem");
      const labels = (await order.locator("strong").allTextContents()).filter((l) => l.endsWith(tag));
      expect(labels).toEqual([`Region ${tag}`, `Loyalty ${tag}`]);
      // tidy up: retire them, so other tests' contacts ask for nothing new
      for (const label of [`Region ${tag}`, `Loyalty ${tag}`]) await page.getByRole("button", { name: `Retire ${label}` }).click();
      await page.goto("/contacts/tabs");
      await page.getByRole("button", { name: `Remove the tab Batch ${tag}` }).click();
      await expect(page.getByRole("status").filter({ hasText: "Tab removed." })).toBeVisible();
    });

    test("an agent opens a customer's card from their message: Activity, Tickets and Live Chat, all caught up", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      const email = `hana.${tag}@example.com`;
      const name = `Hana ${tag}`;
      const visitor = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitor, baseURL!);
      const form = await visitor.newPage();
      await form.goto("/new_ticket/demo");
      await form.getByLabel("Name", { exact: true }).fill(name);
      await form.getByLabel("Email").fill(email);
      await form.getByLabel("Subject").fill(`Card ${tag}`);
      await form.getByLabel("Message").fill("Please call me back.");
      await form.getByRole("button", { name: "Submit" }).click();
      await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
      await visitor.close();

      await login(page, "agent", "agent");
      await expect(async () => {
        await page.goto(`/contacts?q=${encodeURIComponent(email)}`);
        await expect(page.getByRole("link", { name })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await page.getByRole("link", { name }).click();
      // with JavaScript the click navigates in the page: wait for the contact's address
      await expect(page).toHaveURL(/\/contacts\/[^/?]+$/);
      const contactUrl = page.url();
      await page
        .getByRole("region", { name: "Activity", exact: true })
        .getByRole("link", { name: `Card ${tag}` })
        .click();
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("link", { name, exact: true }).first().click();
      const card = javaScriptEnabled ? page.getByRole("dialog") : page.locator(".profile-card");
      if (!javaScriptEnabled) await expect(page).toHaveURL(/\/profile\?ticket=\d+/);
      await expect(card.getByRole("heading", { name })).toBeVisible();
      await expect(card.getByRole("link", { name: "View Profile" })).toHaveAttribute("href", new URL(contactUrl).pathname);
      const tabs = card.getByRole("navigation");
      await expect(tabs.getByRole("link")).toHaveText(["Activity", "Tickets", "Live Chat"]);
      await expect(tabs.getByRole("link", { name: "Activity" })).toHaveAttribute("aria-current", "page");
      await expect(card.getByRole("link", { name: new RegExp(`Card ${tag}`) })).toBeVisible();
      await expect(card.getByText("All caught up!")).toBeVisible();
      await tabs.getByRole("link", { name: "Live Chat" }).click();
      await expect(tabs.getByRole("link", { name: "Live Chat" })).toHaveAttribute("aria-current", "page");
      await expect(card.getByRole("link", { name: new RegExp(`Card ${tag}`) })).toHaveCount(0);
      await expect(card.getByText("All caught up!")).toBeVisible();
      await tabs.getByRole("link", { name: "Tickets" }).click();
      await expect(card.getByRole("link", { name: new RegExp(`Card ${tag}`) })).toBeVisible();
      if (javaScriptEnabled) {
        await page.keyboard.press("Escape");
        await expect(page.getByRole("dialog")).toHaveCount(0);
      }
    });
  });
}
