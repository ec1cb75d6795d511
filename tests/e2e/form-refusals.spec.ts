// Refusals the feature tests do not reach, one convention (FormResult): the error shows beside the
// form that was posted, the input is kept, with JavaScript on and off. Nothing here is saved.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login, PASSWORD } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`form refusals with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("editions, billing and two-factor keep the input and say what is wrong", async ({ page, baseURL }) => {
      await login(page, "admin", "admin");
      await page.goto("/admin/editions");
      const card = page.locator("#edition-support");
      await card.locator("textarea[name=hosts]").fill("support.example.com\nbad_host!!");
      await card.getByRole("button", { name: "Save" }).click();
      await expect(card.getByRole("alert")).toHaveText("Please check the host pattern. bad_host!!");
      await expect(card.locator("textarea[name=hosts]")).toHaveValue("support.example.com\nbad_host!!");
      // only that form shows it
      await expect(page.getByRole("alert")).toHaveCount(1);
      const res = await page.request.post("/admin/editions", { form: { edition: "support", hosts: "x y!" }, headers: { Origin: baseURL! } });
      expect(res.status()).toBe(400);

      await page.goto("/settings/billing");
      await page.getByLabel("Company or name on invoices").fill("  ");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("alert")).toHaveText("This cannot be empty.");
      await page.getByLabel("Company or name on invoices").fill("Acme");
      await page.getByLabel("Billing email").fill("nope");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("alert")).toHaveText("Please check the email address. nope");
      await expect(page.getByLabel("Company or name on invoices")).toHaveValue("Acme");

      await page.goto("/settings");
      const secret = await page.getByTestId("totp-secret").textContent();
      await page.getByLabel("Code").fill("nope");
      // turning two-factor on asks for the password too (passwords are never sent back)
      await page.getByLabel("Current password").fill(PASSWORD);
      await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
      await expect(page.getByRole("alert")).toHaveText("The code is not valid or has already been used.");
      await expect(page.getByTestId("totp-secret")).toHaveText(secret!);
      await page.getByLabel("Code").fill("nope2");
      await page.getByLabel("Current password").fill(PASSWORD);
      await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
      await expect(page.getByRole("alert")).toHaveText("The code is not valid or has already been used.");
      await expect(page.getByTestId("totp-secret")).toHaveText(secret!);
      // a key that was never shown
      const bad = await page.request.post("/settings", { form: { intent: "tfa_enable", secret: "bad", code: "1" }, headers: { Origin: baseURL! } });
      expect(bad.status()).toBe(400);
      expect(await bad.text()).toContain("That key is not valid.");
    });

    test("the start chat form, the conversation's small forms and the desk", async ({ page, baseURL }) => {
      await login(page, "agent", "agent");
      await page.goto("/chat");
      await page.locator("textarea[name=message]").fill("kept text");
      await page.getByRole("button", { name: "Start chat" }).click();
      await expect(page.getByRole("alert")).toHaveText("Please give the chat a subject.");
      await expect(page.locator("textarea[name=message]")).toHaveValue("kept text");

      const item = page.locator(".ticket-item").first();
      const number = await item.getAttribute("data-ticket");
      const bad = await page.request.post(`/ticket/${number}`, { form: { intent: "priority", priority: "X" }, headers: { Origin: baseURL! } });
      expect(bad.status()).toBe(400);
      expect(await bad.text()).toContain("Please check the input.");
      // a note that is not there
      const note = await page.request.post(`/ticket/${number}`, { form: { intent: "delete_note", note_id: "999999" }, headers: { Origin: baseURL! } });
      expect(note.status()).toBe(404);
      // the live chat desk's Accept
      const desk = await page.request.post("/livechat", { form: { intent: "accept", ticket_id: "x" }, headers: { Origin: baseURL! } });
      expect(desk.status()).toBe(400);
      expect(await desk.text()).toContain("Please check the input.");
    });
  });
}
