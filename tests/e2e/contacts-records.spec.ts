// Contacts records end to end, JavaScript on and off: an admin imports a small CSV (the dry run
// shows the one bad row, the import applies the rest), merges the two imported contacts that share
// a name from the duplicate suggestion and undoes it; and the View Profile link of an agent's
// profile card opens their staff profile.
import { test, expect } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`contact records with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an admin imports a CSV after its dry run, merges two contacts and undoes it", async ({ page }) => {
      test.setTimeout(60_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      const name = `Farah ${tag}`;
      const csv = [
        "name,salutation,email,phone,id_type,id_number",
        `${name},Puan,farah.${tag}@example.com,,mykad,900101-14-5678`,
        `${name},,farah.work.${tag}@example.com,,,`,
        `Broken ${tag},,not-an-email,,,`,
      ].join("\n");
      await login(page, "admin", "admin");
      await page.goto("/contacts");
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("link", { name: "Import contacts" }).click();
      await expect(page.getByRole("heading", { level: 1, name: "Import contacts" })).toBeVisible();
      await page.getByLabel("CSV file", { exact: true }).setInputFiles({ name: `people-${tag}.csv`, mimeType: "text/csv", buffer: Buffer.from(csv) });
      await page.getByRole("button", { name: "Check the file" }).click();
      await expect(page.getByTestId("csv-counts")).toHaveText("3 rows: 2 to import, 1 with errors, 0 imported before.");
      const errors = page.getByRole("table", { name: "Rows with errors" });
      await expect(errors.getByRole("row")).toHaveCount(2);
      await expect(errors.getByRole("row").nth(1)).toContainText('"not-an-email" is not an email address.');
      await expect(errors.getByRole("rowheader")).toHaveText("4");
      await page.getByRole("button", { name: "Import 2 rows" }).click();
      await expect(page.getByTestId("csv-imported")).toHaveText(`Imported 2 contacts from people-${tag}.csv.`);

      // the two are suggested as duplicates of each other
      await page.goto(`/contacts?q=${encodeURIComponent(`farah.${tag}@example.com`)}`);
      await page.getByRole("link", { name: `Puan ${name}` }).click();
      await expect(page.getByRole("heading", { level: 1, name: `Puan ${name}` })).toBeVisible();
      const duplicates = page.getByRole("region", { name: "Possible duplicates" });
      await expect(duplicates.getByRole("listitem")).toHaveCount(1);
      await duplicates.getByRole("link", { name: `Merge ${name} into this contact` }).click();
      await expect(page.getByRole("heading", { level: 1, name: `Merge into ${name}` })).toBeVisible();
      const preview = page.getByRole("region", { name: "What moves" });
      await expect(preview.getByText(`Email: farah.work.${tag}@example.com`)).toBeVisible();
      await expect(preview.getByText("0 conversations.")).toBeVisible();
      await preview.getByRole("button", { name: "Merge" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Merged." })).toBeVisible();
      const emails = page.getByRole("region", { name: "Emails" });
      await expect(emails.getByRole("listitem")).toHaveText([`farah.${tag}@example.com`, `farah.work.${tag}@example.com`]);
      await expect(page.getByRole("region", { name: "Possible duplicates" }).getByRole("listitem")).toHaveCount(0);

      await page.getByRole("button", { name: `Undo the merge of ${name}` }).click();
      await expect(page.getByRole("status").filter({ hasText: "The merge was undone" })).toBeVisible();
      await expect(emails.getByRole("listitem")).toHaveText([`farah.${tag}@example.com`]);
      await expect(page.getByRole("region", { name: "Possible duplicates" }).getByRole("listitem")).toHaveCount(1);
    });

    test("View Profile on an agent's profile card opens their staff profile", async ({ page }) => {
      await login(page, "admin", "admin");
      await page.goto("/profile?username=agent");
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("link", { name: "View Profile" }).click();
      await expect(page).toHaveURL(/\/contacts\/agent$/);
      await expect(page.getByRole("heading", { level: 1, name: "Alya Agent" })).toBeVisible();
      await expect(page.locator(".staff-facts")).toContainText("Support");
      await expect(page.locator(".staff-facts")).toContainText("Agent");
      await expect(page.getByRole("heading", { level: 2, name: "Tickets" })).toBeVisible();
    });
  });
}
