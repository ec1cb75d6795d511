import { test, expect } from "@playwright/test";
import { chooseLanguage, login, PASSWORD } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`login with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("shows each error text and keeps the username", async ({ page }) => {
      await page.goto("/");
      await page.getByRole("button", { name: "Log In" }).click();
      await expect(page.getByText("Username is required.")).toBeVisible();
      await expect(page.getByText("Password is required.")).toBeVisible();

      await page.getByLabel("Username").fill("admin");
      await page.getByRole("button", { name: "Log In" }).click();
      await expect(page.getByText("Password is required.")).toBeVisible();
      await expect(page.getByText("Username is required.")).toHaveCount(0);
      await expect(page.getByLabel("Username")).toHaveValue("admin");

      await page.getByLabel("Password").fill("wrong-password");
      await page.getByRole("radio", { name: "Admin" }).check();
      await page.getByRole("button", { name: "Log In" }).click();
      await expect(page.getByRole("alert")).toHaveText("Invalid username or password.");
      await expect(page.getByLabel("Username")).toHaveValue("admin");
      await expect(page.getByRole("radio", { name: "Admin" })).toBeChecked();
    });

    test("the wrong user type is refused", async ({ page }) => {
      await page.goto("/");
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("radio", { name: "Agent" }).check();
      await page.getByRole("button", { name: "Log In" }).click();
      await expect(page.getByRole("alert")).toHaveText("Invalid username or password.");
    });

    test("signs in, shows the shell with the tab title, and logs out", async ({ page, context }) => {
      await login(page, "admin", "admin");
      // "(unread) admin name - product title"
      await expect(page).toHaveTitle(/^\(\d+\) Demo Admin - OmniDesk$/);
      await expect(page.getByRole("complementary", { name: "Main navigation" }).getByRole("link", { name: "Tickets", exact: true })).toBeVisible();
      await page.locator(".user-menu summary").click();
      await page.getByRole("button", { name: "Log Out" }).click();
      await expect(page.getByRole("button", { name: "Log In" })).toBeVisible();
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === "sid")).toBeUndefined();
      await page.goto("/ticket");
      await expect(page).toHaveURL(/\/$/);
    });
  });
}
