// The email channel end to end, with JavaScript on and off: a customer mails the demo mailbox
// through the product's own SMTP listener, the ticket appears for the agent (live with
// JavaScript), the agent answers with an attachment, the test's own SMTP server (the relay) gets
// the answer threaded, and the customer's reply to it lands in the same ticket.
import { test, expect, type Page } from "@playwright/test";
import nodemailer, { type SendMailOptions } from "nodemailer";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { chooseLanguage, login } from "./helpers";
import { E2E_RELAY_PORT, E2E_SMTP_PORT } from "../../playwright.config";

const MAILBOX = "support@omnidesk.localhost";

/** The relay the server sends through (SMTP_RELAY_URL of the test server): keeps what it is given. */
const relayed: ParsedMail[] = [];
let relay: SMTPServer;

test.beforeAll(async () => {
  relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => relayed.push(mail))
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve, reject) => relay.listen(E2E_RELAY_PORT, "127.0.0.1", () => resolve()).once("error", reject));
});
test.afterAll(async () => new Promise<void>((resolve) => relay.close(() => resolve())));

/** Mails the demo mailbox through the product's listener, as a customer's mail server would. */
async function mailIn(mail: SendMailOptions) {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: E2E_SMTP_PORT, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail({ to: MAILBOX, ...mail });
  } finally {
    transport.close();
  }
}

/** Without JavaScript nothing arrives by itself: the agent reloads until it is there. */
async function seeAfterReloads(page: Page, locator: ReturnType<Page["locator"]>) {
  await expect(async () => {
    await page.reload();
    await expect(locator).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`email with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("a customer mails in, the agent answers with a file, the answer goes out threaded and the customer's reply joins the ticket", async ({ page }) => {
      test.setTimeout(90_000);
      const run = `${Date.now().toString(36)}${javaScriptEnabled ? "js" : "nojs"}`;
      const customer = `customer-${run}@example.com`;
      const subject = `Kettle stopped heating ${run}`;
      await login(page, "agent", "agent");
      await page.goto("/ticket");
      if (javaScriptEnabled) await expect(page.locator('html[data-realtime="connected"]')).toHaveCount(1);

      const first = await mailIn({ from: `Casey Customer <${customer}>`, subject, text: `Hello, my kettle stopped heating. ${run}` });
      const item = page.locator(".ticket-item .title", { hasText: subject });
      if (javaScriptEnabled) await expect(item).toBeVisible({ timeout: 15_000 });
      else await seeAfterReloads(page, item);
      await item.click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
      await expect(page.locator(".text-body", { hasText: `my kettle stopped heating. ${run}` })).toBeVisible();

      await page.getByLabel("Reply", { exact: true }).fill(`Please try the reset button. ${run}`);
      await page.getByLabel("Attachments").setInputFiles({ name: "manual.txt", mimeType: "text/plain", buffer: Buffer.from(`reset steps ${run}`) });
      await page.getByRole("button", { name: "Send", exact: true }).click();
      await expect(page.locator(".text-body", { hasText: `Please try the reset button. ${run}` })).toBeVisible();

      // the relay gets the answer, threaded on the customer's mail, with the file
      await expect.poll(() => relayed.find((m) => m.text?.includes(`Please try the reset button. ${run}`)), { timeout: 20_000 }).toBeTruthy();
      const answer = relayed.find((m) => m.text?.includes(`Please try the reset button. ${run}`))!;
      const number = /\[#(\d+)\]/.exec(answer.subject ?? "")?.[1];
      expect(number).toBeTruthy();
      expect(answer.subject).toContain(subject);
      expect(answer.inReplyTo).toBe(first.messageId);
      expect([answer.references].flat()).toContain(first.messageId);
      expect(answer.to && "value" in answer.to ? answer.to.value.map((a) => a.address) : []).toContain(customer);
      expect(answer.attachments.map((a) => [a.filename, a.content.toString()])).toContainEqual(["manual.txt", `reset steps ${run}`]);
      const sent = page.locator(".message", { hasText: `Please try the reset button. ${run}` }).getByText("Sent", { exact: true });
      if (javaScriptEnabled) await expect(sent).toBeVisible();
      else await seeAfterReloads(page, sent);

      // the customer answers from a client that drops In-Reply-To but keeps References and the reply address
      const replyTo = answer.replyTo && "value" in answer.replyTo ? answer.replyTo.value[0].address! : MAILBOX;
      await mailIn({
        from: customer,
        to: replyTo,
        subject: `RE: ${answer.subject}`,
        references: [first.messageId, answer.messageId!],
        text: `That worked, thank you! ${run}\n\nOn Monday OmniDesk wrote:\n> Please try the reset button.`,
      });
      const thanks = page.locator(".text-body", { hasText: `That worked, thank you! ${run}` });
      if (javaScriptEnabled) await expect(thanks).toBeVisible({ timeout: 15_000 });
      else await seeAfterReloads(page, thanks);
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
      expect(page.url()).toContain(`/ticket/${number}`);
    });
  });
}
