// Products end to end, JavaScript on and off: an admin adds a product with an image (a first try
// with a price that is not a number and a file that is not an image is refused, every typed field
// kept); an agent finds it by its SKU in any case, opens it, links it to a ticket of theirs by the
// ticket's number and sees the ticket listed under it.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, login } from "./helpers";

/** A real 1x1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

/** The pages beyond the menu's list (which the axe guard crawls) pass WCAG 2.1 AA too: the form with its errors, a product, its links (axe runs in the page: with JavaScript on). */
async function expectAccessible(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`Products with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an admin adds a product with an image; an agent finds it and links it to a ticket", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      const tail = `${javaScriptEnabled ? "JS" : "NOJS"}-${Date.now() % 1_000_000}`;
      const sku = `BLEND-${tail}`;
      const name = `Power Blender ${tail}`;

      await login(page, "admin", "admin");
      await page.goto("/product");
      // the demo catalogue: the keypress product list's categories
      await expect(page.getByLabel("Category")).toContainText("Washing Machine");
      await page.getByRole("link", { name: "New product" }).click();
      await expect(page.getByRole("heading", { name: "New product" })).toBeVisible();
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("SKU", { exact: true }).fill(sku);
      await page.getByLabel("Category", { exact: true }).fill("Kitchen");
      await page.getByLabel("Price", { exact: true }).fill("twelve");
      await page.getByLabel("Description", { exact: true }).fill("Crushes ice.");
      await page.getByLabel("Image", { exact: true }).setInputFiles({ name: "notes.png", mimeType: "image/png", buffer: Buffer.from("not an image at all") });
      await page.getByRole("button", { name: "Add product" }).click();

      await expect(page.getByText("The price must be a number, like 1299.00.")).toBeVisible();
      await expect(page.getByText("This file is not an image")).toBeVisible();
      await expect(page.getByLabel("Price", { exact: true })).toHaveAttribute("aria-invalid", "true");
      await expect(page.getByLabel("Name", { exact: true })).toHaveValue(name);
      await expect(page.getByLabel("SKU", { exact: true })).toHaveValue(sku);
      await expect(page.getByLabel("Category", { exact: true })).toHaveValue("Kitchen");
      await expect(page.getByLabel("Description", { exact: true })).toHaveValue("Crushes ice.");
      await expect(page.getByLabel("Price", { exact: true })).toHaveValue("twelve");
      if (javaScriptEnabled) await expectAccessible(page);

      await page.getByLabel("Price", { exact: true }).fill("1299.50");
      await page.getByLabel("Image", { exact: true }).setInputFiles({ name: "blender.png", mimeType: "image/png", buffer: PNG });
      await page.getByRole("button", { name: "Add product" }).click();
      await expect(page).toHaveURL(/\/product\/\d+\?saved=1$/);
      await expect(page.getByText("The product was saved.")).toBeVisible();
      await expect(page.getByRole("heading", { name })).toBeVisible();
      await expect(page.getByTestId("product-price")).toHaveText(/^MYR\s1,299\.50$/);
      const image = page.getByRole("img", { name: `Picture of ${name}` });
      await expect(image).toBeVisible();
      expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
      if (javaScriptEnabled) await expectAccessible(page);

      // the agent, in a browser of their own
      const context = await browser.newContext({ baseURL, javaScriptEnabled });
      await chooseLanguage(context, baseURL!);
      const agent = await context.newPage();
      await login(agent, "agent", "agent");
      const number = await agent.locator(".ticket-item").first().getAttribute("data-ticket");
      expect(number).toMatch(/^\d+$/);
      await agent.goto("/product");
      await expect(agent.getByRole("link", { name: "New product" })).toHaveCount(0);
      await agent.getByLabel("Name or SKU").fill(sku.toLowerCase());
      await agent.getByRole("button", { name: "Search" }).click();
      await expect(agent.getByText("1 product", { exact: true })).toBeVisible();
      await agent.getByRole("link", { name }).click();
      await expect(agent.getByRole("heading", { name })).toBeVisible();
      await expect(agent.getByText("No linked tickets you can read.")).toBeVisible();
      await agent.getByLabel("Ticket number").fill(`#${number}`);
      await agent.getByRole("button", { name: "Link to ticket" }).click();
      await expect(agent.getByText("The ticket was linked.")).toBeVisible();
      const row = agent.getByTestId(`linked-${number}`);
      await expect(row).toContainText("Alya Agent");
      await expect(row.getByRole("link", { name: `#${number}` })).toHaveAttribute("href", new RegExp(`/${number}$`));
      // a number that is no ticket of theirs is refused, the number kept
      await agent.getByLabel("Ticket number").fill("99999999");
      await agent.getByRole("button", { name: "Link to ticket" }).click();
      await expect(agent.getByText("No ticket #99999999 that you can read.")).toBeVisible();
      await expect(agent.getByLabel("Ticket number")).toHaveValue("99999999");
      if (javaScriptEnabled) await expectAccessible(agent);
      await context.close();
    });
  });
}
