// The public new-ticket page: a visitor opens a ticket; the Support agents see it at once.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login, signedInPages } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`new ticket with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("a visitor opens a ticket; empty fields and a bad address are refused with the input kept", async ({ page, browser, baseURL }) => {
      await page.goto("/new_ticket/demo");
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByText("This cannot be empty.")).toHaveCount(4);

      const subject = `Broken kettle ${javaScriptEnabled ? "js" : "nojs"} ${Date.now()}`;
      await page.getByLabel("Name").fill("<b>Mallory</b>");
      await page.getByLabel("Email").fill("not-an-address");
      await page.getByLabel("Subject").fill(subject);
      await page.getByLabel("Message").fill("It stopped heating <script>alert(1)</script>");
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByText("Please check the email address. not-an-address")).toBeVisible();
      await expect(page.getByLabel("Subject")).toHaveValue(subject);

      await page.getByLabel("Email").fill("mallory@example.com");
      await page.getByLabel("Attachment (optional)").setInputFiles({ name: "receipt.txt", mimeType: "text/plain", buffer: Buffer.from("paid") });
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByRole("heading", { name: "Message sent" })).toBeVisible();
      await expect(page.getByText("Thank you for contacting us!")).toBeVisible();

      // a Support agent finds it, with the visitor's text shown as text
      const context = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(context, baseURL!);
      const agent = await context.newPage();
      await login(agent, "agent", "agent");
      await agent.locator(".ticket-item .title", { hasText: subject }).click();
      await expect(agent.locator(".text-body", { hasText: "It stopped heating <script>alert(1)</script>" })).toBeVisible();
      await expect(agent.getByRole("heading", { level: 1 })).toContainText(subject);
      await expect(agent.getByText("<b>Mallory</b>").first()).toBeVisible();
      await expect(agent.getByRole("link", { name: /receipt\.txt/ })).toBeVisible();
      await context.close();
    });
  });
}

test("an unknown token shows Invalid link", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  const res = await page.goto("/new_ticket/not-a-token");
  expect(res!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Invalid link" })).toBeVisible();
  await expect(page.getByText("This link maybe used or deleted.")).toBeVisible();
});

test("a post without the form's token is refused", async ({ request }) => {
  const res = await request.post("/new_ticket/demo", { multipart: { name: "x", email: "x@example.com", subject: "x", message: "x" } });
  expect(res.status()).toBe(403);
});

test("Support agents with the list open hear about the new ticket at once", async ({ browser, baseURL, page }) => {
  const {
    pages: [agent],
    close,
  } = await signedInPages(browser, baseURL!, [["agent", "agent"]]);
  await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);
  await chooseLanguage(page.context(), baseURL!);
  await page.goto("/new_ticket/demo");
  const subject = `Live arrival ${Date.now()}`;
  await page.getByLabel("Name").fill("Visitor");
  await page.getByLabel("Email").fill("visitor@example.com");
  await page.getByLabel("Subject").fill(subject);
  await page.getByLabel("Message").fill("Hello?");
  await page.getByRole("button", { name: "Submit" }).click();
  await expect(page.getByRole("heading", { name: "Message sent" })).toBeVisible();
  await expect(agent.locator(".notice-toast")).toContainText("New conversation #");
  await expect(agent.locator(".ticket-item .title", { hasText: subject })).toBeVisible();
  await close();
});

test("a sender marked High priority: their next ticket pops up for Support agents", async ({ browser, baseURL, page }) => {
  const {
    pages: [agent],
    close,
  } = await signedInPages(browser, baseURL!, [["agent", "agent"]]);
  await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);
  await chooseLanguage(page.context(), baseURL!);
  const email = `vip${Date.now()}@example.com`;
  const submit = async (subject: string) => {
    await page.goto("/new_ticket/demo");
    await page.getByLabel("Name").fill("Vip");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Subject").fill(subject);
    await page.getByLabel("Message").fill("Urgent");
    await page.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByRole("heading", { name: "Message sent" })).toBeVisible();
  };
  const first = `First from the VIP ${Date.now()}`;
  await submit(first);
  // an ordinary new ticket is a notice, not a popup
  await expect(agent.locator(".notice-toast")).toContainText("New conversation #");
  await expect(agent.getByRole("alertdialog")).toHaveCount(0);
  await agent.locator(".ticket-item .title", { hasText: first }).click();
  await agent.getByRole("combobox", { name: "Priority", exact: true }).selectOption("H");
  await agent.getByRole("button", { name: "Mark priority" }).click();
  await expect(agent.getByText("Marked this sender as High priority.")).toBeVisible();

  const second = `Second from the VIP ${Date.now()}`;
  await submit(second);
  const popup = agent.getByRole("alertdialog");
  await expect(popup).toContainText(`New high-priority ticket #`);
  await expect(popup).toContainText(second);
  await popup.getByRole("link", { name: "Open" }).click();
  await expect(agent.getByRole("heading", { level: 1 })).toContainText(second);
  await expect(agent.getByRole("alertdialog")).toHaveCount(0);
  await close();
});
