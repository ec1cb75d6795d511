import fs from "node:fs";
import path from "node:path";
import { test, expect } from "@playwright/test";
import { chooseLanguage, login, logout } from "./helpers";

type Messages = Record<"login" | "language" | "settings", Record<string, string>>;
/** The translation file as the app reads it, so the test follows the translators' work. */
const messages = (language: string): Messages => JSON.parse(fs.readFileSync(path.resolve("public/locales", language, "common.json"), "utf8"));

test.describe("language from Accept-Language", () => {
  test.describe("an unsupported language (fr)", () => {
    test.use({ locale: "fr-FR", extraHTTPHeaders: { "Accept-Language": "fr-FR,fr;q=0.9" } });

    test("falls back to English", async ({ page }) => {
      await page.goto("/");
      await expect(page.locator("html")).toHaveAttribute("lang", "en");
      await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
      await expect(page.getByRole("button", { name: "Log In" })).toBeVisible();
    });
  });

  test.describe("Japanese (ja)", () => {
    test.use({ locale: "ja-JP", extraHTTPHeaders: { "Accept-Language": "ja,en;q=0.5" } });

    test("shows the login page in Japanese", async ({ page }) => {
      const ja = messages("ja");
      // the translation file really is Japanese, not an English copy
      expect(ja.login.title).not.toBe(messages("en").login.title);
      await page.goto("/");
      await expect(page.locator("html")).toHaveAttribute("lang", "ja");
      await expect(page.locator(".login-card h2")).toHaveText(ja.login.title);
      await expect(page.locator(".login-card")).toContainText(ja.login.username);
      await expect(page.locator(".login-card")).toContainText(ja.login.password);
      await expect(page.locator(".login-card button[type=submit]")).toHaveText(ja.login.submit);
    });
  });
});

for (const javaScriptEnabled of [true, false]) {
  test.describe(`first-visit language dialog with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled, locale: "en-US" });

    test("appears without a lng cookie; choosing Bahasa Melayu switches to Malay for good", async ({ page, context }) => {
      const ms = messages("ms");
      await page.goto("/");
      const dialog = page.getByRole("dialog");
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole("heading")).toContainText("Language");
      await expect(dialog.getByRole("heading")).toContainText("BETA");

      await dialog.getByRole("button", { name: "Bahasa Melayu" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "ms");
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect(page.locator(".login-card h2")).toHaveText(ms.login.title);
      expect((await context.cookies()).find((c) => c.name === "lng")).toBeTruthy();

      await page.reload();
      await expect(page.locator("html")).toHaveAttribute("lang", "ms");
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await expect(page.locator(".login-card button[type=submit]")).toHaveText(ms.login.submit);
    });
  });
}

test.describe("saved language of a user", () => {
  // the preference is saved on the agent's account: put it back to English for the other tests
  test.afterEach(async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, locale: "en-US" });
    try {
      await chooseLanguage(context, baseURL!);
      const page = await context.newPage();
      await login(page, "agent", "agent");
      await page.goto("/settings");
      await page.locator(".settings").getByRole("button", { name: "English" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "en");
    } finally {
      await context.close();
    }
  });

  test("beats the lng cookie in a fresh browser after logging in again", async ({ page, browser, baseURL }) => {
    await chooseLanguage(page.context(), baseURL!);
    await login(page, "agent", "agent");
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    await page.goto("/settings");
    await page.locator(".settings").getByRole("button", { name: "Bahasa Melayu" }).click();
    await expect(page.locator("html")).toHaveAttribute("lang", "ms");
    await expect(page.locator(".settings h1")).toHaveText(messages("ms").settings.title);
    // menu labels come from the plugin manifests
    await expect(page.locator(".left-nav").getByRole("link", { name: "Tiket", exact: true })).toBeVisible();
    await logout(page);

    const fresh = await browser.newContext({ baseURL, locale: "en-US" });
    try {
      await chooseLanguage(fresh, baseURL!, "en");
      const other = await fresh.newPage();
      await other.goto("/");
      await expect(other.locator("html")).toHaveAttribute("lang", "en");
      await login(other, "agent", "agent");
      await expect(other.locator("html")).toHaveAttribute("lang", "ms");
      await expect(other.locator(".left-nav").getByRole("link", { name: "Tiket", exact: true })).toBeVisible();
      await other.goto("/settings");
      await expect(other.locator(".settings h1")).toHaveText(messages("ms").settings.title);
    } finally {
      await fresh.close();
    }
  });
});

test.describe("translations file", () => {
  test.use({ locale: "ja-JP", extraHTTPHeaders: { "Accept-Language": "ja,en;q=0.5" } });

  test("the page names its language's texts as a file cached for a year, not inside the page", async ({ page, request }) => {
    const ja = messages("ja");
    const html = await (await request.get("/")).text();
    // the texts are not serialised into the document's data (only the rendered ones are in the HTML)
    expect(html).not.toContain(ja.settings.title);
    const hrefs = [...html.matchAll(/<link rel="preload" href="(\/locales\/[^"]+)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual([expect.stringMatching(/^\/locales\/ja\.[0-9a-f]{12}\.json$/), expect.stringMatching(/^\/locales\/en\.[0-9a-f]{12}\.json$/)]);
    const file = await request.get(hrefs[0]);
    expect(file.headers()["cache-control"]).toContain("immutable");
    expect(file.headers()["cache-control"]).toContain("max-age=31536000");
    expect((await file.json()).login.title).toBe(ja.login.title);
    // a name from before a deploy still gets today's texts, but not for a year
    const stale = await request.get("/locales/ja.000000000000.json");
    expect(stale.headers()["cache-control"]).toBe("no-cache");
    expect((await stale.json()).login.title).toBe(ja.login.title);

    // the browser hydrates with the same texts the server rendered
    await page.goto("/");
    await expect(page.locator(".login-card h2")).toHaveText(ja.login.title);
    await page.locator(".login-card input").first().focus();
    await expect(page.locator(".login-card button[type=submit]")).toHaveText(ja.login.submit);
  });
});
