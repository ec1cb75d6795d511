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
    // other notifications (an SLA alert on another of agent2's tickets) may arrive meanwhile: counts only grow
    const unseen = async () => ((await bell.locator("summary .badge").count()) ? Number(await bell.locator("summary .badge").textContent()) : 0);
    const before = await unseen();

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
    await expect.poll(unseen).toBeGreaterThan(before);
    await bell.locator("summary").click();
    const text = `Demo Admin assigned you to #${number} ${title}`;
    await expect(bell.getByRole("link", { name: text })).toBeVisible();
    // with JavaScript, opening the panel reads the tab it shows (spec section 4); without, Mark all as read does
    if (!javaScriptEnabled) await bell.getByRole("button", { name: "Mark all as read" }).click();
    // on the page (its System tab): the assignment is there, read, and leads to its ticket
    await agent.goto("/notifications?tab=system");
    const entry = agent.locator(".notifications-page .notification-list li", { has: agent.getByRole("link", { name: text }) });
    await expect(entry).toBeVisible();
    await expect(async () => {
      await agent.reload();
      await expect(entry).not.toHaveClass(/unseen/, { timeout: 1000 });
    }).toPass({ timeout: 15_000 });
    await entry.getByRole("link", { name: text }).click();
    await expect(agent).toHaveURL(new RegExp(`/ticket/${number}`));
    await context.close();
    await close();
  });
}
