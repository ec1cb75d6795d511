// Keyboard only (issue 23): sign in, open a ticket, reply, change status and close, the dialogs
// and menus, the shortcuts; a visitor's live chat from the link to the rating; and label chips
// readable in both themes, pages named by their titles.
// (@axe-core/playwright is not installed yet: the chips' contrast is measured here directly.)
import { test, expect, type Locator, type Page } from "@playwright/test";
import { PASSWORD, chooseLanguage, hydrated, login, remixCookieValue } from "./helpers";

test.use({ javaScriptEnabled: true });

/** Presses `key` (Tab, Shift+Tab) until `target` has focus; fails after `max` presses. Returns the presses it took. */
async function pressUntilFocused(page: Page, target: Locator, max: number, key = "Tab") {
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press(key);
    if (await target.evaluate((el) => el === document.activeElement)) return presses;
  }
  throw new Error(`not focused after ${max} presses of ${key}`);
}

/** The focused element is inside `container`. */
const focusInside = (container: Locator) => container.evaluate((el) => el.contains(document.activeElement));

test.describe("keyboard only", () => {
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("sign in, open a ticket with g t, reply from r, focus back in the reply box, close the ticket to the list", async ({ page }) => {
    await page.goto("/");
    await hydrated(page);
    await pressUntilFocused(page, page.getByLabel("Username"), 3);
    await page.keyboard.type("agent");
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Enter");
    await expect(page.locator(".shell")).toBeVisible();
    await hydrated(page);

    // g t: the ticket list, focus on its first row; Enter opens it
    await page.keyboard.press("g");
    await page.keyboard.press("t");
    await expect(page).toHaveURL(/\/ticket$/);
    const first = page.locator("#list [data-ticket]").first();
    await expect(first).toBeFocused();
    const number = await first.getAttribute("data-ticket");
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/ticket/${number}`));
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`#${number}`);

    // r: the reply box in one press; the key itself is not typed into it
    const reply = page.getByRole("textbox", { name: "Reply", exact: true });
    await page.keyboard.press("r");
    await expect(reply).toBeFocused();
    await expect(reply).toHaveValue("");
    const text = `Keyboard reply ${Date.now()}`;
    await page.keyboard.type(text);
    await pressUntilFocused(page, page.getByRole("button", { name: "Send" }), 5);
    await page.keyboard.press("Enter");
    await expect(page.locator(".text-body", { hasText: text })).toBeVisible();
    // the sent form is replaced by an empty one: focus is in its reply box, not on the page body
    await expect(reply).toHaveValue("");
    await expect(reply).toBeFocused();

    // status: Closed, chosen and sent from the keyboard; focus goes on to the list
    const status = page.getByRole("combobox", { name: "Ticket status" });
    await pressUntilFocused(page, status, 10);
    await status.press("End");
    await expect(status).toHaveValue("3");
    await pressUntilFocused(page, page.getByRole("button", { name: "Change status" }), 2);
    await page.keyboard.press("Enter");
    await expect(page.locator(".system-message").last()).toHaveText("Alya Agent set the status to Closed");
    await expect(page.locator("#list [data-ticket]:focus")).toHaveCount(1);

    // the other tests find this ticket open, as it was
    await page.goto(`/ticket/${number}`);
    await page.getByRole("combobox", { name: "Ticket status" }).selectOption("0");
    await page.getByRole("button", { name: "Change status" }).click();
    await expect(page.locator(".system-message").last()).toHaveText("Alya Agent set the status to Open");
  });

  test("Escape closes the user menu and gives focus back to it; ? lists the shortcuts; / opens search", async ({ page }) => {
    await login(page, "agent", "agent");
    // a fresh page: the first Tab starts at its top
    await page.goto("/ticket");
    await hydrated(page);
    // the skip link leads to the main content; the user menu is just before it
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
    await page.keyboard.press("Enter");
    const summary = page.locator(".user-menu summary");
    await pressUntilFocused(page, summary, 6, "Shift+Tab");
    await page.keyboard.press("Enter");
    const menu = page.locator(".user-menu");
    await expect(menu).toHaveAttribute("open", "");
    await page.keyboard.press("Tab");
    expect(await focusInside(menu)).toBe(true);
    await page.keyboard.press("Escape");
    await expect(menu).not.toHaveAttribute("open", "");
    await expect(summary).toBeFocused();

    // ?: the shortcuts, in a modal dialog that takes focus and gives it back on Escape
    await page.keyboard.press("Shift+Slash");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await expect(help).toBeVisible();
    await expect(help.getByRole("button", { name: "Close" })).toBeFocused();
    await expect(help).toContainText("Go to the ticket list");
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press("Tab");
      expect(await focusInside(help)).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(help).toHaveCount(0);
    await expect(summary).toBeFocused();

    // /: the search dialog with focus in its box; keys typed there are text, not shortcuts
    await page.keyboard.press("/");
    const search = page.getByRole("dialog", { name: "Search" });
    const box = search.getByRole("searchbox");
    await expect(box).toBeFocused();
    await page.keyboard.type("g t r?");
    await expect(box).toHaveValue("g t r?");
    await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toHaveCount(0);
    await page.keyboard.press("Escape");
    await expect(search).toHaveCount(0);
  });

  test("the first-visit language dialog takes focus, keeps it, and Escape closes it for good in the page's language", async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL, locale: "en-US" });
    try {
      const page = await context.newPage();
      await page.goto("/");
      await hydrated(page);
      const dialog = page.getByRole("dialog", { name: /Language/ });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole("button", { name: "English" })).toBeFocused();
      for (let i = 0; i < 7; i++) {
        await page.keyboard.press("Tab");
        expect(await focusInside(dialog)).toBe(true);
      }
      await page.keyboard.press("Escape");
      await expect(dialog).toHaveCount(0);
      await expect(page.locator("html")).toHaveAttribute("lang", "en");
      await page.reload();
      await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
      await expect(page.getByRole("dialog")).toHaveCount(0);
    } finally {
      await context.close();
    }
  });
});

