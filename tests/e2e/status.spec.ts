import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

async function openUserMenu(page: Page) {
  const summary = page.locator(".user-menu summary");
  await expect(summary).toContainText("Alya Agent");
  if (!(await page.locator(".user-menu[open]").count())) await summary.click();
  const form = page.locator(".user-menu form.status-form");
  await expect(form).toBeVisible();
  return form;
}

const banner = (page: Page) => page.locator(".banner").filter({ hasText: "Away for" });

/** Leaves the agent online for the other tests, whatever happened. */
async function backOnline(page: Page) {
  if (await banner(page).count()) {
    await banner(page).getByRole("button", { name: "go online" }).click();
    await expect(banner(page)).toHaveCount(0);
  }
}

test.describe("status with JavaScript on", () => {
  test.use({ javaScriptEnabled: true });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("Away needs a reason; with one the orange banner shows until going online", async ({ page }) => {
    await login(page, "agent", "agent");
    await hydrated(page);
    await expect(banner(page)).toHaveCount(0);
    try {
      const form = await openUserMenu(page);
      await form.getByLabel("Status").selectOption({ label: "Away" });
      const apply = form.getByRole("button", { name: "Change status" });
      await expect(apply).toBeDisabled();
      await form.getByLabel("Reason").fill("   ");
      await expect(apply).toBeDisabled();

      await form.getByLabel("Reason").fill("Team meeting");
      await expect(apply).toBeEnabled();
      await apply.click();
      await expect(banner(page)).toHaveText(/Away for 0 minutes/);
      await expect(banner(page)).toHaveClass(/banner-orange/);
      await expect(page.locator(".user-menu .presence")).toHaveClass(/presence-away/);

      await page.reload();
      await expect(banner(page)).toHaveText(/Away for 0 minutes/);
      await banner(page).getByRole("button", { name: "go online" }).click();
      await expect(banner(page)).toHaveCount(0);
      await expect(page.locator(".user-menu .presence")).toHaveClass(/presence-online/);
    } finally {
      await backOnline(page);
    }
  });
});

test.describe("status with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("the server refuses Away without a reason; with one the banner shows until going online", async ({ page }) => {
    await login(page, "agent", "agent");
    await expect(banner(page)).toHaveCount(0);
    try {
      let form = await openUserMenu(page);
      await form.getByLabel("Status").selectOption({ label: "Away" });
      await expect(form.getByRole("button", { name: "Change status" })).toBeEnabled();
      await form.getByRole("button", { name: "Change status" }).click();
      await expect(page.getByText("Please give a reason.")).toBeVisible();
      await expect(banner(page)).toHaveCount(0);

      await page.goto("/");
      form = await openUserMenu(page);
      await form.getByLabel("Status").selectOption({ label: "Away" });
      await form.getByLabel("Reason").fill("Team meeting");
      await form.getByRole("button", { name: "Change status" }).click();
      await expect(banner(page)).toHaveText(/Away for 0 minutes/);
      await expect(banner(page)).toHaveClass(/banner-orange/);

      await banner(page).getByRole("button", { name: "go online" }).click();
      await expect(banner(page)).toHaveCount(0);
    } finally {
      await page.goto("/").catch(() => undefined);
      await backOnline(page).catch(() => undefined);
    }
  });

  test("the go online button of the banner works without JavaScript", async ({ page, browser, baseURL }) => {
    await login(page, "agent", "agent");
    // go Busy from a second browser with JavaScript on
    const context = await browser.newContext({ baseURL, javaScriptEnabled: true });
    try {
      await chooseLanguage(context, baseURL!);
      const other = await context.newPage();
      await login(other, "agent", "agent");
      await hydrated(other);
      const form = await openUserMenu(other);
      await form.getByLabel("Status").selectOption({ label: "Busy" });
      await form.getByLabel("Reason").fill("On a call");
      await form.getByRole("button", { name: "Change status" }).click();
      await expect(other.locator(".banner")).toHaveText(/Busy for 0 minutes/);
    } finally {
      await context.close();
    }
    try {
      await page.reload();
      const busy = page.locator(".banner").filter({ hasText: "Busy for" });
      await expect(busy).toHaveText(/Busy for 0 minutes/);
      await busy.getByRole("button", { name: "go online" }).click();
      await expect(page.locator(".banner")).toHaveCount(0);
      await expect(page.locator(".user-menu .presence")).toHaveClass(/presence-online/);
    } finally {
      if (await page.locator(".banner").count())
        await page
          .locator(".banner")
          .getByRole("button", { name: "go online" })
          .click()
          .catch(() => undefined);
    }
  });
});
