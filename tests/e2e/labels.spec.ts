// The labels admin at /settings/labels (JS on and off) and its API twins /api/label/get and
// /api/label/update. Labels created here are deleted again; the seeded ones (ids 1-6) stay as they are.
import { test, expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { chooseLanguage, login, PASSWORD } from "./helpers";

const SEEDED_NAMES = ["Urgent", "VIP", "Complaint", "Refund", "Feedback", "Spam"];

const field = (row: Locator, name: string) => row.locator(`input[name="${name}"]`);
const newRow = (page: Page) => page.locator("tr.label-new").first();
const savedRows = (page: Page) => page.locator("tr[data-label-id]");
const save = (page: Page) => page.getByRole("button", { name: "Save", exact: true }).click();

async function fillRow(row: Locator, values: Partial<Record<"name" | "color" | "colorDark" | "level" | "sla", string>>) {
  for (const [name, value] of Object.entries(values)) await field(row, name).fill(value);
}

async function expectRow(row: Locator, values: Partial<Record<"name" | "color" | "colorDark" | "level" | "sla", string>>) {
  for (const [name, value] of Object.entries(values)) await expect(field(row, name), name).toHaveValue(value);
}

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? "on" : "off";
  test.describe(`labels admin with JavaScript ${mode}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("creates a label, refuses bad input keeping what was typed, and deletes it", async ({ page }) => {
      const name = `E2E label JS ${mode}`;
      await login(page, "admin", "admin");
      await page.locator(".user-menu summary").click();
      await page.locator(".user-menu").getByRole("link", { name: "Labels" }).click();
      await expect(page).toHaveURL(/\/settings\/labels$/);
      await expect(page.getByRole("heading", { name: "Labels" })).toBeVisible();

      // every seeded label is a row of inputs; one new row waits with the defaults
      const before = await savedRows(page).count();
      expect(before).toBeGreaterThanOrEqual(SEEDED_NAMES.length);
      await expectRow(savedRows(page).first(), { name: "Urgent", color: "#d32f2f", colorDark: "#ef9a9a", level: "3", sla: "15" });
      await expect(page.locator("tr.label-new")).toHaveCount(1);
      await expectRow(newRow(page), { name: "", color: "#000000", colorDark: "#000000", level: "0", sla: "30" });
      await expect(page.getByRole("button", { name: "Add another row" })).toHaveCount(javaScriptEnabled ? 1 : 0);

      // create
      await fillRow(newRow(page), { name, color: "#12ab34", colorDark: "#A0B0C0", level: "2", sla: "45" });
      await save(page);
      await expect(page.getByRole("status")).toHaveText("Label updated.");
      await expect(page).toHaveURL(/\/settings\/labels\?saved=1$/);
      await expect(savedRows(page)).toHaveCount(before + 1);
      const created = savedRows(page).last();
      await expectRow(created, { name, color: "#12ab34", colorDark: "#a0b0c0", level: "2", sla: "45" });
      const id = await created.getAttribute("data-label-id");
      expect(Number(id)).toBeGreaterThan(SEEDED_NAMES.length);
      const row = page.locator(`tr[data-label-id="${id}"]`);
      // the inputs are named by their column and row
      await expect(page.getByRole("textbox", { name: `Name #${id}` })).toHaveValue(name);

      // a bad colour: the message, and every typed value is still there
      await fillRow(row, { color: "#12345", level: "5" });
      await fillRow(newRow(page), { name: "Typed but not saved", sla: "99" });
      await save(page);
      await expect(page.getByRole("alert")).toHaveText("Color format is not correct");
      await expect(page.getByRole("status")).toHaveCount(0);
      await expectRow(row, { name, color: "#12345", level: "5", sla: "45" });
      await expect(field(row, "color")).toHaveAttribute("aria-invalid", "true");
      await expectRow(newRow(page), { name: "Typed but not saved", sla: "99" });

      // an empty name (the new row still holds its text from the refused post)
      await fillRow(row, { color: "#12ab34", name: "" });
      await save(page);
      await expect(page.getByRole("alert")).toHaveText("Please check all the fields are not empty.");
      await expectRow(row, { name: "", color: "#12ab34", level: "5" });
      await expect(field(row, "name")).toHaveAttribute("aria-invalid", "true");

      // an SLA that is not a whole number
      await fillRow(row, { name, sla: "abc" });
      await save(page);
      await expect(page.getByRole("alert")).toHaveText("Priority level and SLA must be whole number.");
      await expectRow(row, { name, sla: "abc", level: "5" });

      // nothing of the refused posts was saved
      await page.goto("/settings/labels");
      await expect(savedRows(page)).toHaveCount(before + 1);
      await expectRow(row, { name, color: "#12ab34", level: "2", sla: "45" });
      await expectRow(newRow(page), { name: "", sla: "30" });

      // delete it
      await row.locator('input[name="delete"]').check();
      await save(page);
      await expect(page.getByRole("status")).toHaveText("Label updated.");
      await expect(row).toHaveCount(0);
      await expect(savedRows(page)).toHaveCount(before);
      await expectRow(savedRows(page).first(), { name: "Urgent" });
    });
  });
}

