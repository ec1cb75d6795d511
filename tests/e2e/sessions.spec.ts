// Own sessions (issue 15, item 4): the list, signing out one session or all others (that browser
// is signed out at once), 2FA changes that need the password and end other sessions, and the
// admins' idle timeout. With JavaScript on and off. Leaves agent2 and the settings as it found them.
import { test, expect, type Browser, type Page } from "@playwright/test";
import { authenticator } from "otplib";
import { chooseLanguage, login, PASSWORD } from "./helpers";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/** Two browsers signed in as agent2: "here" (Chromium) and "there" (a Firefox user agent). */
async function twoBrowsers(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const hereContext = await browser.newContext({ baseURL, javaScriptEnabled });
  const thereContext = await browser.newContext({ baseURL, javaScriptEnabled, userAgent: FIREFOX });
  await chooseLanguage(hereContext, baseURL);
  await chooseLanguage(thereContext, baseURL);
  const here = await hereContext.newPage();
  const there = await thereContext.newPage();
  await login(here, "agent2", "agent");
  // sessions other tests left behind would make the count below wrong
  await here.goto("/settings/sessions");
  const others = here.getByRole("button", { name: "Sign out all other sessions" });
  if (await others.isVisible()) await others.click();
  await expect(here.getByText("No other sessions are signed in.")).toBeVisible();
  await login(there, "agent2", "agent");
  return { here, there, close: () => Promise.all([hereContext.close(), thereContext.close()]) };
}

const rows = (page: Page) => page.locator(".sessions-table tbody tr");

async function expectTwoSessions(here: Page) {
  await here.goto("/settings/sessions");
  await expect(here.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
  await expect(rows(here)).toHaveCount(2);
  const current = here.locator('tr[data-session="current"]');
  await expect(current).toContainText("(this session)");
  const other = here.locator('tr[data-session="other"]');
  await expect(other).toContainText("Firefox on Linux");
  await expect(other.locator("td").first()).not.toBeEmpty(); // the address
  return other;
}

test.describe("own sessions", () => {
  test.describe("with JavaScript on", () => {
    test.use({ javaScriptEnabled: true });

    test("lists both browsers; signing one out signs that browser out at once", async ({ browser, baseURL }) => {
      const { here, there, close } = await twoBrowsers(browser, baseURL!, true);
      try {
        await expect(there.locator("html")).toHaveAttribute("data-realtime", "connected");
        const other = await expectTwoSessions(here);
        await other.getByRole("button", { name: /Sign out/ }).click();
        await expect(here.getByRole("status")).toHaveText("1 session signed out.");
        await expect(rows(here)).toHaveCount(1);
        // the other browser's open page hears its socket cut and lands on the login form
        await expect(there.locator(".login-card form")).toBeVisible({ timeout: 10_000 });
      } finally {
        await close();
      }
    });

    test("turning two-factor on needs the password and signs the other browser out", async ({ browser, baseURL }) => {
      const { here, there, close } = await twoBrowsers(browser, baseURL!, true);
      let secret = "";
      try {
        await here.goto("/settings");
        secret = (await here.getByTestId("totp-secret").textContent())!.trim();
        await here.getByLabel("Code").fill(authenticator.generate(secret));
        await here.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
        await expect(here.getByText("Password is required.")).toBeVisible();
        await expect(here.getByText("Two-factor sign-in is on.")).toHaveCount(0);

        await here.getByLabel("Current password").fill("not the password");
        await here.getByLabel("Code").fill(authenticator.generate(secret));
        await here.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
        await expect(here.getByText("That password is not right.")).toBeVisible();
        await expect(here.getByLabel("Current password")).toHaveAttribute("aria-invalid", "true");

        await here.getByLabel("Current password").fill(PASSWORD);
        await here.getByLabel("Code").fill(authenticator.generate(secret));
        await here.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
        await expect(here.getByText("Two-factor sign-in is on.")).toBeVisible();
        await there.goto("/");
        await expect(there.locator(".login-card form")).toBeVisible();
        await expect(here.locator(".shell")).toBeVisible();
      } finally {
        // back as it was: two-factor off (the password is asked for that too)
        if (secret) {
          await here.goto("/settings");
          if (await here.getByText("Two-factor sign-in is on.").isVisible()) {
            await here.getByLabel("Current password").fill(PASSWORD);
            await here.getByRole("button", { name: "Turn off two-factor sign-in" }).click();
            await expect(here.getByTestId("totp-secret")).toBeVisible();
          }
        }
        await close();
      }
    });
  });

  test.describe("with JavaScript off", () => {
    test.use({ javaScriptEnabled: false });

    test("lists both browsers and signs out all the others", async ({ browser, baseURL }) => {
      const { here, there, close } = await twoBrowsers(browser, baseURL!, false);
      try {
        await expectTwoSessions(here);
        await here.getByRole("button", { name: "Sign out all other sessions" }).click();
        await expect(here.getByRole("status")).toHaveText("1 session signed out.");
        await expect(rows(here)).toHaveCount(1);
        await there.goto("/settings/sessions");
        await expect(there.locator(".login-card form")).toBeVisible();
        // signing out one's own session from the list is the ordinary log out
        await here
          .locator('tr[data-session="current"]')
          .getByRole("button", { name: /Sign out/ })
          .click();
        await expect(here.locator(".login-card form")).toBeVisible();
      } finally {
        await close();
      }
    });

    test("an admin sets the idle timeout; bad input is explained and kept; agents are refused", async ({ page, browser, baseURL }) => {
      // an admin's and an agent's sign-in and several forms: near 30 s on a busy runner
      test.setTimeout(90_000);
      await chooseLanguage(page.context(), baseURL!);
      await login(page, "admin", "admin");
      await page.goto("/settings/security");
      const hours = page.getByLabel("Sign out after this many hours without activity");
      await expect(hours).toHaveValue("12");
      await hours.fill("0");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("alert")).toHaveText("Enter a whole number of hours from 1 to 720.");
      await expect(hours).toHaveValue("0");
      await expect(hours).toHaveAttribute("aria-invalid", "true");
      await hours.fill("8");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("status")).toHaveText("Settings updated");
      await expect(hours).toHaveValue("8");
      await hours.fill("12");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(hours).toHaveValue("12");

      const agent = await browser.newContext({ baseURL });
      try {
        await chooseLanguage(agent, baseURL!);
        const agentPage = await agent.newPage();
        await login(agentPage, "agent", "agent");
        const res = await agentPage.goto("/settings/security");
        expect(res!.status()).toBe(403);
        const post = await agentPage.request.post("/settings/security", { form: { idle_hours: "1" }, maxRedirects: 0 });
        expect(post.status()).toBe(403);
      } finally {
        await agent.close();
      }
      await page.reload();
      await expect(hours).toHaveValue("12");
    });
  });
});
