// The SLA engine (JS on and off): an admin gives a new label a 5-minute SLA policy on /sla (a
// resolution time of 0 is refused with the input kept; the page passes axe's WCAG 2.1 AA rules),
// a visitor's ticket gets that label and an assignee, the list shows its time left, the warning
// system message 'less than 5 minutes to resolve' appears in the conversation, and the assignee's
// notifications list it under the SLA tab. Then the server's test clock (the engine's now, moved
// through DATA_DIR/sla-test-clock, NODE_ENV=test only) passes the deadline: the breach message
// appears and the summary report says Breached. The scheduler runs every few seconds: the pages are
// reloaded until what it wrote shows.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login, moveServerClock, signedInPages } from "./helpers";

const TZ = "Asia/Kuala_Lumpur"; // the seeded workspace's zone

/** DD-MM-YYYY of today in the workspace zone (the report's range). */
const today = () => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone: TZ, day: "2-digit", month: "2-digit", year: "numeric" })
      .formatToParts(Date.now())
      .map((x) => [x.type, x.value]),
  );
  return `${p.day}-${p.month}-${p.year}`;
};

async function reloadUntil(page: Page, check: () => Promise<void>) {
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout: 60_000, intervals: [1_000, 2_000, 3_000] });
}

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? "on" : "off";
  test.describe(`SLA with JavaScript ${mode}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));
    test.afterEach(() => moveServerClock(0));

    test("a short SLA label: time left in the list, the warning message, the assignee's notification", async ({ page, browser, baseURL }) => {
      test.setTimeout(180_000);
      const stamp = `${mode} ${Date.now()}`;
      const labelName = `E2E SLA ${stamp}`;
      await login(page, "admin", "admin");

      // a label of its own (the labels admin), then its policy on /sla
      await page.goto("/settings/labels");
      const row = page.locator("tr.label-new").first();
      await row.locator('input[name="name"]').fill(labelName);
      await row.locator('input[name="sla"]').fill("5");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect(page.getByRole("status")).toHaveText("Label updated.");

      await page.goto("/sla");
      await expect(page.getByRole("heading", { level: 1, name: "SLA policies" })).toBeVisible();
      if (javaScriptEnabled) {
        // axe runs as a script in the page
        expect(await axeViolations(page)).toEqual([]);
      }
      await page.getByLabel("Label", { exact: true }).selectOption({ label: `${labelName} (SLA 5 min)` });
      await page.getByLabel("Resolution (minutes)").fill("0");
      await page.getByLabel("Warn when fewer minutes are left").fill("5");
      await page.getByRole("button", { name: "Save policy" }).click();
      await expect(page.getByText("Enter whole minutes from 1 to 525600.")).toBeVisible();
      await expect(page.getByLabel("Resolution (minutes)")).toHaveValue("0");
      await expect(page.getByLabel("Resolution (minutes)")).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("Label", { exact: true })).toHaveValue(/\d+/);
      await page.getByLabel("Resolution (minutes)").fill("5");
      await page.getByRole("button", { name: "Save policy" }).click();
      await expect(page.getByRole("status")).toHaveText("The policy was saved.");
      await expect(page.locator(`tr[data-policy="${labelName}"]`)).toContainText("5");

      // a visitor's ticket
      const subject = `SLA kettle ${stamp}`;
      await page.goto("/new_ticket/demo");
      await page.getByLabel("Name").fill("Sla Visitor");
      await page.getByLabel("Email").fill("sla-visitor@example.com");
      await page.getByLabel("Subject").fill(subject);
      await page.getByLabel("Message").fill("Still waiting");
      await page.getByRole("button", { name: "Submit" }).click();
      await expect(page.getByRole("heading", { name: "Message sent" })).toBeVisible();

      // the admin makes the agent its assignee and gives it the label
      await page.goto("/");
      const href = await page.locator(".ticket-item", { has: page.locator(".title", { hasText: subject }) }).getAttribute("href");
      await page.goto(href!);
      await expect(page.getByRole("heading", { level: 1 })).toContainText(subject);
      const number = /\/ticket\/(\d+)/.exec(page.url())![1];
      // the assignee first: the label starts the clock and its warning is due at once, and the SLA
      // pass (every 10 s) tells the assignees of that moment; labelled first, a pass between the two
      // forms would warn before the agent is the assignee
      await page.getByLabel("Add a person").selectOption("agent");
      await page.getByLabel("as assignee").check();
      await page.getByRole("button", { name: "Add" }).click();
      await expect(page.locator(".participants li", { hasText: "Alya Agent" })).toContainText("Assignee");
      await page.getByRole("checkbox", { name: labelName }).check();
      await page.getByRole("button", { name: "Save labels" }).click();
      // the box is ticked before the form is even sent: wait for what the saved label shows (the
      // list row's chip), else the next form's submission replaces this one's and the label is lost
      await expect(page.locator(`.ticket-item[data-ticket="${number}"] .labels`)).toContainText(labelName);

      // the list shows the time left, coloured by state; the warning comes at once (5 minutes, warned under 5)
      await page.goto(`/ticket/${number}`);
      const badge = page.locator(`.ticket-item[data-ticket="${number}"] [data-badge="sla"]`);
      await reloadUntil(page, async () => {
        await expect(badge).toHaveText(/^\d+ min left$/, { timeout: 1_000 });
      });
      await expect(badge).toHaveAttribute("data-state", "warning");
      await expect(badge).toHaveAttribute("title", /resolution/);
      await reloadUntil(page, async () => {
        await expect(page.locator(".system-message", { hasText: "less than 5 minutes to resolve" })).toHaveCount(1, { timeout: 1_000 });
      });

      // the assignee's notifications
      const {
        pages: [agent],
        close,
      } = await signedInPages(browser, baseURL!, [["agent", "agent"]]);
      // the SLA tab by name: earlier tests may have left the agent newer unread notifications of other
      // kinds (which tab opens first is tests/unit/notify.test.ts's matter)
      await agent.goto("/notifications?tab=sla");
      await expect(agent.getByRole("main").locator('.notification-tabs [data-category="sla"]')).toHaveAttribute("aria-current", "page");
      const note = agent.getByRole("link", { name: `#${number} ${subject}: less than 5 minutes to resolve` });
      await expect(note).toBeVisible();
      await note.click();
      await expect(agent).toHaveURL(new RegExp(`/ticket/${number}`));
      await close();

      // the server's clock passes the deadline: the breach message, the badge overdue, the report's SLA column
      moveServerClock(6 * 60_000);
      await reloadUntil(page, async () => {
        await expect(page.locator(".system-message", { hasText: "SLA breached: not resolved in time" })).toHaveCount(1, { timeout: 1_000 });
      });
      await expect(badge).toHaveText(/^\d+ min overdue$/);
      await expect(badge).toHaveAttribute("data-state", "breached");
      await page.goto(`/report/ticket/4?start=${today()}&end=${today()}`);
      const reportRow = page.locator(".report-table tbody tr", { has: page.locator(`a[href="/ticket/${number}"]`) });
      await expect(reportRow).toContainText("Breached");
    });
  });
}
