// Notifications: being assigned to a conversation reaches the agent at once (JS on) or on the
// next page (JS off); the panel links to it; Mark all as read clears the count.
import { test, expect } from "@playwright/test";
import { chooseLanguage, login, showList, signedInPages } from "./helpers";

for (const javaScriptEnabled of [true, false]) {
  test(`assigning an agent notifies them, JavaScript ${javaScriptEnabled ? "on" : "off"}`, async ({ browser, baseURL }) => {
    const {
      pages: [admin],
      close,
    } = await signedInPages(browser, baseURL!, [["admin", "admin"]]);
    const context = await browser.newContext({ javaScriptEnabled });
    await chooseLanguage(context, baseURL!);
    const agent = await context.newPage();
    await login(agent, "agent2", "agent");
    if (javaScriptEnabled) await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);
    const bell = agent.locator(".notification-bell");
    const before = (await bell.locator("summary .badge").count()) ? Number(await bell.locator("summary .badge").textContent()) : 0;

    // the admin assigns agent2 to a ticket of their list agent2 is not in yet
    const people = admin.getByLabel("Add a person");
    for (let i = 0; ; i++) {
      await showList(admin);
      const item = admin.locator(".ticket-item").nth(i);
      const n = await item.getAttribute("data-ticket");
      await item.locator(".title").click();
      // this ticket's page, not the one before it (the list is beside it on wide screens)
      await expect(admin).toHaveURL(new RegExp(`/ticket/${n}(\\?|$)`));
      await expect(admin.getByRole("heading", { level: 1 })).toContainText(`#${n}`);
      await expect(people).toBeVisible();
      if ((await people.locator('option[value="agent2"]').count()) === 1) break;
    }
    const title = (await admin.getByRole("heading", { level: 1 }).textContent())!.replace(/^#\d+\s*/, "");
    const number = /\/ticket\/(\d+)/.exec(admin.url())![1];
    await people.selectOption("agent2");
    await admin.getByLabel("as assignee").check();
    await admin.getByRole("button", { name: "Add" }).click();
    await expect(admin.locator(".participants")).toContainText("Brian Agent");

    if (!javaScriptEnabled) await agent.reload();
    await expect(bell.locator("summary .badge")).toHaveText(String(before + 1));
    await bell.locator("summary").click();
    const item = bell.getByRole("link", { name: `Demo Admin assigned you to #${number} ${title}` });
    await expect(item).toBeVisible();
    await bell.getByRole("button", { name: "Mark all as read" }).click();
    await expect(agent.locator(".notification-bell summary .badge")).toHaveCount(0);
    await agent.goto("/notifications");
    await agent.getByRole("link", { name: `Demo Admin assigned you to #${number} ${title}` }).click();
    await expect(agent).toHaveURL(new RegExp(`/ticket/${number}`));
    await context.close();
    await close();
  });
}
