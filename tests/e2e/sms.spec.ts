// SMS end to end, JavaScript on and off: an admin connects a Twilio number (a local stand-in of
// Twilio's Messages API); an agent sends one SMS to two numbers from /sms and sees each number's
// state; the stand-in receives both; a bad number is refused with the typed text kept; a
// customer's answer (signed as Twilio signs) joins that number's conversation.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";

let twilio: TwilioStandin;
let webhookUrl = "";

test.beforeAll(async () => {
  // a number of this run's own: a retried worker adds its account afresh
  twilio = await startTwilioStandin({ numbers: [`+1500555${String(Date.now() % 10_000).padStart(4, "0")}`] });
});
test.afterAll(async () => twilio?.close());

async function connectTwilio(page: Page) {
  await login(page, "admin", "admin");
  await page.goto("/settings/channels");
  await page.getByLabel("Channel", { exact: true }).selectOption({ label: "SMS" });
  await page.getByRole("button", { name: "Show its form" }).click();
  const form = page.getByRole("form", { name: "New SMS account" });
  await form.getByLabel("Name", { exact: true }).fill(`SMS line ${twilio.numbers[0]}`);
  await form.getByLabel("Address", { exact: true }).fill(twilio.numbers[0]);
  await form.getByLabel("Department", { exact: true }).selectOption({ label: "Support" });
  await form.getByLabel("Gateway", { exact: true }).selectOption({ value: "twilio" });
  await form.getByLabel("Twilio Account SID").fill(twilio.accountSid);
  await form.getByLabel("Twilio Auth Token").fill(twilio.authToken);
  await form.getByLabel("Twilio API address").fill(twilio.apiBase);
  await form.getByRole("button", { name: "Add account" }).click();
  await expect(page).toHaveURL(/\/settings\/channels\/\d+\?created=1/);
  webhookUrl = await page.getByLabel("Webhook URL", { exact: true }).inputValue();
  await page.context().clearCookies();
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`SMS with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an agent sends one SMS to two numbers and sees each one's state; the customer's answer joins its conversation", async ({
      page,
      browser,
      baseURL,
    }) => {
      test.setTimeout(90_000);
      if (!webhookUrl) {
        const admin = await browser.newPage({ baseURL });
        await chooseLanguage(admin.context(), baseURL!);
        await connectTwilio(admin);
        await admin.close();
      }
      const tail = String(Date.now() % 1_000_000).padStart(6, "0");
      const numbers = [`+6012${tail}1`, `+6012${tail}2`];
      const text = `Your appointment is confirmed (${javaScriptEnabled ? "js" : "nojs"} ${tail}).`;

      await login(page, "agent", "agent");
      await page.goto("/sms");
      await expect(page.getByRole("heading", { name: "Send an SMS" })).toBeVisible();
      // a number that is not one: refused, what was typed is kept
      const form = page.getByRole("form", { name: "Send an SMS" });
      await form.getByLabel("Send from", { exact: true }).selectOption({ label: `SMS line ${twilio.numbers[0]} (${twilio.numbers[0]})` });
      await form.getByLabel("To", { exact: true }).fill(`${numbers[0]}\n12ab`);
      await form.getByLabel("Message", { exact: true }).fill(text);
      await form.getByRole("button", { name: "Send", exact: true }).click();
      await expect(form.getByText("Please enter each number in international format")).toBeVisible();
      await expect(form.getByLabel("Message", { exact: true })).toHaveValue(text);

      await form.getByLabel("To", { exact: true }).fill(numbers.join("\n"));
      await form.getByRole("button", { name: "Send", exact: true }).click();
      await expect(page.getByRole("heading", { name: "Sent to 2 numbers" })).toBeVisible();
      for (const n of numbers) await expect(page.getByRole("row", { name: new RegExp(n.replace("+", "\\+")) })).toBeVisible();
      // each number's own state, once the gateway took it
      await expect(async () => {
        await page.reload();
        for (const n of numbers) await expect(page.getByRole("row", { name: new RegExp(n.replace("+", "\\+")) })).toContainText("Sent", { timeout: 1000 });
      }).toPass({ timeout: 20_000 });
      expect(twilio.sent.filter((s) => numbers.includes(s.to)).map((s) => s.body)).toEqual([text, text]);

      // the first customer answers; the answer lands in that number's conversation
      const answer = `Thanks, see you then ${tail}`;
      const response = await twilio.post(webhookUrl, twilio.incoming({ from: numbers[0], body: answer }));
      expect(response.status).toBe(200);
      await page
        .getByRole("row", { name: new RegExp(numbers[0].replace("+", "\\+")) })
        .getByRole("link")
        .click();
      await expect(page).toHaveURL(/\/ticket\/\d+$/);
      await expect(async () => {
        await page.reload();
        await expect(page.locator(".message-list")).toContainText(answer, { timeout: 1000 });
      }).toPass({ timeout: 20_000 });
      await expect(page.locator(".message-list")).toContainText(text);
    });
  });
}
