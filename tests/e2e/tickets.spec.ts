// The agent's working day on a ticket, with JavaScript on and off.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

const attachment = { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("order 1234, shipped late") };

async function openFirstTicket(page: Page) {
  const item = page.locator(".ticket-item").first();
  const number = await item.getAttribute("data-ticket");
  await item.click();
  await expect(page).toHaveURL(new RegExp(`/ticket/${number}`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`#${number}`);
  return number!;
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`tickets with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("filter, open, reply with a file, change status, label", async ({ page }) => {
      await login(page, "agent", "agent");
      const list = page.getByRole("region", { name: "Conversations" });
      // filter the list: email tickets only
      await list.getByText("Filters", { exact: true }).click();
      await list.getByLabel("Channel").selectOption("EMAIL");
      await list.getByRole("button", { name: "Apply" }).click();
      await expect(page).toHaveURL(/channel=EMAIL/);
      // the address changes as the filtered list arrives: read the list until it has settled
      await expect.poll(async () => [...new Set(await list.locator(".ticket-item .channel").allTextContents())]).toEqual(["Email"]);

      const number = await openFirstTicket(page);
      const marker = `m${Date.now()}${javaScriptEnabled ? "js" : "nojs"}`;
      const text = `Reply ${marker} <b>not bold</b>`;
      await page.getByRole("textbox", { name: "Reply", exact: true }).fill(text);
      await page.getByLabel("Attachments").setInputFiles(attachment);
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page.locator(".text-body", { hasText: text })).toBeVisible();
      await expect(page.locator("b", { hasText: "not bold" })).toHaveCount(0);
      // the newest attachment (an earlier run may have left one in this ticket)
      await expect(page.getByRole("link", { name: /notes\.txt/ }).last()).toBeVisible();
      await expect(page.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue("");

      const file = await page.request.get(
        await page
          .getByRole("link", { name: /notes\.txt/ })
          .last()
          .getAttribute("href")
          .then((h) => h!),
      );
      expect(await file.text()).toBe("order 1234, shipped late");

      await page.getByRole("combobox", { name: "Ticket status" }).selectOption("1");
      await page.getByRole("button", { name: "Change status" }).click();
      await expect(page.locator(".system-message").last()).toHaveText("Alya Agent set the status to Pending");

      await page.getByRole("checkbox", { name: "Urgent" }).check();
      // the box is ticked before the form is sent: wait for the server's answer, else the next
      // page.goto cancels the submission (seen on a busy runner)
      const saved = page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes(`/ticket/${number}`));
      await page.getByRole("button", { name: "Save labels" }).click();
      await saved;
      await expect(page.getByRole("checkbox", { name: "Urgent" })).toBeChecked();
      await page.goto(`/?status=1`);
      await expect(page.locator(`.ticket-item[data-ticket="${number}"] .label-chip`, { hasText: "Urgent" })).toBeVisible();

      await page.goto(`/ticket/${number}`);
      // a choice made before hydration is set back to the page's own value (seen on a busy runner)
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("combobox", { name: "Priority", exact: true }).selectOption("H");
      await page.getByRole("button", { name: "Mark priority" }).click();
      await expect(page.getByText("Marked this sender as High priority.")).toBeVisible();

      // the reply is found by search and leads back to its message
      await page.goto(`/search?q=${marker}`);
      const hit = page.locator('[data-list="message"] a', { hasText: marker });
      await expect(hit).toHaveCount(1);
      await expect(hit).toHaveAttribute("href", new RegExp(`^/ticket/${number}\\?message_id=\\d+`));
      await hit.click();
      await expect(page.locator(".text-body", { hasText: marker })).toBeVisible();
    });

    test("bad input keeps the typed text", async ({ page }) => {
      const typed = `Please see the attached ${javaScriptEnabled ? "js" : "nojs"} ${Date.now()}`;
      await login(page, "admin", "admin");
      await page.goto("/?channel=EMAIL");
      await openFirstTicket(page);
      await page.getByRole("textbox", { name: "Reply", exact: true }).fill(typed);
      await page.getByRole("textbox", { name: "Cc", exact: true }).fill("ok@example.com, not-an-address");
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page.getByRole("alert")).toHaveText("Please check the email address. not-an-address");
      await expect(page.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue(typed);
      const failed = page.locator('[data-send-state="failed"]');
      await expect(failed).toContainText(typed);
      await expect(failed).toContainText("Opps, message failed to send. The error is Please check the email address. not-an-address");

      await page.getByRole("textbox", { name: "Cc", exact: true }).fill("");
      await page.getByLabel("Attachments").setInputFiles({ name: "run.exe", mimeType: "application/x-msdownload", buffer: Buffer.from("MZ") });
      await page.getByRole("button", { name: "Send" }).click();
      await expect(page.getByRole("alert")).toContainText("Opps, file failed to upload. The error is run.exe");
      await expect(page.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue(typed);
      // only the "not sent" copy, no message was written
      await expect(page.locator(".message-list .text-body", { hasText: typed })).toHaveCount(0);

      // Retry sends the kept text once the problem is fixed
      await page.getByLabel("Attachments").setInputFiles([]);
      await page.getByRole("button", { name: "Retry" }).click();
      await expect(page.locator(".message-list .text-body", { hasText: typed })).toHaveCount(1);
      await expect(page.locator('[data-send-state="failed"]')).toHaveCount(0);
    });
  });
}

test("an agent outside the conversation gets Access denied, and 403 on its files", async ({ page, browser, baseURL }) => {
  await chooseLanguage(page.context(), baseURL!);
  // admin writes a file into a Sales ticket (department 1) that agent (Support) does not take part in
  await login(page, "admin", "admin");
  await page.goto("/?department=1&status=4");
  const number = await openFirstTicket(page);
  for (const person of ["Alya Agent"]) {
    const remove = page.getByRole("button", { name: `Remove ${person}` });
    if (await remove.count()) {
      await remove.click();
      await expect(remove).toHaveCount(0);
    }
  }
  await page.getByLabel("Attachments").setInputFiles(attachment);
  await page.getByRole("button", { name: "Send" }).click();
  const href = (await page
    .getByRole("link", { name: /notes\.txt/ })
    .last()
    .getAttribute("href"))!;

  const agentContext = await browser.newContext();
  await chooseLanguage(agentContext, baseURL!);
  const agentPage = await agentContext.newPage();
  await login(agentPage, "agent", "agent");
  const res = await agentPage.goto(`/ticket/${number}`);
  expect(res!.status()).toBe(403);
  await expect(agentPage.getByText("Access denied")).toBeVisible();
  await expect(agentPage.getByText("You cannot read this conversation.")).toBeVisible();
  await expect(agentPage.locator(".message")).toHaveCount(0);
  expect((await agentPage.request.get(href)).status()).toBe(403);
  // a reply posted anyway is refused and writes nothing
  const post = await agentPage.request.post(`/ticket/${number}`, { form: { intent: "reply", message: "sneaky" }, headers: { Origin: baseURL! } });
  expect(post.status()).toBe(403);
  await page.reload();
  await expect(page.locator(".text-body", { hasText: "sneaky" })).toHaveCount(0);
  expect((await agentPage.goto("/ticket/99999999"))!.status()).toBe(404);
  await agentContext.close();
});

for (const javaScriptEnabled of [true, false]) {
  test(`workspace chat between two agents, JavaScript ${javaScriptEnabled ? "on" : "off"}`, async ({ browser, baseURL }) => {
    const context = await browser.newContext({ javaScriptEnabled });
    await chooseLanguage(context, baseURL!);
    const page = await context.newPage();
    await login(page, "agent", "agent");
    await page.goto("/?list=chat");
    await page.getByRole("link", { name: "New chat" }).click();
    await page.getByRole("button", { name: "Start chat" }).click();
    await expect(page.getByRole("alert")).toHaveText("Please give the chat a subject.");
    const subject = `Shift swap ${javaScriptEnabled ? "js" : "nojs"} ${Date.now()}`;
    await page.getByLabel("Subject").fill(subject);
    await page.getByRole("checkbox", { name: "Brian Agent" }).check();
    await page.getByLabel("Message", { exact: true }).fill("Can you take my Friday shift?");
    await page.getByRole("button", { name: "Start chat" }).click();
    await expect(page).toHaveURL(/\/chat\/\d+$/);
    const url = page.url();
    await expect(page.locator(".text-body", { hasText: "Can you take my Friday shift?" })).toBeVisible();

    // agent2 takes part and sees it in the Workspace list; admin is not a participant but may read all
    const other = await browser.newContext({ javaScriptEnabled });
    await chooseLanguage(other, baseURL!);
    const page2 = await other.newPage();
    await login(page2, "agent2", "agent");
    await page2.goto("/?list=chat");
    await expect(page2.locator(".ticket-item .title", { hasText: subject })).toBeVisible();
    await page2.goto(url);
    await page2.getByRole("textbox", { name: "Reply", exact: true }).fill("Sure, no problem.");
    await page2.getByRole("button", { name: "Send" }).click();
    await expect(page2.locator(".text-body", { hasText: "Sure, no problem." })).toBeVisible();
    await page.reload();
    await expect(page.locator(".text-body", { hasText: "Sure, no problem." })).toBeVisible();

    // leaving the chat sends agent2 home with the notice, and the chat is closed to them
    await page2.getByRole("button", { name: "Remove Brian Agent" }).click();
    await expect(page2.getByText("You're no longer a participant in this conversation.")).toBeVisible();
    expect(new URL(page2.url()).pathname).toBe("/");
    expect((await page2.goto(url))!.status()).toBe(403);
    await other.close();
    await context.close();
  });
}
