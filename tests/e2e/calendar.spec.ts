// The calendar end to end, JavaScript on and off: a customer writes in (the contacts plugin links
// them); the agent opens the contact's calendar (/calendar/{uid}), books an appointment (an end
// before its start is refused first, what was typed kept), sees it in the month view and opens it.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`calendar with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an agent books an appointment for a contact and finds it in the month view", async ({ page, browser, baseURL }) => {
      test.setTimeout(60_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      const email = `siti.${tag}@example.com`;
      const visitor = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitor, baseURL!);
      const form = await visitor.newPage();
      await form.goto("/new_ticket/demo");
      await form.getByLabel("Name").fill("Siti Rahman");
      await form.getByLabel("Email").fill(email);
      await form.getByLabel("Subject").fill(`Aircon repair ${tag}`);
      await form.getByLabel("Message").fill("My aircon leaks, can someone come?");
      await form.getByRole("button", { name: "Submit" }).click();
      await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
      await visitor.close();

      await login(page, "agent", "agent");
      // the contact is linked in the background within seconds
      await expect(async () => {
        await page.goto(`/contacts?q=${encodeURIComponent(email)}`);
        await expect(page.getByRole("link", { name: "Siti Rahman" })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await page.getByRole("link", { name: "Siti Rahman" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Siti Rahman" })).toBeVisible();
      const uid = new URL(page.url()).pathname.split("/").pop()!;

      await page.goto(`/calendar/${uid}`);
      await expect(page.getByRole("heading", { level: 1, name: "Appointments with Siti Rahman" })).toBeVisible();
      await expect(page.getByLabel("Contact", { exact: true })).toHaveValue(uid);
      const day = javaScriptEnabled ? "2031-02-10" : "2031-02-11";
      const title = `Aircon visit ${tag}`;
      await page.getByLabel("Title").fill(title);
      await page.getByLabel("Start date").fill(day);
      await page.getByLabel("Start time").fill("10:00");
      await page.getByLabel("End time").fill("09:00");
      await page.getByLabel("Location").fill("Shah Alam");
      await page.getByRole("button", { name: "Book appointment" }).click();
      await expect(page.getByText("The end must be after the start.")).toBeVisible();
      await expect(page.getByLabel("End time")).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("Title")).toHaveValue(title);
      await expect(page.getByLabel("Location")).toHaveValue("Shah Alam");
      await page.getByLabel("End time").fill("11:00");
      await page.getByRole("button", { name: "Book appointment" }).click();
      await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
      await expect(page.getByText("Appointment saved.")).toBeVisible();
      await expect(page.getByRole("link", { name: "Siti Rahman" })).toBeVisible();

      await page.goto(`/calendar?month=${day.slice(0, 7)}`);
      const cell = page.locator(`td[data-day="${day}"]`);
      await expect(cell.getByRole("link", { name: `10:00 ${title}` })).toBeVisible();
      await cell.getByRole("link", { name: `10:00 ${title}` }).click();
      await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
      await expect(page.getByText("Shah Alam")).toBeVisible();
    });
  });
}
