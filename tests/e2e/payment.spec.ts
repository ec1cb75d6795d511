// Plans and payment through the built-in sandbox provider, with JavaScript on (modal + checkout
// popup polled every second) and off (full-page redirects). Runs its own server on its own
// database so it can put the workspace into an ended trial without touching the other tests.
import { test, expect, type Browser, type Page } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { startServer, stopServer, waitHealthy } from "../support/server-process";
import { chooseLanguage, hydrated, login } from "./helpers";

const port = Number(process.env.E2E_PORT || 3210) + 60;
const base = `http://localhost:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-payment-"));
let server: ChildProcess;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  server = startServer({
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    REDIS_URL: "",
    SESSION_SECRET: "payment-secret",
    NODE_ENV: "test",
    PAYMENT_PROVIDER: "sandbox",
  });
  await waitHealthy(base);
});
test.afterAll(async () => {
  await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The workspace as a trial that has ended, with no payments; billing information optional. */
function endedTrial(billing: boolean, plan = "0", accountType = "0") {
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"));
  db.pragma("busy_timeout = 5000");
  const set = db.prepare("insert into settings (key, value) values (?, ?) on conflict(key) do update set value = excluded.value");
  db.transaction(() => {
    db.exec("delete from invoices; delete from payments;");
    set.run("plan", plan);
    set.run("account_type", accountType);
    set.run("account_expires_at", String(Date.now() - 60_000));
    set.run("seats", "0");
    set.run("billing_name", billing ? "Demo Sdn Bhd" : "");
    set.run("billing_email", billing ? "billing@demo.example" : "");
  })();
  db.close();
}

async function adminPage(browser: Browser, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ baseURL: base, javaScriptEnabled });
  await chooseLanguage(context, base);
  const page = await context.newPage();
  await login(page, "admin", "admin");
  return { page, context };
}

const TRIAL_ENDED = "Your trial has ended. Please upgrade to continue.";
const basicCard = (page: Page) => page.getByRole("listitem", { name: "Basic" });

async function addBillingInformation(page: Page) {
  await expect(page).toHaveURL(`${base}/settings/billing`);
  await page.getByLabel("Company or name on invoices").fill("Demo Sdn Bhd");
  await page.getByLabel("Billing email").fill("not-an-address");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Please check the email address. not-an-address")).toBeVisible();
  await expect(page.getByLabel("Company or name on invoices")).toHaveValue("Demo Sdn Bhd");
  await page.getByLabel("Billing email").fill("billing@demo.example");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Settings updated")).toBeVisible();
}

async function expectBasicActive(page: Page) {
  await page.goto("/plan");
  await expect(page.getByTestId("current-plan")).toHaveText("Basic");
  await expect(page.getByTestId("seats")).toHaveText("3");
  await expect(page.getByTestId("plan-status")).toHaveText("Active");
  await expect(page.getByText(TRIAL_ENDED)).toHaveCount(0);
  // a plan is active: every purchase button is disabled
  for (const plan of ["Starter", "Basic", "Pro"]) await expect(page.getByRole("button", { name: `Buy ${plan}` })).toBeDisabled();
  await page.goto("/settings/billing");
  const payments = page.getByRole("table").first();
  await expect(payments.getByRole("row")).toHaveCount(2);
  await expect(payments).toContainText("MYR 288.36");
  await expect(payments).toContainText("Paid");
  await expect(page.getByRole("table").nth(1)).toContainText(/INV-\d{4}-\d{6}/);
}

test("visitors see the pricing in their country's currency with the Sales and Service Tax", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: base });
  await chooseLanguage(context, base);
  const page = await context.newPage();
  await page.goto("/pricing");
  // loopback address: the home market, Malaysia
  await expect(page.getByTestId("pricing-country")).toContainText("MY");
  await expect(page.getByTestId("price-starter")).toContainText("MYR 49.00");
  await expect(page.getByTestId("price-basic")).toContainText("MYR 89.00 per user per month");
  await expect(page.getByTestId("price-pro")).toContainText("MYR 139.00");
  await expect(basicCard(page)).toContainText("Sales and Service Tax: 8%");
  await expect(page.getByRole("listitem", { name: "Enterprise" }).getByRole("link", { name: "Contact sales" })).toBeVisible();
  const api = await (await page.request.get("/api/pricing?country=SG")).json();
  expect(api).toEqual([
    { plan: 1, name: "starter", currency: "SGD", price: 15, tax: 0 },
    { plan: 2, name: "basic", currency: "SGD", price: 27, tax: 0 },
    { plan: 3, name: "pro", currency: "SGD", price: 42, tax: 0 },
  ]);
  await context.close();
});

test.describe("JavaScript on", () => {
  test("a trial admin buys Basic for 3 users through the sandbox checkout", async ({ browser }) => {
    test.setTimeout(60_000);
    endedTrial(false);
    const { page, context } = await adminPage(browser, true);
    await expect(page.getByText(TRIAL_ENDED)).toBeVisible();
    // trial accounts keep to the base pages
    await page.goto("/ticket");
    await expect(page).toHaveURL(`${base}/`);
    await page.getByRole("link", { name: "Upgrade" }).click();
    await expect(page).toHaveURL(`${base}/plan`);
    await hydrated(page);

    await basicCard(page).getByRole("link", { name: "Buy Basic" }).click();
    const dialog = page.getByRole("dialog", { name: "Buy Basic" });
    const users = dialog.getByLabel("Number of Users");
    await expect(users).toBeVisible();
    const next = dialog.getByRole("button", { name: "Continue" });
    await expect(next).toBeDisabled();
    await expect(dialog.getByText("This cannot be empty.")).toBeVisible();
    await users.pressSequentially("-1.5x");
    await expect(users).toHaveValue("15");
    await users.fill("0");
    await expect(next).toBeDisabled();
    await users.fill("3");
    await expect(dialog.getByText("This cannot be empty.")).toBeHidden();
    await expect(dialog.getByTestId("amount")).toHaveText("MYR 267.00");
    await expect(dialog.getByTestId("tax")).toHaveText("MYR 21.36");
    await expect(dialog.getByTestId("total")).toHaveText("MYR 288.36");

    // no billing information yet
    await next.click();
    await expect(dialog.getByText("Payment failed.")).toBeVisible();
    await expect(dialog.getByText("Billing information could not be found.")).toBeVisible();
    await dialog.getByRole("link", { name: "Add Now" }).click();
    await addBillingInformation(page);

    await page.goto("/plan");
    await hydrated(page);
    await basicCard(page).getByRole("link", { name: "Buy Basic" }).click();
    await dialog.getByLabel("Number of Users").fill("3");
    const popupOpened = context.waitForEvent("page");
    await dialog.getByRole("button", { name: "Continue" }).click();
    const checkout = await popupOpened;
    await expect(checkout.getByRole("heading", { name: "Sandbox checkout" })).toBeVisible();
    await expect(checkout.getByTestId("total")).toHaveText("MYR 288.36");
    // while the checkout is open the modal cannot be closed
    await expect(dialog.getByRole("button", { name: "Close" })).toBeDisabled();
    await checkout.getByRole("button", { name: "Pay (success)" }).click();

    await expect(dialog.getByText("Payment successful. Your plan is active.")).toBeVisible({ timeout: 10_000 });
    await expect.poll(() => checkout.isClosed()).toBe(true);
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(page.getByTestId("current-plan")).toHaveText("Basic");
    await expectBasicActive(page);
    await context.close();
  });

  test("a failed payment shows the provider's description", async ({ browser }) => {
    endedTrial(true);
    const { page, context } = await adminPage(browser, true);
    await page.goto("/plan");
    await hydrated(page);
    await basicCard(page).getByRole("link", { name: "Buy Basic" }).click();
    const dialog = page.getByRole("dialog", { name: "Buy Basic" });
    await dialog.getByLabel("Number of Users").fill("3");
    const popupOpened = context.waitForEvent("page");
    await dialog.getByRole("button", { name: "Continue" }).click();
    const checkout = await popupOpened;
    await checkout.getByLabel("Reason shown to the payer").fill("Insufficient funds <b>test</b>");
    await checkout.getByRole("button", { name: "Fail the payment" }).click();
    await expect(dialog.getByText("Payment failed.")).toBeVisible({ timeout: 10_000 });
    await expect(dialog.getByTestId("payment-desc")).toHaveText("Insufficient funds <b>test</b>");
    await dialog.getByRole("button", { name: "Try again" }).click();
    await expect(dialog.getByLabel("Number of Users")).toHaveValue("3");
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(page.getByTestId("current-plan")).toHaveText("Trial");
    await context.close();
  });
});

test.describe("JavaScript on, checkout closed", () => {
  test("closing the checkout before paying counts as failed", async ({ browser }) => {
    endedTrial(true);
    const { page, context } = await adminPage(browser, true);
    await page.goto("/plan");
    await hydrated(page);
    await basicCard(page).getByRole("link", { name: "Buy Basic" }).click();
    const dialog = page.getByRole("dialog", { name: "Buy Basic" });
    await dialog.getByLabel("Number of Users").fill("2");
    const popupOpened = context.waitForEvent("page");
    await dialog.getByRole("button", { name: "Continue" }).click();
    const checkout = await popupOpened;
    await expect(checkout.getByRole("heading", { name: "Sandbox checkout" })).toBeVisible();
    await expect(dialog.getByRole("status")).toContainText("Waiting for the payment");
    await checkout.close();
    await expect(dialog.getByText("Payment failed.")).toBeVisible({ timeout: 10_000 });
    await dialog.getByRole("button", { name: "Close" }).click();
    // the abandoned payment is still open at the provider: purchases wait for it
    await expect(page.getByText("A payment is already in progress.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Buy Pro" })).toBeDisabled();
    await context.close();
  });
});

test.describe("JavaScript off", () => {
  test("an expired subscription shows the red banner; Pay Now renews the plan", async ({ browser }) => {
    endedTrial(true, "2", "1");
    const { page, context } = await adminPage(browser, false);
    const banner = page.getByRole("alert").filter({ hasText: "You subscription has expired. Please make payment to continue." });
    await expect(banner).toBeVisible();
    await expect(banner.getByRole("link", { name: "Switch Plan" })).toHaveAttribute("href", "/plan");
    await banner.getByRole("link", { name: "Pay Now" }).click();
    await expect(page).toHaveURL(`${base}/payment`);
    await expect(page.getByRole("heading", { name: "Buy Basic" })).toBeVisible();
    await page.getByLabel("Number of Users").fill("2");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByTestId("total")).toHaveText("MYR 192.24");
    await page.getByRole("button", { name: "Pay (success)" }).click();
    await expect(page.getByText("Payment successful. Your plan is active.")).toBeVisible();
    await page.goto("/plan");
    await expect(page.getByTestId("current-plan")).toHaveText("Basic");
    await expect(page.getByTestId("seats")).toHaveText("2");
    await expect(page.getByRole("alert").filter({ hasText: "You subscription has expired." })).toHaveCount(0);
    await context.close();
  });

  test("a trial admin buys Basic for 3 users through the sandbox checkout", async ({ browser }) => {
    test.setTimeout(60_000);
    endedTrial(false);
    const { page, context } = await adminPage(browser, false);
    await expect(page.getByText(TRIAL_ENDED)).toBeVisible();
    await page.getByRole("link", { name: "Upgrade" }).click();
    await basicCard(page).getByRole("link", { name: "Buy Basic" }).click();
    await expect(page).toHaveURL(`${base}/payment?plan=2`);

    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByText("This cannot be empty.")).toBeVisible();
    await page.getByLabel("Number of Users").fill("3");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByText("Payment failed.")).toBeVisible();
    await expect(page.getByText("Billing information could not be found.")).toBeVisible();
    await expect(page.getByLabel("Number of Users")).toHaveValue("3");
    await page.getByRole("link", { name: "Add Now" }).click();
    await addBillingInformation(page);

    await page.goto("/plan");
    await basicCard(page).getByRole("link", { name: "Buy Basic" }).click();
    await page.getByLabel("Number of Users").fill("3");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("heading", { name: "Sandbox checkout" })).toBeVisible();
    await expect(page.getByTestId("total")).toHaveText("MYR 288.36");
    await page.getByRole("button", { name: "Pay (success)" }).click();
    await expect(page).toHaveURL(/\/payment\?ref=PAY-/);
    await expect(page.getByText("Payment successful. Your plan is active.")).toBeVisible();
    await expectBasicActive(page);
    await context.close();
  });

  test("a failed payment shows the provider's description", async ({ browser }) => {
    endedTrial(true);
    const { page, context } = await adminPage(browser, false);
    await page.goto("/payment?plan=2");
    await page.getByLabel("Number of Users").fill("3");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Reason shown to the payer").fill("Card expired (sandbox)");
    await page.getByRole("button", { name: "Fail the payment" }).click();
    await expect(page).toHaveURL(/\/payment\?ref=PAY-/);
    await expect(page.getByText("Payment failed.")).toBeVisible();
    await expect(page.getByTestId("payment-desc")).toHaveText("Card expired (sandbox)");
    await page.goto("/plan");
    await expect(page.getByTestId("current-plan")).toHaveText("Trial");
    await context.close();
  });
});

test("bad input: quantities, tampered prices, bad webhook signatures, someone else's ref", async ({ browser }) => {
  endedTrial(true);
  const { page, context } = await adminPage(browser, true);
  const create = (data: Record<string, unknown>, headers: Record<string, string> = {}) => page.request.post("/api/payment/create", { data, headers });

  for (const quantity of [-3, 0, 1.5, "1.5", "abc", "", 99_999_999, "1e3"]) {
    const response = await create({ plan: 2, quantity, idempotency_key: `bad-${String(quantity)}-key` });
    expect(response.status(), String(quantity)).toBe(400);
    expect(await response.json()).toMatchObject({ result: "failed", description: "This cannot be empty." });
  }
  expect((await create({ plan: 4, quantity: 3 })).status()).toBe(400);
  // a cross-site post is refused before it reaches the route
  expect((await create({ plan: 2, quantity: 3 }, { Origin: "https://evil.example" })).status()).toBe(403);

  // price, amount and total in the request are ignored: the server's table decides
  const response = await create({ plan: 2, quantity: 3, price: 1, amount: 1, total: 1, tax: 0, currency: "USD", idempotency_key: "tampered-1234" });
  expect(response.status()).toBe(200);
  const { payment_ref: ref } = await response.json();
  expect(ref).toMatch(/^PAY-/);
  // the same key again (a double submit) finds the same payment
  expect((await (await create({ plan: 2, quantity: 3, idempotency_key: "tampered-1234" })).json()).payment_ref).toBe(ref);
  expect(await (await page.request.get(`/api/payment/status?ref=${ref}`)).json()).toEqual({ status: "PENDING", payment_desc: "" });
  await page.goto(`/payment/sandbox/${ref}`);
  await expect(page.getByTestId("total")).toHaveText("MYR 288.36");

  // a webhook with a bad signature is refused (cross-origin is allowed on this path only) and changes nothing
  const hook = await page.request.post("/api/payment/webhook/sandbox", {
    form: { id: ref, paid: "true", x_signature: "00" },
    headers: { Origin: "https://provider.example" },
  });
  expect(hook.status()).toBe(400);
  expect(await (await page.request.get(`/api/payment/status?ref=${ref}`)).json()).toMatchObject({ status: "PENDING" });
  expect((await page.request.post("/api/payment/webhook/nope", { form: { id: ref } })).status()).toBe(404);

  // someone else's payment ref: 404; agents cannot buy
  const agentContext = await browser.newContext({ baseURL: base });
  await chooseLanguage(agentContext, base);
  const agent = await agentContext.newPage();
  await login(agent, "agent", "agent");
  const other = await agent.request.get(`/api/payment/status?ref=${ref}`);
  expect(other.status()).toBe(404);
  expect((await agent.goto(`/payment?ref=${ref}`))?.status()).toBe(403);
  expect((await agent.request.post("/api/payment/create", { data: { plan: 2, quantity: 3 } })).status()).toBe(403);
  expect((await page.request.get("/api/payment/status?ref=PAY-doesnotexist")).status()).toBe(404);
  await agentContext.close();
  await context.close();
});
