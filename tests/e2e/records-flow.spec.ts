// The customer records flow of issue 19 in one go, JavaScript on and off: a customer writes in
// through the public form and the contacts plugin links the conversation to a new contact; the
// admin adds a custom contact field and gives the contact a value, sees the conversation on the
// contact's timeline (Activity) and opens it, imports a CSV row for the same person under another
// email and merges it into the contact from the duplicate suggestion, books an appointment from
// the contact's calendar, and fetches their private iCalendar feed, parsed with node-ical: the
// appointment is in it, at the time booked in the workspace's time zone.
import { test, expect } from "@playwright/test";
import ical, { type VEvent } from "node-ical";
import { chooseLanguage, hydrated, login } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test.describe(`the records flow with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("a customer writes in; the admin fills a custom field, sees the timeline, merges an import, books and finds it in the feed", async ({
      page,
      browser,
      baseURL,
    }) => {
      test.setTimeout(120_000);
      const tag = `${javaScriptEnabled ? "js" : "nojs"}${Date.now() % 1_000_000}`;
      const name = `Amir ${tag}`;
      const email = `amir.${tag}@example.com`;
      const subject = `Warranty claim ${tag}`;

      // the customer writes in
      const visitor = await browser.newContext({ javaScriptEnabled });
      await chooseLanguage(visitor, baseURL!);
      const form = await visitor.newPage();
      await form.goto("/new_ticket/demo");
      await form.getByLabel("Name").fill(name);
      await form.getByLabel("Email").fill(email);
      await form.getByLabel("Subject").fill(subject);
      await form.getByLabel("Message").fill("My kettle stopped working after a week.");
      await form.getByRole("button", { name: "Submit" }).click();
      await expect(form.getByRole("heading", { name: "Message sent" })).toBeVisible();
      await visitor.close();

      // a custom field for every contact
      await login(page, "admin", "admin");
      const field = `Loyalty points ${tag}`;
      await page.goto("/contacts/fields");
      if (javaScriptEnabled) await hydrated(page);
      await page.getByRole("textbox", { name: "Label", exact: true }).fill(field);
      await page.getByLabel("Kind", { exact: true }).selectOption({ label: "Number" });
      await page.getByRole("button", { name: "Add field" }).click();
      await expect(page.getByText("Field added.")).toBeVisible();

      // the contact, made by the linking job within seconds
      await expect(async () => {
        await page.goto(`/contacts?q=${encodeURIComponent(email)}`);
        await expect(page.getByRole("link", { name })).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await page.getByRole("link", { name }).click();
      await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
      const uid = new URL(page.url()).pathname.split("/").pop()!;

      // its custom field's value: a wrong one is refused and kept, a number is saved
      await page.getByLabel(field).fill("many");
      await page.getByRole("button", { name: "Save fields" }).click();
      await expect(page.getByText("Please enter a number, for example 42 or 3.5.")).toBeVisible();
      await expect(page.getByLabel(field)).toHaveValue("many");
      await page.getByLabel(field).fill("120");
      await page.getByRole("button", { name: "Save fields" }).click();
      await expect(page.getByRole("region", { name: "Custom fields" }).getByRole("status")).toHaveText("Saved.");
      await expect(page.getByLabel(field)).toHaveValue("120");

      // the linked conversation on the timeline, opening its page
      const activity = page.getByRole("region", { name: "Activity", exact: true });
      await expect(activity.getByRole("link")).toHaveCount(1);
      await expect(activity.getByRole("link")).toContainText(subject);
      await activity.getByRole("link").click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);

      // the same person under their work email, imported from a CSV after its dry run
      await page.goto("/contacts/import");
      if (javaScriptEnabled) await hydrated(page);
      const csv = `name,salutation,email,phone,id_type,id_number\n${name},,amir.work.${tag}@example.com,,,\n`;
      await page.getByLabel("CSV file", { exact: true }).setInputFiles({ name: `amir-${tag}.csv`, mimeType: "text/csv", buffer: Buffer.from(csv) });
      await page.getByRole("button", { name: "Check the file" }).click();
      await expect(page.getByTestId("csv-counts")).toHaveText("1 rows: 1 to import, 0 with errors, 0 imported before.");
      await page.getByRole("button", { name: "Import 1 row" }).click();
      await expect(page.getByTestId("csv-imported")).toHaveText(`Imported 1 contact from amir-${tag}.csv.`);

      // suggested as a duplicate, merged into the contact with the conversation
      await page.goto(`/contacts/${uid}`);
      const duplicates = page.getByRole("region", { name: "Possible duplicates" });
      await expect(duplicates.getByRole("listitem")).toHaveCount(1);
      await duplicates.getByRole("link", { name: `Merge ${name} into this contact` }).click();
      const preview = page.getByRole("region", { name: "What moves" });
      await expect(preview.getByText(`Email: amir.work.${tag}@example.com`)).toBeVisible();
      await preview.getByRole("button", { name: "Merge" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Merged." })).toBeVisible();
      await expect(page.getByRole("region", { name: "Emails" }).getByRole("listitem")).toHaveText([email, `amir.work.${tag}@example.com`]);
      await expect(activity.getByRole("link")).toContainText(subject);
      await expect(page.getByLabel(field)).toHaveValue("120");

      // an appointment from the contact's calendar
      const day = javaScriptEnabled ? "2031-03-10" : "2031-03-11";
      const title = `Kettle swap ${tag}`;
      await page.goto(`/calendar/${uid}`);
      await expect(page.getByRole("heading", { level: 1, name: `Appointments with ${name}` })).toBeVisible();
      await page.getByLabel("Title").fill(title);
      await page.getByLabel("Start date").fill(day);
      await page.getByLabel("Start time").fill("10:00");
      await page.getByLabel("End time").fill("11:00");
      await page.getByLabel("Location").fill("Petaling Jaya");
      await page.getByRole("button", { name: "Book appointment" }).click();
      await expect(page.getByText("Appointment saved.")).toBeVisible();
      await page.goto(`/calendar?month=${day.slice(0, 7)}`);
      await expect(page.locator(`td[data-day="${day}"]`).getByRole("link", { name: `10:00 ${title}` })).toBeVisible();

      // the admin's private feed, parsed as a calendar app would
      await page.goto("/calendar");
      await page.getByRole("button", { name: /^(Create feed address|Make a new address)$/ }).click();
      const address = await page.getByLabel("Feed address").inputValue();
      expect(address).toMatch(/\/calendar\/feed\/[A-Za-z0-9_-]{20,64}\.ics$/);
      const answer = await page.request.get(new URL(new URL(address).pathname, baseURL).toString());
      expect(answer.status()).toBe(200);
      expect(answer.headers()["content-type"]).toContain("text/calendar");
      const events = Object.values(ical.sync.parseICS(await answer.text())).filter((c): c is VEvent => c.type === "VEVENT");
      const event = events.find((e) => String(e.summary) === title);
      expect(event, `${title} in the feed`).toBeTruthy();
      expect(String(event!.location)).toBe("Petaling Jaya");
      // 10:00 to 11:00 on that day, in the time zone the feed names
      const zone = (event!.start as Date & { tz?: string }).tz;
      expect(zone).toBeTruthy();
      const wall = (d: Date) =>
        new Intl.DateTimeFormat("en-CA", {
          timeZone: zone,
          year: "numeric",
          month: "2-digit",
          day: "2-digit",
          hour: "2-digit",
          minute: "2-digit",
          hourCycle: "h23",
        })
          .format(d)
          .replace(",", "");
      expect(wall(event!.start)).toBe(`${day} 10:00`);
      expect(wall(event!.end)).toBe(`${day} 11:00`);
    });
  });
}
