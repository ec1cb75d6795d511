import { test, expect } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`theme and rich links with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("the theme buttons set data-theme, which persists across reload and navigation", async ({ page }) => {
      await login(page, "agent", "agent");
      const html = page.locator("html");
      await expect(html).toHaveAttribute("data-theme", "auto");
      await page.goto("/settings");
      await expect(page.getByRole("button", { name: "Automatic" })).toHaveAttribute("aria-pressed", "true");

      for (const [label, value] of [
        ["Dark", "dark"],
        ["Light", "light"],
        ["Automatic", "auto"],
        ["Dark", "dark"],
      ] as const) {
        await page.getByRole("button", { name: label, exact: true }).click();
        await expect(html).toHaveAttribute("data-theme", value);
        await expect(page.getByRole("button", { name: label, exact: true })).toHaveAttribute("aria-pressed", "true");
      }

      await page.reload();
      await expect(html).toHaveAttribute("data-theme", "dark");
      await page.goto("/");
      await expect(html).toHaveAttribute("data-theme", "dark");
      await page.goto("/about");
      await expect(html).toHaveAttribute("data-theme", "dark");
    });

    test("the rich-links toggle flips its text", async ({ page }) => {
      await login(page, "agent", "agent");
      await page.goto("/settings");
      await expect(page.getByText("Rich links: On")).toBeVisible();
      await page.getByRole("button", { name: "Turn off", exact: true }).click();
      await expect(page.getByText("Rich links: Off")).toBeVisible();
      await expect(page.getByRole("button", { name: "Turn on", exact: true })).toBeVisible();
      await page.reload();
      await expect(page.getByText("Rich links: Off")).toBeVisible();
      await page.getByRole("button", { name: "Turn on", exact: true }).click();
      await expect(page.getByText("Rich links: On")).toBeVisible();
      await expect(page.getByRole("button", { name: "Turn off", exact: true })).toBeVisible();
    });
  });
}

test("the theme cookie lasts about a year", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "agent", "agent");
  await page.goto("/settings");
  await page.getByRole("button", { name: "Light", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  const theme = (await context.cookies()).find((c) => c.name === "theme");
  expect(theme).toBeTruthy();
  const yearAhead = Date.now() / 1000 + 365 * 24 * 60 * 60;
  expect(Math.abs(theme!.expires - yearAhead)).toBeLessThan(2 * 24 * 60 * 60);
});
