import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { expect } from "@playwright/test";

export const PASSWORD = process.env.SEED_PASSWORD || "demo1234";

/** A cookie value as Remix's createCookie writes it (unsigned): base64 of the JSON. */
export const remixCookieValue = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

/** Marks the language as chosen so the first-visit language dialog stays closed. */
export async function chooseLanguage(context: BrowserContext, baseURL: string, language = "en", host = "localhost") {
  const url = new URL(baseURL);
  url.hostname = host;
  await context.addCookies([{ name: "lng", value: remixCookieValue(language), url: url.origin }]);
}

/** The origin of baseURL with another host name, e.g. support.localhost (editions are chosen by host). */
export function originFor(baseURL: string, host: string) {
  const url = new URL(baseURL);
  url.hostname = host;
  return url.origin;
}

/** Signs in through the form at "/" (of `origin` when given, else of baseURL). */
export async function login(page: Page, username: string, type: "admin" | "agent", password = PASSWORD, origin = "") {
  await page.goto(`${origin}/`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("radio", { name: type === "admin" ? "Admin" : "Agent" }).check();
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page.locator(".shell")).toBeVisible();
}

/** Logs out through the user menu (in any language); ends on the login form. */
export async function logout(page: Page) {
  await page.locator(".user-menu summary").click();
  await page.locator('.user-menu form[action="/logout"] button[type="submit"]').click();
  await expect(page.locator(".login-card form")).toBeVisible();
}

/**
 * With JavaScript on, waits until Remix has hydrated the page, so typing into controlled inputs is
 * not overwritten by hydration (window.__remixRouter is set by RemixBrowser).
 */
export async function hydrated(page: Page) {
  await page.waitForFunction(() => {
    const router = (window as unknown as { __remixRouter?: { state: { initialized: boolean } } }).__remixRouter;
    return !!router?.state.initialized;
  });
}

/** A visitor (Nur Aisyah, a new address each time) writes in through the demo workspace's public form. */
export async function visitorWrites(browser: Browser, baseURL: string, javaScriptEnabled: boolean, subject: string, message: string) {
  const visitor = await browser.newContext({ javaScriptEnabled, baseURL });
  await chooseLanguage(visitor, baseURL);
  const form = await visitor.newPage();
  await form.goto("/new_ticket/demo");
  await form.getByLabel("Name").fill("Nur Aisyah");
  await form.getByLabel("Email").fill(`aisyah.${Date.now()}@example.my`);
  await form.getByLabel("Subject").fill(subject);
  await form.getByLabel("Message").fill(message);
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
  await visitor.close();
}

/** One signed-in page per user, each in its own browser context (closed with `close`). */
export async function signedInPages(browser: Browser, baseURL: string, users: [string, "admin" | "agent"][]) {
  const contexts = await Promise.all(users.map(() => browser.newContext()));
  const pages = [];
  for (const [i, [username, type]] of users.entries()) {
    await chooseLanguage(contexts[i], baseURL);
    const page = await contexts[i].newPage();
    await login(page, username, type);
    pages.push(page);
  }
  return { pages, close: () => Promise.all(contexts.map((c) => c.close())) };
}

/** True at a phone's width (the "phone" project), where the shell shows one pane at a time. */
export const isPhone = (page: Page) => (page.viewportSize()?.width ?? 1280) <= 600;

/** Opens the main menu where it sits behind the phone's menu button (a no-op on wider screens). */
export async function openMainMenu(page: Page) {
  if (!isPhone(page)) return;
  await page.locator(".left-nav .menu-button:visible").click();
  await expect(page.locator("#menu-body")).toBeVisible();
}

/** On a phone the list is not beside a conversation: follow its Back to list link first. */
export async function showList(page: Page) {
  if (!isPhone(page) || (await page.locator(".ticket-item").first().isVisible())) return;
  await page.getByRole("link", { name: "Back to list" }).click();
  await expect(page.locator(".ticket-item").first()).toBeVisible();
}

/**
 * The server's SLA test clock (plugins/sla/engine.server.ts slaNow, NODE_ENV=test only): the
 * engine's now runs `ms` ahead of the real clock from now on (0: the real clock again).
 */
export function moveServerClock(ms: number) {
  fs.writeFileSync(path.join(process.env.E2E_DATA_DIR!, "sla-test-clock"), String(ms));
}
