// Channel settings: an admin adds an email account, edits it without ever getting its password
// back, tests it, disables and deletes it, with JavaScript on and off; agents are kept out.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

const PLUGINS = ["Channels", "Email"];

/** Switches the channel plugins of the default edition on or off; answers whether each was on. */
async function setChannelPlugins(page: Page, on: boolean | boolean[]) {
  await page.goto("/admin/editions");
  const card = page.locator("form#edition-default");
  const was: boolean[] = [];
  for (const [i, name] of PLUGINS.entries()) {
    const box = card.getByRole("checkbox", { name, exact: true });
    was.push(await box.isChecked());
    await box.setChecked(Array.isArray(on) ? on[i] : on);
  }
  await card.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/admin\/editions\?saved=default/);
  return was;
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`channel settings with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an admin adds, edits, tests, disables and deletes an email account; its password never comes back", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      const run = `${Date.now().toString(36)}${javaScriptEnabled ? "js" : "nojs"}`;
      const address = `desk-${run}@example.com`;
      const password = `pw-${run}-Secret!`;
      await login(page, "admin", "admin");
      const was = await setChannelPlugins(page, true);
      try {
        await page.goto("/settings");
        await page.getByRole("link", { name: "Channels", exact: true }).click();
        await expect(page.getByRole("heading", { level: 1, name: "Channels" })).toBeVisible();
        if (javaScriptEnabled) await hydrated(page);

        // choose the kind (a GET form: also without JavaScript), then fill its form
        await page.getByLabel("Channel", { exact: true }).selectOption({ label: "Email" });
        await page.getByRole("button", { name: "Show its form" }).click();
        await expect(page.getByRole("heading", { name: "New Email account" })).toBeVisible();
        const add = page.getByRole("form", { name: "New Email account" });
        await add.getByLabel("Name", { exact: true }).fill(`Desk ${run}`);
        await add.getByLabel("Address", { exact: true }).fill("not an address");
        await add.getByLabel("SMTP password").fill(password);
        await add.getByRole("button", { name: "Add account" }).click();
        // refused: the error is tied to the field, the rest is kept, the password is not
        const addressField = page.getByRole("form", { name: "New Email account" }).getByLabel("Address", { exact: true });
        await expect(addressField).toHaveAttribute("aria-invalid", "true");
        await expect(addressField).toHaveAccessibleDescription(/Please check the email address/);
        await expect(page.getByRole("form", { name: "New Email account" }).getByLabel("Name", { exact: true })).toHaveValue(`Desk ${run}`);
        expect(await page.content()).not.toContain(password);

        await addressField.fill(address);
        await page.getByRole("form", { name: "New Email account" }).getByLabel("SMTP password").fill(password);
        await page.getByRole("form", { name: "New Email account" }).getByRole("button", { name: "Add account" }).click();
        await expect(page).toHaveURL(/\/settings\/channels\/\d+\?created=1/);
        await expect(page.getByRole("status").filter({ hasText: "Account added" })).toBeVisible();
        await expect(page.getByRole("heading", { level: 1 })).toContainText(`Desk ${run}`);
        expect(await page.content()).not.toContain(password);
        await expect(page.getByLabel("SMTP password")).toHaveValue("");
        await expect(page.getByLabel("SMTP password")).toHaveAccessibleDescription(/Saved — leave empty to keep/);
        await expect(page.getByLabel("IMAP password")).not.toHaveAccessibleDescription(/Saved/);

        // edited with the password left empty: kept, still never shown
        if (javaScriptEnabled) await hydrated(page);
        await page.getByLabel("Name", { exact: true }).fill(`Desk ${run} renamed`);
        await page.getByLabel("SMTP port").fill("2525");
        await page.getByRole("button", { name: "Save changes" }).click();
        await expect(page.getByRole("status").filter({ hasText: "Settings updated" })).toBeVisible();
        await expect(page.getByRole("heading", { level: 1 })).toContainText(`Desk ${run} renamed`);
        await expect(page.getByLabel("SMTP port")).toHaveValue("2525");
        await expect(page.getByLabel("SMTP password")).toHaveAccessibleDescription(/Saved — leave empty to keep/);
        expect(await page.content()).not.toContain(password);

        // the Test button shows what the adapter answered
        await expect(page.getByTestId("account-state")).toContainText("Not tested yet");
        await page.getByRole("button", { name: "Test connection" }).click();
        await expect(page).toHaveURL(/tested=1/);
        await expect(page.getByTestId("account-state")).toContainText(/Working|Failing/);

        await page.getByRole("button", { name: "Disable" }).click();
        await expect(page.getByTestId("account-enabled")).toHaveText("Disabled");
        await expect(page.getByRole("button", { name: "Enable" })).toBeVisible();

        await page.getByRole("link", { name: "All channel accounts" }).click();
        const row = page.getByRole("row").filter({ hasText: address });
        await expect(row).toContainText(`Desk ${run} renamed`);
        await expect(row).toContainText("Disabled");

        if (javaScriptEnabled) {
          // agents are refused the page
          const context = await browser.newContext();
          await chooseLanguage(context, baseURL!);
          const agent = await context.newPage();
          await login(agent, "agent", "agent");
          const response = await agent.goto("/settings/channels");
          expect(response?.status()).toBe(403);
          await expect(agent.getByRole("heading", { name: "Access denied" })).toBeVisible();
          await expect(agent.getByText(address)).toHaveCount(0);
          await context.close();
        }

        // deleting asks first
        await row.getByRole("link").click();
        await page.getByRole("link", { name: "Delete account…" }).click();
        await expect(page.getByText(/This cannot be undone/)).toBeVisible();
        await page.getByRole("button", { name: `Yes, delete Desk ${run} renamed` }).click();
        await expect(page).toHaveURL(/\/settings\/channels\?deleted=1/);
        await expect(page.getByRole("status").filter({ hasText: "Account deleted." })).toBeVisible();
        await expect(page.getByRole("row").filter({ hasText: address })).toHaveCount(0);
      } finally {
        // leave the default edition as it was for the other tests
        await setChannelPlugins(page, was).catch(() => undefined);
      }
    });
  });
}
