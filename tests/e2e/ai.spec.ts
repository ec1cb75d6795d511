// The AI plugin in the browser, with JavaScript off and on: a visitor's angry message on the public
// new-ticket page is analysed in the background and the agent's conversation shows its emotion
// and context panels (with JavaScript on, the page hears newEmotion and reloads its data itself);
// the admin's /settings/ai says plainly that nothing leaves the machine and refuses an outside
// adapter without an address, keeping what was typed. axe checks both pages.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, hydrated, login } from "./helpers";

async function axe(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
}

for (const javaScriptEnabled of [false, true]) {
  test.describe(`AI with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an angry customer's message gets its emotion and context panels in the agent's conversation", async ({ page, browser, baseURL }) => {
      const subject = `Angry parcel ${javaScriptEnabled ? "js" : "nojs"} ${Date.now()}`;
      const visitor = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitor, baseURL!);
      const form = await visitor.newPage();
      await form.goto("/new_ticket/demo");
      await form.getByLabel("Name").fill("Angela Cross");
      await form.getByLabel("Email").fill(`angela.${Date.now()}@example.com`);
      await form.getByLabel("Subject").fill(subject);
      await form.getByLabel("Message").fill("This is RIDICULOUS! Three weeks and my parcel still hasn't arrived. Worst service ever, I'm furious!!!");
      await form.getByRole("button", { name: "Submit" }).click();
      await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
      await visitor.close();

      await login(page, "agent", "agent");
      await page.locator(".ticket-item .title", { hasText: subject }).click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
      if (javaScriptEnabled) await hydrated(page);
      const emotion = page.getByRole("region", { name: "Emotion", exact: true });
      const context = page.getByRole("region", { name: "Context", exact: true });
      if (javaScriptEnabled) {
        // no reload: the page hears newEmotion when the job has read the message
        await expect(emotion).toContainText(/Customer: Anger \(\d+% sure\)/, { timeout: 20_000 });
      } else {
        await expect(async () => {
          await page.reload();
          await expect(emotion).toContainText(/Customer: Anger \(\d+% sure\)/, { timeout: 1_000 });
        }).toPass({ timeout: 20_000 });
      }
      await expect(emotion).toContainText("Anger: 1");
      await expect(context).toContainText("Wants: their order delivered");
      await expect(context).toContainText("Type: Delivery");
      await expect(context).toContainText(/About: [^P]*parcel/);
      // axe runs in the page: with JavaScript on (the same markup is served either way)
      if (javaScriptEnabled) await axe(page);
    });

    test("the admin's AI settings say nothing leaves the machine, and refuse an outside adapter without an address", async ({ page }) => {
      await login(page, "admin", "admin");
      await page.goto("/settings/ai");
      await expect(page.getByRole("heading", { level: 1, name: "AI settings" })).toBeVisible();
      await expect(page.getByTestId("ai-privacy")).toHaveText("Offline: messages are analysed on this machine. Nothing from a conversation leaves it.");
      if (javaScriptEnabled) await axe(page);
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("radio", { name: "OpenAI-compatible server (hosted or local)" }).check();
      await page.getByLabel("Base URL").fill("not an address");
      await page.getByLabel("Chat model").fill("llama3.1:8b");
      await page.getByLabel("API key").fill("sk-should-not-come-back");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Enter the server's address, starting with http:// or https://.")).toBeVisible();
      await expect(page.getByLabel("Chat model")).toHaveValue("llama3.1:8b");
      await expect(page.getByLabel("Base URL")).toHaveValue("not an address");
      // the key is never sent back to the page
      await expect(page.getByLabel("API key")).toHaveValue("");
      await expect(page.getByRole("radio", { name: "OpenAI-compatible server (hosted or local)" })).toBeChecked();
      // nothing was saved: still offline
      await page.goto("/settings/ai");
      await expect(page.getByTestId("ai-privacy")).toContainText("Nothing from a conversation leaves it.");
      await page.getByRole("button", { name: "Test the adapter" }).click();
      await expect(page.getByTestId("ai-tested")).toHaveText("The offline adapter is ready: it needs no connection.");
    });

    test("agents cannot open the AI settings", async ({ page }) => {
      await login(page, "agent", "agent");
      const response = await page.goto("/settings/ai");
      expect(response!.status()).toBe(403);
    });
  });
}
