import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login, originFor } from "./helpers";

const nav = (page: Page) => page.getByRole("complementary", { name: "Main navigation" });
const menuLink = (page: Page, name: string) => nav(page).getByRole("link", { name, exact: true });

/** Each edition answers its own host names; cookies are per host, so each logs in on its host. */
const EDITIONS = [
  {
    host: "support.localhost",
    id: "support",
    title: "OmniDesk Support",
    shown: ["Tickets", "Live Chat", "Kanban", "Products", "SMS"],
    absent: ["Analyst intelligence", "Calls", "Voicemail", "Voice analysis"],
  },
  {
    host: "call.localhost",
    id: "callcentre",
    title: "OmniDesk Call Centre",
    shown: ["Tickets", "Voice analysis", "Customer analysis"],
    absent: ["Live Chat", "Kanban", "Analyst intelligence", "SMS"],
  },
  {
    host: "trade.localhost",
    id: "trading",
    title: "OmniDesk Trading Insight",
    shown: ["Tickets", "Analyst intelligence", "Prediction validator", "Integrated insight"],
    absent: ["Live Chat", "Kanban", "Calls", "Forms"],
  },
  {
    host: "localhost",
    id: "default",
    title: "OmniDesk",
    shown: ["Tickets", "Live Chat", "Calls", "Voicemail", "Call settings", "Kanban", "SMS"],
    absent: ["Analyst intelligence"],
  },
];

for (const edition of EDITIONS) {
  test(`${edition.host} is the ${edition.title} edition`, async ({ page, context, baseURL }) => {
    const origin = originFor(baseURL!, edition.host);
    await chooseLanguage(context, baseURL!, "en", edition.host);
    await page.goto(`${origin}/`);
    await expect(page).toHaveTitle(edition.title);
    await expect(page.locator("html")).toHaveAttribute("data-edition", edition.id);

    await login(page, "admin", "admin", undefined, origin);
    await expect(page).toHaveTitle(new RegExp(` - ${edition.title}$`));
    await expect(page.locator(".brand")).toHaveText(edition.title);
    for (const name of edition.shown) await expect(menuLink(page, name), name).toBeVisible();
    for (const name of edition.absent) await expect(menuLink(page, name), name).toHaveCount(0);
  });
}

test("the call centre hides Calls, Voicemail and Call settings until edit mode shows them", async ({ page, context, baseURL }) => {
  const origin = originFor(baseURL!, "call.localhost");
  await chooseLanguage(context, baseURL!, "en", "call.localhost");
  await login(page, "admin", "admin", undefined, origin);
  for (const name of ["Calls", "Voicemail", "Call settings"]) await expect(menuLink(page, name)).toHaveCount(0);

  await page.goto(`${origin}/?edit_menu=1`);
  const editor = nav(page).locator("form.menu-edit");
  for (const name of ["Calls", "Voicemail", "Call settings"]) {
    await expect(editor.getByRole("checkbox", { name, exact: true })).toBeVisible();
    await expect(editor.getByRole("checkbox", { name, exact: true })).not.toBeChecked();
  }
  await expect(editor.getByRole("checkbox", { name: "Tickets", exact: true })).toBeChecked();

  await editor.getByRole("checkbox", { name: "Calls", exact: true }).check();
  await editor.getByRole("button", { name: "Save" }).click();
  await expect(menuLink(page, "Calls")).toBeVisible();
  await expect(menuLink(page, "Voicemail")).toHaveCount(0);
});

for (const javaScriptEnabled of [true, false]) {
  test.describe(`menu with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("edit mode: unchecking an item and saving hides it; checking shows it again", async ({ page, context, baseURL }) => {
      await login(page, "admin", "admin");
      await expect(menuLink(page, "Forms")).toBeVisible();

      await nav(page).getByRole("link", { name: "Edit menu" }).click();
      await expect(page).toHaveURL(/edit_menu=1/);
      const editor = nav(page).locator("form.menu-edit");
      await editor.getByRole("checkbox", { name: "Forms", exact: true }).uncheck();
      await editor.getByRole("button", { name: "Save" }).click();
      await expect(page).toHaveURL(`${baseURL}/`);
      await expect(menuLink(page, "Forms")).toHaveCount(0);
      await expect(menuLink(page, "Tickets")).toBeVisible();
      expect((await context.cookies()).find((c) => c.name === "menu_item_visibility")).toBeTruthy();

      await page.reload();
      await expect(menuLink(page, "Forms")).toHaveCount(0);

      await page.goto("/?edit_menu=1");
      await expect(editor.getByRole("checkbox", { name: "Forms", exact: true })).not.toBeChecked();
      await editor.getByRole("checkbox", { name: "Forms", exact: true }).check();
      await editor.getByRole("button", { name: "Save" }).click();
      await expect(menuLink(page, "Forms")).toBeVisible();
    });

    test("minimise toggles nav-min on the shell", async ({ page }) => {
      await login(page, "admin", "admin");
      const shell = page.locator(".shell");
      await expect(shell).not.toHaveClass(/\bnav-min\b/);
      await page.getByRole("button", { name: "Minimise menu" }).click();
      await expect(shell).toHaveClass(/\bnav-min\b/);
      await page.reload();
      await expect(shell).toHaveClass(/\bnav-min\b/);
      await page.getByRole("button", { name: "Expand menu" }).click();
      await expect(shell).not.toHaveClass(/\bnav-min\b/);
    });
  });
}
