// Campaigns end to end, JavaScript on and off: an admin connects a Twilio number (a local stand-in
// of Twilio's Messages API); two customers text it (the contacts plugin makes each a contact); the
// admin makes an SMS campaign for those two, is refused without a message (what was typed kept),
// starts it, and the list shows it done with 2 sent; the stand-in got each message once, filled in.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";

let twilio: TwilioStandin;
let webhookUrl = "";
const line = () => `Campaign line ${twilio.numbers[0]}`;

test.beforeAll(async () => {
  twilio = await startTwilioStandin({ numbers: [`+1500555${String((Date.now() + 5000) % 10_000).padStart(4, "0")}`] });
});
test.afterAll(async () => twilio?.close());

async function connectTwilio(page: Page) {
  await login(page, "admin", "admin");
  await page.goto("/settings/channels");
  await page.getByLabel("Channel", { exact: true }).selectOption({ label: "SMS" });
  await page.getByRole("button", { name: "Show its form" }).click();
  const form = page.getByRole("form", { name: "New SMS account" });
  await form.getByLabel("Name", { exact: true }).fill(line());
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
  test.describe(`campaigns with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an admin sends an SMS campaign to two contacts and the list shows it sent", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      if (!webhookUrl) {
        const admin = await browser.newPage({ baseURL });
        await chooseLanguage(admin.context(), baseURL!);
        await connectTwilio(admin);
        await admin.close();
      }
      const tail = String(Date.now() % 1_000_000).padStart(6, "0");
      const numbers = [`+6013${tail}1`, `+6013${tail}2`];
      for (const from of numbers) expect((await twilio.post(webhookUrl, twilio.incoming({ from, body: "Hi, any offers?" }))).status).toBe(200);

      await login(page, "admin", "admin");
      // both customers become contacts within seconds (the contacts plugin's job)
      await expect(async () => {
        await page.goto(`/contacts?q=${encodeURIComponent(`6013${tail}`)}`);
        await expect(page.locator("tbody tr")).toHaveCount(2, { timeout: 1_000 });
      }).toPass({ timeout: 30_000 });

      const name = `Raya offer ${javaScriptEnabled ? "js" : "nojs"} ${tail}`;
      await page.goto("/campaign");
      await expect(page.getByRole("heading", { level: 1, name: "Campaigns" })).toBeVisible();
      await page.getByRole("link", { name: "New campaign" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "New campaign" })).toBeVisible();
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Send from", { exact: true }).selectOption({ label: `${line()} (SMS, ${twilio.numbers[0]})` });
      await page.getByLabel("Contacts found by a search").check();
      await page.getByLabel("Search contacts").fill(`6013${tail}`);
      await page.getByLabel("Messages per minute").fill("30");
      // no message: refused, what was typed is kept
      await page.getByRole("button", { name: "Save as draft" }).click();
      await expect(page.getByText("Please write the message.")).toBeVisible();
      await expect(page.getByLabel("Message", { exact: true })).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("Name", { exact: true })).toHaveValue(name);
      await expect(page.getByLabel("Search contacts")).toHaveValue(`6013${tail}`);
      await expect(page.getByLabel("Contacts found by a search")).toBeChecked();

      await page.getByLabel("Message", { exact: true }).fill("Hello {{name}}, 20% off this week. Reply STOP to opt out.");
      await page.getByRole("button", { name: "Save as draft" }).click();
      await expect(page).toHaveURL(/\/campaign\/\d+$/);
      await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
      await expect(page.getByTestId("campaign-state")).toHaveText("Draft");
      await page.getByRole("button", { name: "Start sending" }).click();
      await expect(page.getByTestId("campaign-state")).not.toHaveText("Draft");

      // the list shows it done, both sent
      await expect(async () => {
        await page.goto("/campaign");
        const row = page.getByRole("row", { name: new RegExp(name) });
        await expect(row).toHaveAttribute("data-state", "done", { timeout: 1_000 });
        await expect(row.getByRole("cell").nth(3)).toHaveText("2", { timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      const row = page.getByRole("row", { name: new RegExp(name) });
      await expect(row).toContainText("Done");
      await expect(row.getByRole("cell").last()).toHaveText("2");
      const sent = twilio.sent.filter((s) => numbers.includes(s.to));
      expect(sent.map((s) => s.to).sort()).toEqual(numbers);
      expect(sent.map((s) => s.body).sort()).toEqual(numbers.map((n) => `Hello ${n}, 20% off this week. Reply STOP to opt out.`));

      // each recipient's row links its conversation
      await row.getByRole("link", { name }).click();
      for (const n of numbers) await expect(page.getByRole("row", { name: new RegExp(n.replace("+", "\\+")) })).toContainText("Sent");
    });
  });
}
