// Leftovers of issue 20 end to end. With JavaScript off an admin deletes a knowledge base article
// from its confirmation page (a real form) and the audit log names it. With JavaScript on a status
// changed on the ticket page moves the card on an open kanban board by itself.
import { test, expect, type Browser } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

async function customerTicket(browser: Browser, baseURL: string) {
  const subject = `Live board ${Date.now()} ${Math.floor(Math.random() * 1e6)}`;
  const visitor = await browser.newContext({ javaScriptEnabled: false });
  await chooseLanguage(visitor, baseURL);
  const form = await visitor.newPage();
  await form.goto("/new_ticket/demo");
  await form.getByLabel("Name").fill("Ida Board");
  await form.getByLabel("Email").fill("ida.board@example.com");
  await form.getByLabel("Subject").fill(subject);
  await form.getByLabel("Message").fill("Where is my parcel?");
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
  await visitor.close();
  return subject;
}

test.describe("knowledge base delete with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("an admin deletes an article after confirming; the list and the audit log say so", async ({ page }) => {
    test.setTimeout(60_000);
    const title = `Retired offer ${Date.now().toString(36)}`;
    await login(page, "admin", "admin");
    await page.goto("/kb/new");
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Text (Markdown)").fill("This offer has ended.");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Saved (version 1).")).toBeVisible();
    const id = new URL(page.url()).pathname.split("/").at(-1)!;
    await page.getByRole("link", { name: "Delete", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/kb/${id}/delete$`));
    await expect(page.getByRole("heading", { level: 1, name: `Delete “${title}”?` })).toBeVisible();
    await expect(page.getByText("The article and its only version will be deleted. This cannot be undone.")).toBeVisible();
    // Cancel leaves it where it was
    await page.getByRole("link", { name: "Cancel", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/kb/${id}$`));
    await page.getByRole("link", { name: "Delete", exact: true }).click();
    await page.getByRole("button", { name: "Delete article" }).click();
    await expect(page).toHaveURL(/\/kb\?deleted=/);
    await expect(page.getByRole("status").getByText(`Deleted “${title}”.`)).toBeVisible();
    expect((await page.goto(`/kb/${id}`))!.status()).toBe(404);
    await page.goto("/settings/audit");
    await expect(page.getByRole("row", { name: new RegExp(`Knowledge base article deleted.*${title}`) }).first()).toBeVisible();
  });
});

test.describe("kanban with JavaScript on", () => {
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("a status changed on the ticket page moves the card on an open board by itself", async ({ page, browser, baseURL }) => {
    test.setTimeout(90_000);
    const subject = await customerTicket(browser, baseURL!);
    await login(page, "admin", "admin");
    await page.goto("/kanban");
    await hydrated(page);
    const card = page.locator('[data-column="s0"] .kanban-card', { hasText: subject });
    await expect(card).toBeVisible();
    const number = await card.getAttribute("data-ticket");

    const other = await browser.newContext();
    await chooseLanguage(other, baseURL!);
    const ticketPage = await other.newPage();
    await login(ticketPage, "admin", "admin");
    await ticketPage.goto(`/ticket/${number}`);
    await hydrated(ticketPage);
    await ticketPage.getByRole("combobox", { name: "Ticket status" }).selectOption("2");
    await ticketPage.getByRole("button", { name: "Change status" }).click();
    await expect(ticketPage.locator(".system-message").last()).toHaveText(/set the status to Resolved/);

    // the board was not touched: it heard of it
    await expect(page.locator('[data-column="s2"] .kanban-card', { hasText: subject })).toBeVisible({ timeout: 15_000 });
    await expect(page.locator('[data-column="s0"] .kanban-card', { hasText: subject })).toHaveCount(0);
    await other.close();
  });
});
