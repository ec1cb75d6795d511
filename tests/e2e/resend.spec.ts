// A reply sent twice is stored once (ADR 045): without JavaScript, the same form posted again (a
// double click, the browser resending it) carries the page's request key; with JavaScript, a send
// whose answer is lost on the way back is shown as failed and sent again with its key by itself.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

async function openSupportTicket(page: Page) {
  await page.goto("/?department=2&status=4");
  const number = await page.locator(".ticket-item").first().getAttribute("data-ticket");
  await page.locator(`.ticket-item[data-ticket="${number}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/ticket/${number}`));
}

test.describe("with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  test("the reply form posted twice makes one message", async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
    await chooseLanguage(context, baseURL!);
    const page = await context.newPage();
    await login(page, "agent", "agent");
    await openSupportTicket(page);
    const text = `sent twice ${Date.now()}`;
    const form = page.locator("form#reply");
    const key = await form.locator('input[name="request_key"]').inputValue();
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    const action = page.url();
    await form.getByLabel("Reply", { exact: true }).fill(text);
    await form.getByRole("button", { name: "Send" }).click();
    await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1);
    // the browser sends the same form again (as a double click or a resend after a lost answer does)
    const again = await page.request.post(action, {
      multipart: { intent: "reply", request_key: key, message: text },
      headers: { Origin: new URL(baseURL!).origin },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(302);
    await page.reload();
    await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1);
    // the next send is a new key: a second message
    expect(await form.locator('input[name="request_key"]').inputValue()).not.toBe(key);
    await context.close();
  });
});

test("with JavaScript, a send whose answer was lost is sent again by itself and shown once", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL });
  await chooseLanguage(context, baseURL!);
  const page = await context.newPage();
  await login(page, "agent", "agent");
  await openSupportTicket(page);
  await expect(page.locator('.conversation[data-live="on"]')).toBeVisible();
  const text = `answer lost ${Date.now()}`;
  // the first post reaches the server and is stored, but its answer never comes back
  let posts = 0;
  const keys: string[] = [];
  await page.route(
    (url) => url.pathname.startsWith("/ticket/") && url.searchParams.has("_data"),
    async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      keys.push(/name="request_key"\r\n\r\n([^\r]+)/.exec(route.request().postData() ?? "")?.[1] ?? "");
      if (++posts > 1) return route.continue();
      await route.fetch();
      await route.abort("connectionreset");
    },
  );
  const form = page.locator("form#reply");
  await form.getByLabel("Reply", { exact: true }).fill(text);
  await form.getByRole("button", { name: "Send" }).click();
  await expect(page.locator('[data-send-state="failed"]')).toContainText("the connection was lost");
  // within 5 s it goes again, with the same key, and the message shows once
  await expect(page.locator('[data-send-state="failed"]')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1);
  expect(posts).toBe(2);
  expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
  expect(keys[1]).toBe(keys[0]);
  await page.reload();
  await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1);
  await context.close();
});
