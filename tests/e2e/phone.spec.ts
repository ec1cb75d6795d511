// An agent on a phone (390x844, and 320 CSS px for reflow), JavaScript on and off: the list is
// the page, a ticket opens full width with a way back that keeps the list's filters, the header
// fits with its search and the menu behind a button, and nothing scrolls sideways.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

test.use({ viewport: { width: 390, height: 844 } });

/** WCAG 1.4.10: the page itself never scrolls sideways (wide data tables scroll in their own box). */
async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement!.scrollWidth,
    clientWidth: document.scrollingElement!.clientWidth,
  }));
  expect(scrollWidth, page.url()).toBeLessThanOrEqual(clientWidth);
}

/** Every control of the top bar is on screen, at least 44 px tall, and none overlaps another. */
async function expectHeaderFits(page: Page) {
  const boxes = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const items = [document.querySelector(".left-nav .menu-button:not([hidden])"), ...document.querySelectorAll(".top-bar > *")];
    return {
      width,
      boxes: items
        .filter((el): el is Element => !!el && el.getClientRects().length > 0)
        .map((el) => {
          const target = el.matches("details") ? el.querySelector("summary")! : el;
          const b = target.getBoundingClientRect();
          return { name: el.className, left: b.left, right: b.right, top: b.top, bottom: b.bottom, height: b.height };
        }),
    };
  });
  expect(boxes.boxes.length).toBeGreaterThanOrEqual(5);
  for (const b of boxes.boxes) {
    expect(b.left, b.name).toBeGreaterThanOrEqual(0);
    expect(b.right, b.name).toBeLessThanOrEqual(boxes.width);
    expect(b.height, b.name).toBeGreaterThanOrEqual(44);
  }
  const sorted = [...boxes.boxes].sort((a, b) => a.left - b.left);
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1], sorted[i]];
    const overlaps = a.right > b.left + 0.5 && a.bottom > b.top + 0.5 && b.bottom > a.top + 0.5;
    expect(overlaps, `${a.name} overlaps ${b.name}`).toBe(false);
  }
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`a phone with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("list, open a ticket, reply, back to the filtered list", async ({ page }) => {
      await login(page, "agent", "agent");
      await page.goto("/ticket");
      const list = page.getByRole("region", { name: "Conversations" });
      await expect(list.locator(".ticket-item").first()).toBeVisible();
      await expect(page.getByText("its empty", { exact: true })).toBeHidden();
      // the list fills the width
      const listBox = (await list.boundingBox())!;
      expect(listBox.x).toBe(0);
      expect(listBox.width).toBe(390);
      await expectHeaderFits(page);
      await expectNoSidewaysScroll(page);

      await list.getByRole("navigation", { name: "Status filter" }).getByRole("link", { name: "Pending" }).click();
      await expect(page).toHaveURL(/\/ticket\?status=1$/);
      // whichever ticket leads the list (other tests' news may reorder or empty a row meanwhile)
      await list.locator(".ticket-item").first().click();
      await expect(page).toHaveURL(/\/ticket\/\d+\?status=1$/);
      const number = new URL(page.url()).pathname.split("/").pop()!;
      await expect(page.getByRole("heading", { level: 1 })).toContainText(`#${number}`);
      // the conversation has the screen: the list is out of sight, the way back is not
      await expect(page.locator(".ticket-item").first()).toBeHidden();
      const back = page.getByRole("link", { name: "Back to list" });
      await expect(back).toBeVisible();
      await expect(back).toHaveAttribute("href", "/ticket?status=1");
      await expectHeaderFits(page);
      await expectNoSidewaysScroll(page);

      const text = `From my phone ${javaScriptEnabled ? "js" : "nojs"} ${Date.now()}`;
      await page.getByRole("textbox", { name: "Reply", exact: true }).fill(text);
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page.locator(".message-list .text-body", { hasText: text })).toBeVisible();
      await expectNoSidewaysScroll(page);

      await page.getByRole("link", { name: "Back to list" }).click();
      await expect(page).toHaveURL(/\/ticket\?status=1$/);
      await expect(list.getByRole("navigation", { name: "Status filter" }).getByRole("link", { name: "Pending" })).toHaveAttribute("aria-current", "page");
      await expect(list.locator(`.ticket-item[data-ticket="${number}"]`)).toBeVisible();
    });

    test("the header's search and the menu button", async ({ page }) => {
      await login(page, "agent", "agent");
      await expectHeaderFits(page);
      const nav = page.getByRole("complementary", { name: "Main navigation" });
      const tickets = nav.getByRole("link", { name: "Tickets", exact: true });
      await expect(tickets).toBeHidden();
      if (javaScriptEnabled) {
        await page.waitForFunction(() => !!(window as unknown as { __remixRouter?: unknown }).__remixRouter);
        const button = nav.getByRole("button", { name: "Menu" });
        await expect(button).toHaveAttribute("aria-expanded", "false");
        // by keyboard: open, Escape closes and gives the focus back
        await button.focus();
        await page.keyboard.press("Enter");
        await expect(button).toHaveAttribute("aria-expanded", "true");
        await expect(tickets).toBeVisible();
        await page.keyboard.press("Escape");
        await expect(tickets).toBeHidden();
        await expect(button).toBeFocused();
        await button.click();
        await tickets.click();
        await expect(page).toHaveURL(/\/ticket$/);
        await expect(tickets).toBeHidden();
        await expect(button).toHaveAttribute("aria-expanded", "false");
      } else {
        await nav.getByRole("link", { name: "Menu" }).click();
        await expect(tickets).toBeVisible();
        await nav.getByRole("link", { name: "Close menu" }).click();
        await expect(tickets).toBeHidden();
        await nav.getByRole("link", { name: "Menu" }).click();
        await tickets.click();
        await expect(page).toHaveURL(/\/ticket$/);
        await expect(tickets).toBeHidden();
      }
      await expectNoSidewaysScroll(page);

      // the search is an icon in the bar: a dialog with JavaScript, the search page without
      const search = page.locator(".top-bar").getByRole("link", { name: "Search" });
      await expect(search).toBeInViewport();
      await search.click();
      const box = javaScriptEnabled ? page.getByRole("dialog", { name: "Search" }).getByRole("searchbox") : page.locator(".search-page").getByRole("searchbox");
      await expect(box).toBeVisible();
      await box.fill("invoice");
      await box.press("Enter");
      await expect(page.locator('[data-list="post"] .search-hit').first()).toBeVisible();
      await expectNoSidewaysScroll(page);
    });

    test("/mobile and /mobile/ticket show the list, without the detail panel", async ({ page }) => {
      await login(page, "agent", "agent");
      for (const path of ["/mobile", "/mobile/ticket"]) {
        await page.goto(path);
        await expect(page.getByRole("region", { name: "Conversations" }).locator(".ticket-item").first()).toBeVisible();
        await expect(page.getByText("its empty", { exact: true })).toHaveCount(0);
        await expectHeaderFits(page);
        await expectNoSidewaysScroll(page);
      }
    });

    test("at 320 CSS px nothing scrolls sideways", async ({ page }) => {
      await page.setViewportSize({ width: 320, height: 640 });
      await login(page, "admin", "admin");
      await page.goto("/ticket");
      const number = await page.locator(".ticket-item").first().getAttribute("data-ticket");
      for (const path of [
        "/",
        "/ticket",
        `/ticket/${number}`,
        "/mobile/ticket",
        "/search?q=invoice",
        "/notifications",
        "/settings",
        "/profile",
        "/?list=chat",
      ]) {
        await page.goto(path);
        await expectNoSidewaysScroll(page);
        await expectHeaderFits(page);
      }
    });
  });
}