test.describe("keyboard only: the visitor's live chat", () => {
  test("a visitor starts a chat, sends a message and rates the chat with the keyboard alone; the agent receives it", async ({ browser, baseURL }) => {
    // the agent's side, with the mouse as usual: online (a connected page), then accepting the chat
    const agentContext = await browser.newContext({ baseURL });
    const visitorContext = await browser.newContext({ baseURL });
    try {
      await chooseLanguage(agentContext, baseURL!);
      const agent = await agentContext.newPage();
      await login(agent, "agent", "agent");
      await agent.goto("/livechat?list=livechat");
      await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);

      // the visitor: Tab, Enter and typing only
      const visitor = await visitorContext.newPage();
      await visitor.goto("/livechat/demo");
      await hydrated(visitor);
      await pressUntilFocused(visitor, visitor.getByRole("link", { name: "Continue" }), 5);
      await visitor.keyboard.press("Enter");
      const nameBox = visitor.getByLabel("Name");
      await pressUntilFocused(visitor, nameBox, 5);
      const name = `Kim Keys ${Date.now()}`;
      await visitor.keyboard.type(name);
      await visitor.keyboard.press("Tab");
      await expect(visitor.getByLabel("Phone")).toBeFocused();
      await visitor.keyboard.type("+60 12 345 6789");
      await visitor.keyboard.press("Tab");
      await visitor.keyboard.type(`kim${Date.now()}@example.com`);
      await visitor.keyboard.press("Tab");
      await expect(visitor.getByLabel("Message")).toBeFocused();
      await visitor.keyboard.type("I use the keyboard only");
      await visitor.keyboard.press("Tab");
      await expect(visitor.getByRole("button", { name: "Connect" })).toBeFocused();
      await visitor.keyboard.press("Enter");
      await expect(visitor.getByText(/Your queue number is \d+/)).toBeVisible();

      const waiting = agent.locator(".queue li", { hasText: name });
      await waiting.getByRole("button", { name: "Accept" }).click();
      await expect(agent).toHaveURL(/\/livechat\/\d+$/);

      // the chat opens with focus in its message box; Enter sends, and focus stays for the next one
      const box = visitor.getByRole("textbox", { name: "Message" });
      await expect(box).toBeFocused({ timeout: 10_000 });
      await visitor.keyboard.type("Sent without a mouse");
      await visitor.keyboard.press("Enter");
      await expect(agent.locator(".text-body", { hasText: "Sent without a mouse" })).toBeVisible();
      await expect(visitor.locator(".live-messages li.mine", { hasText: "Sent without a mouse" })).toHaveCount(1);
      await expect(box).toHaveValue("");
      await expect(box).toBeFocused();
      // Shift+Enter is a new line, not a send
      await visitor.keyboard.type("Line one");
      await visitor.keyboard.press("Shift+Enter");
      await visitor.keyboard.type("line two");
      await expect(box).toHaveValue("Line one\nline two");
      await pressUntilFocused(visitor, visitor.getByRole("button", { name: "Send" }), 3);
      await visitor.keyboard.press("Enter");
      await expect(agent.locator(".text-body", { hasText: "line two" })).toBeVisible();

      // End chat, back up the page; the rating form is reached and sent from the keyboard too
      await pressUntilFocused(visitor, visitor.getByRole("button", { name: "End chat" }), 6, "Shift+Tab");
      await visitor.keyboard.press("Enter");
      await expect(visitor.getByRole("heading", { name: "Live Chat Ended" })).toBeVisible();
      await pressUntilFocused(visitor, visitor.getByRole("radio", { name: "1 star", exact: true }), 5);
      await visitor.keyboard.press("ArrowLeft"); // wraps round to the last: 5 stars
      await expect(visitor.getByRole("radio", { name: "5 stars" })).toBeChecked();
      await pressUntilFocused(visitor, visitor.getByRole("button", { name: "Submit" }), 3);
      await visitor.keyboard.press("Enter");
      await expect(visitor.getByText("Thank you for your feedback.")).toBeVisible();
      await agent.reload();
      await expect(agent.locator(".livechat-controls .rating")).toHaveText("Rating: 5/5");
    } finally {
      await visitorContext.close();
      await agentContext.close();
    }
  });
});

