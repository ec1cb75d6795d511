// Global search: the /search page with JavaScript on and off, the top-bar dialog (JS on), and the
// JSON twin GET /api/search/data. That agents only get hits they may read is proven on the
// database in tests/unit/search.test.ts (the browser cannot see departments).
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login, PASSWORD } from "./helpers";

// Seed ticket n has id n - 100000 and channel CHANNELS[id % 18]: id 3 is EMAIL, a ticket.
const EMAIL_TICKET = 100003;

const pageForm = (page: Page) => page.locator(".search-page");
const conversations = (scope: ReturnType<Page["locator"]>) => scope.locator('[data-list="post"]');
const messages = (scope: ReturnType<Page["locator"]>) => scope.locator('[data-list="message"]');

async function searchOnPage(page: Page, q: string) {
  const box = pageForm(page).getByRole("searchbox", { name: "Search conversations and messages" });
  // a revalidation (a realtime event of another spec's data) can re-render the box between typing and Enter: type again
  await expect(async () => {
    await box.fill(q);
    await box.press("Enter");
    await expect(page).toHaveURL((url) => url.pathname === "/search" && url.searchParams.get("q") === q, { timeout: 2000 });
  }).toPass({ timeout: 15_000 });
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`search with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL, page }) => {
      await chooseLanguage(context, baseURL!);
      await login(page, "admin", "admin");
      await page.goto("/search");
      if (javaScriptEnabled) await hydrated(page);
    });

    test("finds a word of the seeded messages and links to the conversations", async ({ page }) => {
      await searchOnPage(page, "invoice");
      const results = pageForm(page);
      await expect(conversations(results).locator('a[href^="/ticket/"]').first()).toBeVisible();
      await expect(conversations(results).locator(".search-hit")).toHaveCount(6);
      await expect(messages(results).locator(".search-hit")).toHaveCount(6);
      const first = messages(results).locator(".search-hit").first();
      await expect(first).toHaveAttribute("href", /^\/(ticket|chat|call|livechat)\/\d+\?message_id=\d+$/);
      await expect(first.locator("mark").first()).toHaveText(/invoice/i);
      // separate pagers: the message pager moves the message list only
      const firstIds = await messages(results)
        .locator(".search-hit")
        .evaluateAll((as) => as.map((a) => a.getAttribute("data-message")));
      await messages(results).getByRole("link", { name: "Next" }).click();
      await expect(page).toHaveURL(/search_message_index=1/);
      await expect(messages(results).getByText("Page 2")).toBeVisible();
      await expect(conversations(results).getByText("Page 1")).toBeVisible();
      const secondIds = await messages(results)
        .locator(".search-hit")
        .evaluateAll((as) => as.map((a) => a.getAttribute("data-message")));
      expect(secondIds.some((id) => firstIds.includes(id))).toBe(false);
    });

    test("a number: token finds that ticket", async ({ page }) => {
      await searchOnPage(page, `number:${EMAIL_TICKET}`);
      const hits = conversations(pageForm(page)).locator(".search-hit");
      await expect(hits).toHaveCount(1);
      await expect(hits.first()).toHaveAttribute("href", `/ticket/${EMAIL_TICKET}`);
      await expect(conversations(pageForm(page)).locator(".badge")).toHaveText("1");
    });

    test("SQL-ish text is just text", async ({ page }) => {
      await searchOnPage(page, "'; drop table tickets; --");
      await expect(page.getByRole("status").filter({ hasText: "Nothing found for" })).toBeVisible();
      await expect(page.getByText("Something went wrong")).toHaveCount(0);
      await searchOnPage(page, "100%_");
      await expect(page.getByText("Nothing found for “100%_”.")).toBeVisible();
      // the tickets are all still there
      await searchOnPage(page, `number:${EMAIL_TICKET}`);
      await expect(conversations(pageForm(page)).locator(".search-hit")).toHaveCount(1);
    });

    test("label: suggests other labels as searches", async ({ page }) => {
      await searchOnPage(page, "label:ur");
      const suggestions = page.getByRole("navigation", { name: "Labels" });
      await suggestions.getByRole("link", { name: "Urgent" }).click();
      await expect(page).toHaveURL(/q=label%3AUrgent/);
      await expect(pageForm(page).getByRole("searchbox")).toHaveValue("label:Urgent");
      await expect(page.getByRole("navigation", { name: "Labels" })).toHaveCount(0);
      await expect(conversations(pageForm(page)).locator(".search-hit").first()).toBeVisible();
    });

    test("an empty query only shows the form", async ({ page }) => {
      const submit = pageForm(page).getByRole("button", { name: "Search", exact: true });
      if (javaScriptEnabled) {
        await expect(submit).toBeDisabled();
        await pageForm(page).getByRole("searchbox").fill("   ");
        await expect(submit).toBeDisabled();
        await pageForm(page).getByRole("searchbox").fill("x");
        await expect(submit).toBeEnabled();
      } else {
        await submit.click();
        await expect(page).toHaveURL(/\/search\?q=$/);
      }
      await expect(pageForm(page).getByRole("searchbox")).toBeVisible();
      await expect(page.locator(".search-results")).toHaveCount(0);
    });
  });
}

test.describe("search dialog", () => {
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("opens from the top bar, searches in place and closes with Escape", async ({ page }) => {
    await login(page, "admin", "admin");
    await hydrated(page);
    const launcher = page.locator(".top-bar").getByRole("link", { name: "Search" });
    await expect(launcher).toHaveAttribute("aria-haspopup", "dialog");
    await launcher.click();
    const dialog = page.getByRole("dialog", { name: "Search" });
    await expect(dialog).toBeVisible();
    const box = dialog.getByRole("searchbox");
    await expect(box).toBeFocused();
    await expect(dialog.getByRole("button", { name: "Search", exact: true })).toBeDisabled();
    await box.fill("invoice");
    await box.press("Enter");
    await expect(conversations(dialog).locator('a[href^="/ticket/"]').first()).toBeVisible();
    await messages(dialog).getByRole("link", { name: "Next" }).click();
    await expect(messages(dialog).getByText("Page 2")).toBeVisible();
    await expect(page).toHaveURL(/\/$/); // the dialog loads in place
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(launcher).toBeFocused();

    // a hit navigates to its conversation and closes the dialog
    await launcher.click();
    await dialog.getByRole("searchbox").fill(`number:${EMAIL_TICKET}`);
    await dialog.getByRole("button", { name: "Search", exact: true }).click();
    await dialog.locator(`a[href="/ticket/${EMAIL_TICKET}"]`).click();
    await expect(page).toHaveURL(new RegExp(`/ticket/${EMAIL_TICKET}$`));
    await expect(dialog).toHaveCount(0);
  });

  test.describe("without JavaScript", () => {
    test.use({ javaScriptEnabled: false });
    test("the top-bar Search is a link to the search page", async ({ page }) => {
      await login(page, "admin", "admin");
      await page.locator(".top-bar").getByRole("link", { name: "Search" }).click();
      await expect(page).toHaveURL(/\/search$/);
      await expect(pageForm(page).getByRole("searchbox")).toBeVisible();
    });
  });
});

test("an agent searches too; the JSON twin needs a token and shows agents fewer conversations", async ({ page, context, baseURL, request }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "agent", "agent");
  await page.goto("/search?q=invoice");
  await expect(conversations(pageForm(page)).locator(".search-hit").first()).toBeVisible();

  expect((await request.get("/api/search/data?entity=invoice")).status()).toBe(403);
  expect((await request.get("/api/search/data?entity=invoice&_token=nope")).status()).toBe(403);

  const token = async (client: string, type: string) =>
    (await (await request.post("/api/auth2", { data: { client, password: PASSWORD, type } })).json()).token as string;
  const [adminToken, agentToken] = [await token("admin", "admin"), await token("agent", "agent")];
  const ask = async (t: string, query: string) => {
    const res = await request.get(`/api/search/data?_token=${t}&${query}`);
    expect(res.status()).toBe(200);
    return res.json();
  };
  const all = await ask(adminToken, "entity=invoice");
  const mine = await ask(agentToken, "entity=invoice");
  expect(all).toMatchObject({
    result: "success",
    post: expect.any(Array),
    message: expect.any(Array),
    postCount: expect.any(Number),
    messageCount: expect.any(Number),
  });
  expect(all.post).toHaveLength(6);
  expect(all.post[0]).toEqual(
    expect.objectContaining({
      id: expect.any(Number),
      channel: expect.any(String),
      ticket_number: expect.any(Number),
      title: expect.any(String),
      message: expect.any(String),
    }),
  );
  expect(all.message[0]).toEqual(
    expect.objectContaining({ id: expect.any(Number), channel: expect.any(String), ticket_number: expect.any(Number), message: expect.any(String) }),
  );
  expect(mine.postCount).toBeGreaterThan(0);
  expect(mine.postCount).toBeLessThan(all.postCount);
  expect(mine.messageCount).toBeLessThan(all.messageCount);

  const second = await ask(adminToken, "entity=invoice&search_index=1&search_message_index=2");
  expect(second.post.map((p: { id: number }) => p.id)).not.toContain(all.post[0].id);
  const byTicket = await ask(adminToken, `ticket=${EMAIL_TICKET}`);
  expect(byTicket.post.map((p: { ticket_number: number }) => p.ticket_number)).toEqual([EMAIL_TICKET]);
  const sqlish = await ask(adminToken, `entity=${encodeURIComponent("'; drop table tickets; --")}&label=${encodeURIComponent("%")}`);
  expect(sqlish).toMatchObject({ post: [], message: [], postCount: 0, messageCount: 0 });
});