test("with JavaScript, Add another row adds new rows that survive a refused save", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "admin", "admin");
  await page.goto("/settings/labels");
  const before = await savedRows(page).count();
  await page.getByRole("button", { name: "Add another row" }).click();
  await expect(page.locator("tr.label-new")).toHaveCount(2);
  const rows = page.locator("tr.label-new");
  await fillRow(rows.nth(0), { name: "E2E first" });
  await fillRow(rows.nth(1), { name: "E2E second", level: "1.5" });
  await save(page);
  await expect(page.getByRole("alert")).toHaveText("Priority level and SLA must be whole number.");
  // both typed rows come back once each, plus one blank row
  await expect(rows).toHaveCount(3);
  await expectRow(rows.nth(1), { name: "E2E second", level: "1.5" });
  await fillRow(rows.nth(1), { level: "1" });
  await save(page);
  await expect(page.getByRole("status")).toHaveText("Label updated.");
  await expect(savedRows(page)).toHaveCount(before + 2);
  await expect(page.locator("tr.label-new")).toHaveCount(1);

  for (const name of ["E2E first", "E2E second"]) {
    const id = await savedRows(page).evaluateAll(
      (trs, n) => trs.find((tr) => (tr.querySelector('input[name="name"]') as HTMLInputElement).value === n)?.getAttribute("data-label-id"),
      name,
    );
    await page.locator(`tr[data-label-id="${id}"] input[name="delete"]`).check();
  }
  await save(page);
  await expect(page.getByRole("status")).toHaveText("Label updated.");
  await expect(savedRows(page)).toHaveCount(before);
});

test("an agent is refused the labels page", async ({ page, context, baseURL }) => {
  await chooseLanguage(context, baseURL!);
  await login(page, "agent", "agent");
  const response = await page.goto("/settings/labels");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Access denied" })).toBeVisible();
  await expect(page.locator(".labels-table")).toHaveCount(0);
  const post = await page.request.post("/settings/labels", {
    form: { id: "", name: "Sneaky", color: "#000000", colorDark: "#000000", level: "0", sla: "30" },
    maxRedirects: 0,
  });
  expect(post.status()).toBe(403);
});

async function token(request: APIRequestContext, client: string, type: "admin" | "agent") {
  const res = await request.post("/api/auth2", { data: { client, password: PASSWORD, type } });
  const body = await res.json();
  expect(body.result).toBe("success");
  return body.token as string;
}

test("the API lists and updates labels", async ({ request }) => {
  const admin = await token(request, "admin", "admin");
  const agent = await token(request, "agent", "agent");

  expect((await request.get("/api/label/get")).status()).toBe(403);
  const listed = await request.get(`/api/label/get?_token=${admin}`);
  expect(listed.status()).toBe(200);
  const labels = await listed.json();
  expect(labels[0]).toEqual({ id: 1, name: "Urgent", color: "#d32f2f", colorDark: "#ef9a9a", level: 3, sla: 15 });
  expect(labels.map((l: { name: string }) => l.name).slice(0, 6)).toEqual(SEEDED_NAMES);
  // agents may read the labels
  expect((await request.get(`/api/label/get?_token=${agent}`)).status()).toBe(200);

  // update needs a token and an admin
  const anonymous = await request.post("/api/label/update", { data: { labelArray: [] } });
  expect(anonymous.status()).toBe(403);
  const byAgent = await request.post("/api/label/update", {
    data: { _token: agent, labelArray: JSON.stringify([{ name: "X", color: "#000000", colorDark: "#000000", level: 0, sla: 30 }]) },
  });
  expect(byAgent.status()).toBe(403);
  expect(await byAgent.json()).toMatchObject({ result: "failed" });

  // create with a JSON string, as the spec's clients send it
  const created = await request.post("/api/label/update", {
    data: {
      _token: admin,
      labelArray: JSON.stringify([{ name: "E2E API", color: "#010203", colorDark: "#0a0b0c", level: 1, sla: 20, isNew: true }]),
      delete: "[]",
    },
  });
  expect(created.status()).toBe(200);
  const afterCreate = await created.json();
  const mine = afterCreate.find((l: { name: string }) => l.name === "E2E API");
  expect(mine).toMatchObject({ color: "#010203", colorDark: "#0a0b0c", level: 1, sla: 20 });
  expect(afterCreate).toHaveLength(labels.length + 1);

  // the spec's failure texts, with nothing changed
  const failures: [unknown, unknown, string][] = [
    [[{ ...mine, color: "#12345" }], [], "Color format is not correct"],
    [[{ ...mine, name: "" }], [], "Please check all the fields are not empty."],
    [[{ ...mine, sla: "abc" }], [], "Priority level and SLA must be whole number."],
    ["[{oops", [], "Please check the input."],
    [[{ ...mine, name: "Renamed" }], [99999], "Please check the input."],
  ];
  for (const [labelArray, del, description] of failures) {
    const res = await request.post("/api/label/update", { data: { _token: admin, labelArray, delete: del } });
    expect(res.status(), description).toBe(400);
    expect(await res.json()).toEqual({ result: "failed", description });
  }
  expect(await (await request.get(`/api/label/get?_token=${admin}`)).json()).toEqual(afterCreate);

  // update (array body, form-encoded works too), then delete
  const renamed = await request.post("/api/label/update", { form: { _token: admin, labelArray: JSON.stringify([{ ...mine, name: "E2E API renamed" }]) } });
  expect(renamed.status()).toBe(200);
  expect((await renamed.json()).find((l: { id: number }) => l.id === mine.id).name).toBe("E2E API renamed");
  const deleted = await request.post("/api/label/update", { data: { _token: admin, labelArray: [], delete: [mine.id] } });
  expect(deleted.status()).toBe(200);
  expect(await deleted.json()).toEqual(labels);
});
