// Shared by the specs that drive softphones against the real call server (calls, supervision):
// pages allowed the (fake) microphone, and new agents invited and signed in for a call.
import { expect, type Browser, type Page } from "@playwright/test";
import { chooseLanguage } from "./helpers";

const NEW_PASSWORD = "Velvet-Kettle-Orbit-42";

/** Fake microphones and cameras for every browser of the spec (use in `test.use`). */
export const FAKE_MEDIA_LAUNCH = {
  executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
};

export async function newPage(browser: Browser, baseURL: string, js: boolean) {
  const context = await browser.newContext({ javaScriptEnabled: js, permissions: ["microphone"] });
  await chooseLanguage(context, baseURL);
  return context.newPage();
}

/** The name a new call agent is given (its SIP account's choice reads "{name} ({username})"). */
export const callerName = (username: string) => `Caller ${username}`;

/**
 * Six digits of this run of a spec file (time and chance) for its agents' extensions: the call
 * specs share the server's database, and extensions made of a base-36 stamp's digits (letters
 * read as 1) once collided about one time in ten.
 */
export const runDigits = () => `${String(Date.now()).slice(-3)}${String(Math.floor(Math.random() * 1000)).padStart(3, "0")}`;

/** Invites an agent and accepts the invite in a page of its own (signed in afterwards). */
export async function newAgent(admin: Page, browser: Browser, baseURL: string, username: string) {
  await admin.goto("/settings/users");
  const form = admin.getByRole("form", { name: "Invite by email" });
  await form.getByLabel("Email", { exact: true }).fill(`${username}@example.com`);
  await form.getByLabel("Name", { exact: true }).fill(callerName(username));
  await form.getByLabel("Username", { exact: true }).fill(username);
  await form.getByLabel("Department", { exact: true }).selectOption({ label: "Support" });
  await form.getByRole("button", { name: "Send invite" }).click();
  const link = await admin.getByTestId("invite-link").inputValue();
  const page = await newPage(browser, baseURL, true);
  await page.goto(link);
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByLabel("Repeat the password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByRole("button", { name: "Log In" })).toHaveCount(0);
  return page;
}