test.describe("label chips", () => {
  for (const theme of ["light", "dark"] as const) {
    test(`reach 4.5:1 in the ${theme} theme`, async ({ context, baseURL, page }) => {
      await chooseLanguage(context, baseURL!);
      await context.addCookies([{ name: "theme", value: remixCookieValue(theme), url: baseURL! }]);
      await login(page, "admin", "admin");
      await page.goto("/ticket?tab=label");
      const chips = page.locator(".label-chip");
      await expect(chips.first()).toBeVisible();
      // WCAG's ratio of each chip's text colour on the background it is painted on
      const ratios = await chips.evaluateAll((els) => {
        const channels = (css: string) => css.match(/\d+(\.\d+)?/g)!.map(Number);
        /** The first opaque background from the chip outwards. */
        const paintedBehind = (el: Element) => {
          for (let at: Element | null = el; at; at = at.parentElement) {
            const bg = getComputedStyle(at).backgroundColor;
            if (channels(bg)[3] !== 0) return bg;
          }
          return getComputedStyle(document.documentElement).backgroundColor;
        };
        const lum = (rgb: string) => {
          const [r, g, b] = channels(rgb)
            .slice(0, 3)
            .map((c) => {
              const s = Number(c) / 255;
              return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
            });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        return els.map((el) => {
          const style = getComputedStyle(el);
          const [hi, lo] = [lum(style.color), lum(paintedBehind(el))].sort((a, b) => b - a);
          return { text: el.textContent, ratio: (hi + 0.05) / (lo + 0.05) };
        });
      });
      expect(ratios.length).toBeGreaterThan(0);
      for (const r of ratios) expect(r.ratio, `${r.text}`).toBeGreaterThanOrEqual(4.5);
      // each chip wears its label's colour for this theme: VIP is #7b1fa2 (readable on white as it
      // is) and #ce93d8 on the dark theme; Complaint's #f57c00 is darkened on white
      await expect(chips.filter({ hasText: "VIP" }).first()).toHaveCSS("color", theme === "light" ? "rgb(123, 31, 162)" : "rgb(206, 147, 216)");
      if (theme === "light") await expect(chips.filter({ hasText: "Complaint" }).first()).not.toHaveCSS("color", "rgb(245, 124, 0)");
    });
  }

  test("the label editor warns about a colour too light for the light theme", async ({ context, baseURL, page }) => {
    await chooseLanguage(context, baseURL!);
    await login(page, "admin", "admin");
    await page.goto("/settings/labels");
    await hydrated(page);
    const row = page.locator("tr.label-new").first();
    const color = row.locator('input[name="color"]');
    await color.fill("#f57c00");
    await expect(color).toHaveAccessibleDescription(/Too light for the light theme \(2\.7:1, 4\.5:1 needed\): chips show it darker/);
    await color.fill("#7b1fa2");
    await expect(row.locator(".field-warning")).toHaveCount(1); // only the dark colour (#000000) falls short now
    await expect(row.locator('input[name="colorDark"]')).toHaveAccessibleDescription(/Too dark for the dark theme/);
  });
});

test("pages are named by their <title>, the reports included", async ({ context, baseURL, page }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "admin", "admin");
  for (const [path, name] of [
    ["/report/omnichannel", "Omnichannel report"],
    ["/report/ticket/4", "Summary report"],
    ["/dashboard", "Dashboard"],
    ["/settings/labels", "Labels"],
    ["/search", "Search"],
    ["/ticket", "Tickets"],
  ]) {
    await page.goto(path);
    await expect(page, path).toHaveTitle(new RegExp(`^${name} - .*Demo`));
  }
});
