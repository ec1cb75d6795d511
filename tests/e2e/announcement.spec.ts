// An admin's announcement reaches open agent pages at once and stays until dismissed.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login, signedInPages } from "./helpers";

test("an announcement shows on open pages without reload; each agent dismisses it, JavaScript on and off", async ({ browser, baseURL }) => {
  const {
    pages: [admin, agent],
    close,
  } = await signedInPages(browser, baseURL!, [
    ["admin", "admin"],
    ["agent", "agent"],
  ]);
  await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);
  const text = `Server maintenance at 18:00 <b>${Date.now()}</b>`;
  await admin.goto("/admin/announcement");
  await admin.getByLabel("Text").fill(text);
  await admin.getByRole("button", { name: "Publish" }).click();
  await expect(admin.getByText("Saved. Open pages show it now.")).toBeVisible();

  const banner = agent.locator(".announcement");
  await expect(banner).toContainText("Announcement from Demo Admin:");
  await expect(banner).toContainText(text);
  await banner.getByRole("button", { name: "Dismiss" }).click();
  await expect(agent.locator(".announcement")).toHaveCount(0);
  await agent.reload();
  await expect(agent.locator(".shell")).toBeVisible();
  await expect(agent.locator(".announcement")).toHaveCount(0);

  // another agent without JavaScript sees it on load and dismisses it with a plain form
  const context = await browser.newContext({ javaScriptEnabled: false });
  await chooseLanguage(context, baseURL!);
  const plain = await context.newPage();
  await login(plain, "agent2", "agent");
  await expect(plain.locator(".announcement")).toContainText(text);
  await plain.locator(".announcement").getByRole("button", { name: "Dismiss" }).click();
  await expect(plain.locator(".shell")).toBeVisible();
  await expect(plain.locator(".announcement")).toHaveCount(0);

  // withdrawn: nobody sees it any more
  await admin.getByRole("button", { name: "Withdraw" }).click();
  await expect(admin.locator(".announcement")).toHaveCount(0);
  await context.close();
  await close();
});
