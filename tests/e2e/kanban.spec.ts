// The kanban board end to end: a customer's new ticket is on the admin's board under Open; with
// JavaScript off the card moves by its own "Move to" form; with it on the card is dragged (mouse,
// in steps) onto Pending, and a second open board shows the move by itself (receiveKanbanNotification).
// The board passes axe's WCAG 2.1 AA rules.
import { test, expect, type Browser, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, hydrated, login } from "./helpers";

/** A customer writes in through the public form; the subject is unique to this run. */
async function customerTicket(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const subject = `Kanban card ${javaScriptEnabled ? "js" : "nojs"} ${Date.now()} ${Math.floor(Math.random() * 1e6)}`;
  const visitor = await browser.newContext({ javaScriptEnabled });
  await chooseLanguage(visitor, baseURL);
  const form = await visitor.newPage();
  await form.goto("/new_ticket/demo");
  await form.getByLabel("Name").fill("Nur Kanban");
  await form.getByLabel("Email").fill("nur.kanban@example.com");
  await form.getByLabel("Subject").fill(subject);
  await form.getByLabel("Message").fill("Please move me along.");
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
  await visitor.close();
  return subject;
}

const cardIn = (page: Page, column: string, subject: string) => page.locator(`[data-column="${column}"] .kanban-card`, { hasText: subject });

test.describe("kanban with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("an admin moves a card to Pending with its Move form", async ({ page, browser, baseURL }) => {
    test.setTimeout(60_000);
    const subject = await customerTicket(browser, baseURL!, false);
    await login(page, "admin", "admin");
    await page.goto("/kanban");
    await expect(page.getByRole("heading", { level: 1, name: "Kanban board" })).toBeVisible();
    const card = cardIn(page, "s0", subject);
    await expect(card).toBeVisible();
    const number = await card.getAttribute("data-ticket");
    await card.getByLabel(`Move ticket #${number} to`).selectOption({ label: "Pending" });
    await card.getByRole("button", { name: "Move" }).click();
    await expect(page.getByText(`Ticket #${number} moved.`)).toBeVisible();
    await expect(cardIn(page, "s1", subject)).toBeVisible();
    await expect(cardIn(page, "s0", subject)).toHaveCount(0);
    // the conversation says it, as any status change does
    await page.goto(`/ticket/${number}`);
    await expect(page.getByText(/set the status to Pending$/)).toHaveCount(1);
  });

  test("an admin adds a custom column and moves a card into it; the conversation says it", async ({ page, browser, baseURL }) => {
    test.setTimeout(60_000);
    const subject = await customerTicket(browser, baseURL!, false);
    const column = `Waiting on parts ${Date.now() % 1_000_000}`;
    await login(page, "admin", "admin");
    await page.goto("/kanban");
    await page.getByRole("link", { name: "Edit the columns" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Board columns" })).toBeVisible();
    // refused: a name that reads as a translation key; what was typed stays
    await page.getByLabel("Name", { exact: true }).fill("t:plugin_kanban.title");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("A column name cannot begin with “t:”.")).toBeVisible();
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("t:plugin_kanban.title");
    await page.getByLabel("Name", { exact: true }).fill(column);
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByLabel(`Name of column ${column}`)).toHaveValue(column);

    await page.goto("/kanban?view=columns");
    const card = cardIn(page, "none", subject);
    await expect(card).toBeVisible();
    const number = await card.getAttribute("data-ticket");
    await card.getByLabel(`Move ticket #${number} to`).selectOption({ label: column });
    await card.getByRole("button", { name: "Move" }).click();
    await expect(page.getByText(`Ticket #${number} moved.`)).toBeVisible();
    await expect(page).toHaveURL(/view=columns/);
    const key = await page.locator(".kanban-column", { has: page.getByRole("heading", { name: new RegExp(column) }) }).getAttribute("data-column");
    await expect(cardIn(page, key!, subject)).toBeVisible();
    await page.goto(`/ticket/${number}`);
    await expect(page.getByText(`moved this ticket to the board column ${column}`)).toBeVisible();
  });

  test("an agent is sent home from /kanban", async ({ page }) => {
    await login(page, "agent", "agent");
    await page.goto("/kanban");
    await expect(page).not.toHaveURL(/\/kanban/);
  });
});

test.describe("kanban with JavaScript on", () => {
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("a card dragged to Pending moves, and a second open board shows it by itself", async ({ page, browser, baseURL }) => {
    test.setTimeout(90_000);
    const subject = await customerTicket(browser, baseURL!, true);
    // the second board: another admin session, open before the move
    const other = await browser.newContext();
    await chooseLanguage(other, baseURL!);
    const second = await other.newPage();
    await login(second, "admin", "admin");
    await second.goto("/kanban");
    await hydrated(second);
    await expect(cardIn(second, "s0", subject)).toBeVisible();

    await login(page, "admin", "admin");
    await page.goto("/kanban");
    await hydrated(page);
    const card = cardIn(page, "s0", subject);
    await expect(card).toBeVisible();
    // the socket is up (the second board must be listening before the move)
    await page.waitForTimeout(500);
    const handle = card.locator(".kanban-handle");
    const from = (await handle.boundingBox())!;
    const target = (await page.locator('[data-column="s1"] h2').boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 10, from.y + from.height / 2 + 5, { steps: 5 });
    await page.mouse.move(target.x + target.width / 2, target.y + target.height + 30, { steps: 20 });
    await page.mouse.up();
    await expect(cardIn(page, "s1", subject)).toBeVisible();
    await expect(cardIn(page, "s0", subject)).toHaveCount(0);
    // the second board follows without a reload of its own
    await expect(cardIn(second, "s1", subject)).toBeVisible({ timeout: 15_000 });
    await expect(cardIn(second, "s0", subject)).toHaveCount(0);
    // and it stays there after a reload (the server has it)
    await page.reload();
    await expect(cardIn(page, "s1", subject)).toBeVisible();
    await other.close();
  });

  test("the board passes axe (WCAG 2.1 AA)", async ({ page }) => {
    await login(page, "admin", "admin");
    await page.goto("/kanban");
    await hydrated(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.goto("/kanban/columns");
    expect(await axeViolations(page)).toEqual([]);
  });
});
