// Contacts end to end, JavaScript on and off: a customer writes twice through the public form; an
// agent opens /contacts, finds them by email (linked by the plugin's job within seconds), gives a
// wrong MyKad number (refused with the reason, everything typed kept), fixes it, and sees both
// conversations, each opening its page.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`contacts with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an agent finds a customer, fixes their ID number and sees their conversations", async ({ page, browser, baseURL }) => {
      test.setTimeout(60_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      const email = `nora.${tag}@example.com`;
      const subjects = [`Delivery late ${tag}`, `Refund please ${tag}`];
      const visitor = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitor, baseURL!);
      const form = await visitor.newPage();
      for (const [i, subject] of subjects.entries()) {
        await form.goto("/new_ticket/demo");
        await form.getByLabel("Name").fill("Nora Aziz");
        // the second time in capitals: still the same person
        await form.getByLabel("Email").fill(i ? email.toUpperCase() : email);
        await form.getByLabel("Subject").fill(subject);
        await form.getByLabel("Message").fill("Where is my parcel?");
        await form.getByRole("button", { name: "Submit" }).click();
        await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
      }
      await visitor.close();

      await login(page, "agent", "agent");
      await page.goto("/contacts");
      await expect(page.getByRole("heading", { level: 1, name: "Contacts" })).toBeVisible();
      // linked in the background within seconds
      await expect(async () => {
        await page.goto("/contacts");
        await page.getByRole("searchbox", { name: "Search contacts" }).fill(email);
        await page.getByRole("button", { name: "Search" }).click();
        await expect(page.getByRole("link", { name: "Nora Aziz" })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await expect(page.getByRole("link", { name: "Nora Aziz" })).toHaveCount(1);
      await page.getByRole("link", { name: "Nora Aziz" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Nora Aziz" })).toBeVisible();
      await expect(page.getByRole("region", { name: "Emails" }).getByText(email)).toBeVisible();

      // both conversations, newest first, each opening its page
      const activity = page.getByRole("region", { name: "Activity", exact: true });
      // the second one is linked within seconds of its arrival too
      await expect(async () => {
        await page.reload();
        await expect(activity.getByRole("link")).toHaveCount(2, { timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await expect(activity.getByRole("link").first()).toContainText(subjects[1]);
      await expect(activity.getByRole("link").nth(1)).toContainText(subjects[0]);

      // a MyKad with no real birth date is refused; what was typed stays
      await page.getByLabel("Salutation").fill("Puan");
      await page.getByLabel("ID type").selectOption({ label: "MyKad ID" });
      await page.getByLabel("ID number").fill("901301-14-5678");
      await page.getByLabel("Notes").fill("Call after 6 pm");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByText("The first six digits are the birth date (YYMMDD): 901301 is not a real date.")).toBeVisible();
      await expect(page.getByLabel("ID number")).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("ID number")).toHaveValue("901301-14-5678");
      await expect(page.getByLabel("Salutation")).toHaveValue("Puan");
      await expect(page.getByLabel("Notes")).toHaveValue("Call after 6 pm");
      await expect(page.getByLabel("ID type")).toHaveValue("mykad");

      // a place code no state has, then the right number
      await page.getByLabel("ID number").fill("900101-17-5678");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByText("Digits 7 and 8 are the place of birth: 17 is not a state or country code.")).toBeVisible();
      await page.getByLabel("ID number").fill("900101145678");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
      await expect(page.getByRole("heading", { level: 1, name: "Puan Nora Aziz" })).toBeVisible();
      await expect(page.getByLabel("ID number")).toHaveValue("900101-14-5678");
      await expect(page.getByText("MyKad ID: 900101-14-5678")).toBeVisible();

      // Refuses to provide: no number kept; with JavaScript its field hides
      await page.getByLabel("ID type").selectOption({ label: "Refuses to provide" });
      if (javaScriptEnabled) await expect(page.getByLabel("ID number")).toBeHidden();
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
      await expect(page.getByText("MyKad ID: 900101-14-5678")).toHaveCount(0);
      if (javaScriptEnabled) await expect(page.getByLabel("ID number")).toBeHidden();
      else await expect(page.getByLabel("ID number")).toHaveValue("");

      await activity.getByRole("link").first().click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subjects[1]);
    });
  });
}
