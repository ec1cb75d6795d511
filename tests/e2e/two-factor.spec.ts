import { test, expect, type Browser, type Page } from "@playwright/test";
import { authenticator } from "otplib";
import { chooseLanguage, login, logout, PASSWORD } from "./helpers";

const STEP_MS = 30_000;
const INVALID = "The code is not valid or has already been used.";

/** The code of the time step `offset` steps away from now. */
const codeAt = (secret: string, offset: number) => authenticator.clone({ epoch: Date.now() + offset * STEP_MS }).generate(secret);

/**
 * A code of the previous step is only accepted while the server is still in the step it was made
 * in; near the end of a step, wait for the next one (at most a couple of seconds, rarely).
 */
async function awayFromStepEnd(page: Page, marginMs = 3_000) {
  const left = STEP_MS - (Date.now() % STEP_MS);
  if (left < marginMs) await page.waitForTimeout(left + 50);
}

/** A six-digit code that is valid for none of the steps the server accepts now. */
function wrongCode(secret: string) {
  const valid = new Set([-1, 0, 1, 2].map((offset) => codeAt(secret, offset)));
  return ["000000", "123456", "654321", "111111"].find((c) => !valid.has(c))!;
}

/** Turns two-factor on in /settings with a code of the previous step and returns the secret. */
async function enableTwoFactor(page: Page) {
  await page.goto("/settings");
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,64}$/);
  // the password is asked too (a borrowed session cannot switch two-factor on)
  await page.getByLabel("Code").fill("123456");
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await expect(page.getByRole("alert")).toHaveText("Password is required.");
  await expect(page.getByTestId("totp-secret")).toHaveText(secret);
  await page.getByLabel("Current password").fill(PASSWORD);
  await awayFromStepEnd(page);
  // the previous step, so the current and the next step are still unused for the logins below
  await page.getByLabel("Code").fill(codeAt(secret, -1));
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  await expect(page.getByText("Two-factor sign-in is on.")).toBeVisible();
  await expect(page.getByRole("status")).toHaveText("Settings updated");
  return secret;
}

async function disableTwoFactor(page: Page) {
  await page.goto("/settings");
  // the password is asked first
  await page.getByLabel("Current password").fill("wrong password");
  await page.getByRole("button", { name: "Turn off two-factor sign-in" }).click();
  await expect(page.getByRole("alert")).toHaveText("That password is not right.");
  await page.getByLabel("Current password").fill(PASSWORD);
  await page.getByRole("button", { name: "Turn off two-factor sign-in" }).click();
  await expect(page.getByRole("status")).toHaveText("Settings updated");
  await expect(page.getByTestId("totp-secret")).toBeVisible();
  await expect(page.getByText("Two-factor sign-in is on.")).toHaveCount(0);
}

/** The password step of the login form, for a user with two-factor on: ends on the code step. */
async function passwordStep(page: Page) {
  await page.goto("/");
  await page.getByLabel("Username").fill("agent2");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("radio", { name: "Agent" }).check();
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
  await expect(page.locator(".shell")).toHaveCount(0);
}

async function enterCode(page: Page, code: string) {
  await page.getByLabel("Code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
}

/** Best effort after a failed run: sign in with a fresh code and turn two-factor off again. */
async function cleanUp(browser: Browser, baseURL: string, secret: string) {
  const context = await browser.newContext({ baseURL });
  try {
    await chooseLanguage(context, baseURL);
    const page = await context.newPage();
    await passwordStep(page);
    for (const offset of [0, 1]) {
      await enterCode(page, codeAt(secret, offset));
      if (await page.locator(".shell").isVisible()) break;
    }
    await disableTwoFactor(page);
  } catch {
    // nothing more to do; the failure of the test itself is what gets reported
  } finally {
    await context.close();
  }
}

test.describe("two-factor sign-in", () => {
  let secretInUse: string | undefined;
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));
  test.afterEach(async ({ browser, baseURL }) => {
    if (secretInUse) await cleanUp(browser, baseURL!, secretInUse);
    secretInUse = undefined;
  });

  test.describe("with JavaScript off", () => {
    test.use({ javaScriptEnabled: false });

    test("asks for the code, refuses wrong and reused codes, accepts a later one", async ({ page }) => {
      await login(page, "agent2", "agent");
      const secret = await enableTwoFactor(page);
      secretInUse = secret;
      await logout(page);

      await passwordStep(page);
      await enterCode(page, wrongCode(secret));
      await expect(page.getByRole("alert")).toHaveText(INVALID);
      await expect(page.getByRole("heading", { name: "Two-factor authentication" })).toBeVisible();
      // the fifth wrong code ends the step: the password is asked again
      for (let i = 2; i <= 4; i++) {
        await enterCode(page, wrongCode(secret));
        await expect(page.getByRole("alert")).toHaveText(INVALID);
      }
      await enterCode(page, wrongCode(secret));
      await expect(page.getByRole("alert")).toHaveText("Too many wrong codes. Please log in again.");
      await expect(page.getByLabel("Username")).toBeVisible();
      await passwordStep(page);

      const code = codeAt(secret, 0);
      await enterCode(page, code);
      await expect(page.locator(".shell")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Welcome, Brian Agent" })).toBeVisible();
      await logout(page);

      // the same code again: already used
      await passwordStep(page);
      await enterCode(page, code);
      await expect(page.getByRole("alert")).toHaveText(INVALID);

      // the code of the next time step is later than the last one used
      await enterCode(page, codeAt(secret, 1));
      await expect(page.locator(".shell")).toBeVisible();

      await disableTwoFactor(page);
      secretInUse = undefined;
      await logout(page);
      await login(page, "agent2", "agent");
    });
  });

  test.describe("with JavaScript on", () => {
    test.use({ javaScriptEnabled: true });

    test("turns on, signs in with a code, turns off", async ({ page }) => {
      await login(page, "agent2", "agent");
      const secret = await enableTwoFactor(page);
      secretInUse = secret;
      await logout(page);

      await passwordStep(page);
      await enterCode(page, wrongCode(secret));
      await expect(page.getByRole("alert")).toHaveText(INVALID);
      await enterCode(page, codeAt(secret, 0));
      await expect(page.locator(".shell")).toBeVisible();

      await disableTwoFactor(page);
      secretInUse = undefined;
    });
  });
});
