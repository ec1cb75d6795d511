// The list's SLA badge counts down by itself with JavaScript on: a visitor's ticket gets a label
// whose SLA is 30 minutes (the label's own SLA, warned 15 minutes before), the list shows its time
// left, and with the clocks moved forward together (the browser's through Playwright's test clock,
// the server's through its SLA test clock, so a reload of the list's data agrees; the page is
// never reloaded) the badge counts down, turns to warning at 15 minutes left and to overdue at the
// deadline.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login, moveServerClock } from "./helpers";

const leftMinutes = async (page: Page, selector: string) => {
  const text = (await page.locator(selector).textContent()) ?? "";
  const m = /^(\d+) min left$/.exec(text.trim());
  if (!m) throw new Error(`not a time left: ${text}`);
  return Number(m[1]);
};

test.describe("SLA countdown with JavaScript on", () => {
  test.use({ javaScriptEnabled: true });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));
  test.afterEach(() => moveServerClock(0));

  test("the list's badge counts down, turns to warning and then to overdue as the clock runs", async ({ page }) => {
    test.setTimeout(120_000);
    const stamp = `countdown ${Date.now()}`;
    const labelName = `E2E SLA ${stamp}`;
    await login(page, "admin", "admin");

    // a label with a 30-minute SLA (no policy: the label's own SLA is the resolution time)
    await page.goto("/settings/labels");
    const row = page.locator("tr.label-new").first();
    await row.locator('input[name="name"]').fill(labelName);
    await row.locator('input[name="sla"]').fill("30");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.getByRole("status")).toHaveText("Label updated.");

    // a visitor's ticket, given that label
    const subject = `SLA clock ${stamp}`;
    await page.goto("/new_ticket/demo");
    await page.getByLabel("Name").fill("Clock Visitor");
    await page.getByLabel("Email").fill("clock-visitor@example.com");
    await page.getByLabel("Subject").fill(subject);
    await page.getByLabel("Message").fill("How long now?");
    await page.getByRole("button", { name: "Submit" }).click();
    await expect(page.getByRole("heading", { name: "Message sent" })).toBeVisible();
    await page.goto("/");
    const href = await page.locator(".ticket-item", { has: page.locator(".title", { hasText: subject }) }).getAttribute("href");
    await page.goto(href!);
    const number = /\/ticket\/(\d+)/.exec(page.url())![1];
    await page.getByRole("checkbox", { name: labelName }).check();
    await page.getByRole("button", { name: "Save labels" }).click();
    await expect(page.locator(`.ticket-item[data-ticket="${number}"] .labels`)).toContainText(labelName);

    // the scheduler picks it up within a pass: the badge says its time left (reloaded until it does)
    const selector = `.ticket-item[data-ticket="${number}"] [data-badge="sla"]`;
    const badge = page.locator(selector);
    await expect(async () => {
      await page.reload();
      await expect(badge).toHaveText(/^\d+ min left$/, { timeout: 1_000 });
    }).toPass({ timeout: 60_000, intervals: [1_000, 2_000, 3_000] });

    // from here the browser's clock is the test's: the page is loaded once and never again
    await page.clock.install();
    await page.reload();
    await hydrated(page);
    // the router is up before React's effects have run: moving the clock before the badge's timer
    // is set would be lost (the badge counts from the moment its timer starts)
    await expect(badge).toHaveAttribute("data-ticking", "");
    await expect(badge).toHaveAttribute("data-state", "ok");
    const first = await leftMinutes(page, selector);
    let ahead = 0;
    const advance = async (minutes: number) => {
      ahead += minutes * 60_000;
      moveServerClock(ahead);
      await page.clock.fastForward(minutes * 60_000);
    };
    expect(first).toBeGreaterThan(15);
    expect(first).toBeLessThanOrEqual(30);

    // ten minutes later: ten fewer minutes left, still in time
    await advance(10);
    await expect(badge).toHaveText(new RegExp(`^(${first - 10}|${first - 11}) min left$`));
    await expect(badge).toHaveAttribute("data-state", "ok");

    // past the warning (15 minutes before the deadline): the badge turns to warning
    await advance(8);
    await expect(badge).toHaveAttribute("data-state", "warning");
    expect(await leftMinutes(page, selector)).toBeLessThan(15);

    // past the deadline: overdue, breached
    await advance(20);
    await expect(badge).toHaveText(/^\d+ min overdue$/);
    await expect(badge).toHaveAttribute("data-state", "breached");
    await expect(badge).toHaveAttribute("title", /overdue/);
  });
});
