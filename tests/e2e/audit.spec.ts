// /settings/audit: an admin reads what happened (here: a CSV export) and filters it with a GET
// form, with JavaScript on and off; agents are refused; nothing on the page edits the log.
import { test, expect, type Browser } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

async function adminPage(browser: Browser, baseURL: string, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ javaScriptEnabled });
  await chooseLanguage(context, baseURL);
  const page = await context.newPage();
  await login(page, "admin", "admin");
  return { page, close: () => context.close() };
}

/** Today in the seeded workspace's zone (Asia/Kuala_Lumpur): the audit log's day filter counts days there. */
const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Kuala_Lumpur" }).format(new Date());

for (const javaScriptEnabled of [false, true]) {
  test(`an admin finds an export in the audit log and filters it (JavaScript ${javaScriptEnabled ? "on" : "off"})`, async ({ browser, baseURL }) => {
    const { page, close } = await adminPage(browser, baseURL!, javaScriptEnabled);
    // something to find: this admin exports the omnichannel report
    const exported = await page.request.get(`/report/export?startDate=${today()}&endDate=${today()}&step=day&dashboard=omnichannel`);
    expect(exported.status()).toBe(200);

    await page.goto("/settings/audit");
    if (javaScriptEnabled) await hydrated(page);
    await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();
    const table = page.getByRole("table", { name: "Audit log entries, newest first" });
    const row = table.locator("tbody tr").first();
    await expect(row).toHaveAttribute("data-action", "export.csv");
    await expect(row.getByRole("cell").nth(1)).toHaveText(/CSV exported\s*export\.csv/);
    await expect(row).toContainText("Demo Admin");
    await expect(row).toContainText(`Start date: ${today()}`);
    await expect(row).toContainText("Dashboard: omnichannel");
    // read only: no form posts anywhere on the page, no edit or delete controls
    await expect(page.locator(".audit-log form[method='post']")).toHaveCount(0);
    await expect(table.getByRole("button")).toHaveCount(0);

    // the GET form: a family of actions and a day range
    const filters = page.getByRole("search", { name: "Filter the audit log" });
    await filters.getByLabel("Action", { exact: true }).fill("export");
    await filters.getByLabel("From", { exact: true }).fill(today());
    await filters.getByLabel("To", { exact: true }).fill(today());
    await filters.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(/action=export/);
    await expect(page.getByRole("table", { name: "Audit log entries matching the filters, newest first" })).toBeVisible();
    const actions = await page.locator(".audit-table tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
    expect(actions.length).toBeGreaterThan(0);
    expect(new Set(actions)).toEqual(new Set(["export.csv"]));

    // nothing matches: said so
    await filters.getByLabel("Action", { exact: true }).fill("no.such.action");
    await filters.getByRole("button", { name: "Filter" }).click();
    await expect(page.locator(".audit-log").getByRole("status")).toHaveText("No entries match these filters.");

    // a malformed date (a date input shows it empty): the field's error, read out
    await page.goto("/settings/audit?from=31-12-2025");
    await expect(page.locator(".audit-log").getByRole("alert")).toHaveText("Enter a date as YYYY-MM-DD.");
    await expect(filters.getByLabel("From", { exact: true })).toHaveValue("");
    await page.getByRole("link", { name: "Clear filters" }).click();
    await expect(page).toHaveURL(/\/settings\/audit$/);
    await close();
  });
}

test("agents cannot open the audit log, and nobody can post to it", async ({ browser, baseURL, request }) => {
  const context = await browser.newContext();
  await chooseLanguage(context, baseURL!);
  const page = await context.newPage();
  await login(page, "agent", "agent");
  const response = await page.goto("/settings/audit");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Access denied" })).toBeVisible();
  await expect(page.locator("table")).toHaveCount(0);
  expect((await page.request.post("/settings/audit", { form: {} })).status()).toBe(403);
  await context.close();

  // an admin's post changes nothing either
  const admin = await adminPage(browser, baseURL!, true);
  const post = await admin.page.request.post("/settings/audit", { form: { intent: "delete", id: "1" } });
  expect(post.status()).toBe(405);
  await admin.close();
  // signed out: to the login form
  const stranger = await request.post("/settings/audit", { form: {}, maxRedirects: 0 });
  expect(stranger.status()).toBe(302);
  expect(stranger.headers()["location"]).toBe("/");
});
