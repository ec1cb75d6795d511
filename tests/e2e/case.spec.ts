// Cases end to end, JavaScript on and off: an agent creates a case (a refusal first, keeping what
// was typed), attaches two tickets by number (the same one again is refused, the number kept),
// changes the status, adds a note; the case's history keeps it all and each ticket's conversation
// says it was put in the case and the case's new status. The case pages pass axe's WCAG 2.1 AA rules.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login } from "./helpers";

/**
 * Two tickets of the agent's list that are in no case yet (their Case panel says so): other specs
 * and the other run of this one put tickets of the same list in cases.
 */
async function ticketNumbers(page: Page) {
  await page.goto("/ticket");
  const numbers = await page.locator(".ticket-item").evaluateAll((items) => items.map((i) => i.getAttribute("data-ticket") ?? ""));
  const picked: string[] = [];
  for (const number of [...new Set(numbers)].filter(Boolean)) {
    await page.goto(`/ticket/${number}`);
    if ((await page.locator('[data-panel="case"]').textContent())?.includes("Not in a case.")) picked.push(number);
    if (picked.length === 2) return picked;
  }
  throw new Error(`fewer than two tickets in no case among ${numbers.length}`);
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`cases with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("the conversation's Case panel opens a new case with its ticket, and then links to it", async ({ page }) => {
      test.setTimeout(60_000);
      await login(page, "agent", "agent");
      const [ticket] = await ticketNumbers(page);
      await page.goto(`/ticket/${ticket}`);
      const panel = page.locator('[data-panel="case"]');
      await expect(panel.getByRole("heading", { name: "Case" })).toBeVisible();
      await expect(panel).toContainText("Not in a case.");
      await panel.getByRole("link", { name: "New case with this ticket" }).click();
      await expect(page.getByText(`Ticket #${ticket} will be attached to the new case.`)).toBeVisible();
      const title = `Opened from #${ticket}`;
      await page.getByLabel("Title").fill(title);
      await page.getByRole("button", { name: "Create case" }).click();
      await expect(page).toHaveURL(/\/case\/\d+$/);
      const number = page.url().split("/").at(-1)!;
      await expect(page.getByRole("link", { name: new RegExp(`#${ticket}\\b`) }).first()).toBeVisible();

      await page.goto(`/ticket/${ticket}`);
      await expect(panel.getByRole("link", { name: `#${number} ${title} (Open)` })).toHaveAttribute("href", `/case/${number}`);
      await expect(panel.getByRole("link", { name: "New case with this ticket" })).toHaveCount(0);
    });

    test("an agent creates a case, attaches two tickets, changes its status and adds a note", async ({ page }) => {
      test.setTimeout(90_000);
      await login(page, "agent", "agent");
      const [first, second] = await ticketNumbers(page);
      const title = `Parcel lost in transit ${javaScriptEnabled ? "A" : "B"}`;

      await page.goto("/case");
      await expect(page.getByRole("heading", { level: 1, name: "Cases" })).toBeVisible();
      await page.getByRole("link", { name: "New case" }).click();
      await expect(page).toHaveURL(/\/case\/new$/);

      // refused without a title: the other fields stay as chosen
      await page.getByLabel("Owner").selectOption({ label: "Alya Agent" });
      await page.getByLabel("Due date").fill("2030-05-17");
      await page.getByRole("button", { name: "Create case" }).click();
      const titleField = page.getByLabel("Title");
      await expect(page.getByText("Please enter a title.")).toBeVisible();
      await expect(titleField).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("Owner").locator("option:checked")).toHaveText("Alya Agent");
      await expect(page.getByLabel("Due date")).toHaveValue("2030-05-17");

      await titleField.fill(title);
      await page.getByRole("button", { name: "Create case" }).click();
      await expect(page).toHaveURL(/\/case\/\d+$/);
      const number = page.url().split("/").at(-1)!;
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Case #${number}: ${title}`);

      // two tickets by number
      for (const ticket of [first, second]) {
        await page.getByLabel("Attach ticket number").fill(ticket);
        await page.getByRole("button", { name: "Attach", exact: true }).click();
        await expect(page.getByTestId(`case-ticket-${ticket}`)).toBeVisible();
      }
      await expect(page.getByRole("heading", { name: "2 tickets" })).toBeVisible();

      // the same ticket again: refused, the number kept
      await page.getByLabel("Attach ticket number").fill(first);
      await page.getByRole("button", { name: "Attach", exact: true }).click();
      await expect(page.getByText(`Ticket ${first} is already in this case.`)).toBeVisible();
      await expect(page.getByLabel("Attach ticket number")).toHaveValue(first);

      // status (with JavaScript the refusal above may still be re-rendering the form: choose again until it is saved)
      await expect(async () => {
        await page.getByLabel("Status", { exact: true }).selectOption({ label: "In progress" });
        await page.getByRole("button", { name: "Save" }).click();
        await expect(page.getByTestId("case-status")).toHaveText("In progress", { timeout: 3000 });
      }).toPass({ timeout: 20_000 });
      await expect(page.getByTestId("case-history").first()).toContainText("Alya Agent set the status to In progress");

      // a note
      await page.getByLabel("New note").fill("Courier says it left the depot on Monday.");
      await page.getByRole("button", { name: "Add note" }).click();
      await expect(page.getByTestId("case-note").first()).toContainText("Courier says it left the depot on Monday.");

      const history = page.getByTestId("case-history");
      await expect(history).toHaveCount(4);
      await expect(history.nth(1)).toContainText(`attached ticket #${second}`);

      // the list shows it with its status, owner and due date
      await page.goto("/case?status=in_progress");
      const row = page.getByTestId(`case-${number}`);
      await expect(row).toContainText(title);
      await expect(row).toContainText("In progress");
      await expect(row).toContainText("Alya Agent");
      await expect(row).toContainText("17/05/2030");

      // each ticket's conversation says so
      await page.goto(`/ticket/${first}`);
      await expect(page.getByText(`Alya Agent added this ticket to case #${number} (${title})`)).toBeVisible();
      await expect(page.getByText(`Alya Agent set case #${number} to In progress`)).toBeVisible();

      if (javaScriptEnabled)
        for (const path of [`/case/${number}`, "/case/new", "/case"]) {
          await page.goto(path);
          expect(await axeViolations(page, { where: path })).toEqual([]);
        }
    });
  });
}
