// The knowledge base end to end, JavaScript on and off: an admin writes an article (a refusal keeps
// the text, an image over the limit is refused with its reason, the preview renders it without its
// script), edits it and restores the first version from the history; a visitor finds it on its
// public address (title, description, canonical link) and by the public search; an internal article
// is not found there; an agent finds it from the conversation's Knowledge base panel, inserts its
// text and its link into the reply and sends it. Every new page passes axe's WCAG 2.1 AA rules.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, hydrated, login } from "./helpers";

/** axe runs its scripts in the page: with JavaScript on only (the markup is the same without). */
async function axe(page: Page, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled) return;
  expect(await axeViolations(page)).toEqual([]);
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`knowledge base with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("an admin writes an article, a visitor finds it, an agent inserts it into a reply", async ({ page, browser, baseURL }) => {
      test.setTimeout(120_000);
      const word = `zeppelin${Date.now().toString(36)}${javaScriptEnabled ? "a" : "b"}`;
      const title = `How do airships carry ${word}?`;
      await login(page, "admin", "admin");
      await page.goto("/kb");
      await expect(page.getByRole("heading", { level: 1, name: "Knowledge base" })).toBeVisible();
      await axe(page, javaScriptEnabled);
      await page.getByRole("link", { name: "New article" }).click();
      await expect(page).toHaveURL(/\/kb\/new$/);
      if (javaScriptEnabled) await hydrated(page);

      // refused without a title: the text stays
      const body = `Parcels travel by **${word}** across the sea.\n\n<script>window.kbInjected = 1</script>`;
      await page.getByLabel("Text (Markdown)").fill(body);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Enter a title.")).toBeVisible();
      await expect(page.getByLabel("Text (Markdown)")).toHaveValue(body);

      // an image over the limit is refused with its reason, the text kept
      await page.getByLabel("Title").fill(title);
      await page.getByLabel("Summary").fill(`All about ${word}.`);
      await page.getByLabel("Category").fill("Shipping");
      await page.getByLabel("Add an image").setInputFiles({ name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(10 * 1024 * 1024, 1) });
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("The image is too large: at most 2 MB. Your text was kept; choose a smaller image.")).toBeVisible();
      await expect(page.getByLabel("Title")).toHaveValue(title);
      await expect(page.getByLabel("Text (Markdown)")).toHaveValue(body);

      // the preview renders the Markdown without its script
      await page.getByRole("button", { name: "Preview" }).click();
      const preview = page.getByTestId("kb-preview");
      await expect(preview.locator("strong")).toHaveText(word);
      await expect(preview.locator("script")).toHaveCount(0);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page).toHaveURL(/\/kb\/\d+\?saved=1$/);
      await expect(page.getByText("Saved (version 1).")).toBeVisible();
      const id = new URL(page.url()).pathname.split("/").at(-1)!;
      await axe(page, javaScriptEnabled);

      // an edit keeps version 1; restoring it makes version 3
      await page.getByLabel("Text (Markdown)").fill(`Parcels travel by ${word} and by boat.`);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Saved (version 2).")).toBeVisible();
      await page.getByRole("link", { name: "History" }).click();
      await expect(page.getByTestId("kb-version-1")).toBeVisible();
      await axe(page, javaScriptEnabled);
      await page.getByRole("button", { name: "Restore version 1" }).click();
      await expect(page.getByText("Version 1 was restored.")).toBeVisible();
      await expect(page.getByText("The article is now at version 3.")).toBeVisible();

      // an internal article of the admin's
      await page.goto("/kb/new");
      await page.getByLabel("Title").fill(`Internal ${word}`);
      await page.getByLabel("Visible to").selectOption("internal");
      await page.getByLabel("Text (Markdown)").fill(`Only for agents ${word}.`);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Saved (version 1).")).toBeVisible();
      const internalId = new URL(page.url()).pathname.split("/").at(-1)!;

      // a visitor (no session) reads it on its public address and finds it by search
      const visitor = await browser.newContext({ javaScriptEnabled, baseURL });
      await chooseLanguage(visitor, baseURL!);
      const pub = await visitor.newPage();
      await pub.goto("/support/kb/en");
      await expect(pub.getByRole("heading", { level: 1, name: "Help centre" })).toBeVisible();
      await axe(pub, javaScriptEnabled);
      await pub.getByRole("searchbox", { name: "Search" }).fill(word);
      await pub.getByRole("button", { name: "Search" }).click();
      await expect(pub.getByText(`1 article for “${word}”`)).toBeVisible();
      await pub.getByRole("link", { name: title }).click();
      await expect(pub).toHaveURL(new RegExp(`/support/kb/en/${id}/how-do-airships-carry-${word}$`));
      await expect(pub.getByRole("heading", { level: 1, name: title })).toBeVisible();
      await expect(pub.locator("article strong")).toHaveText(word);
      await expect(pub.locator('meta[name="description"]')).toHaveAttribute("content", `All about ${word}.`);
      await expect(pub.locator('link[rel="canonical"]')).toHaveAttribute("href", new RegExp(`/support/kb/en/${id}/how-do-airships-carry-${word}$`));
      await expect(pub).toHaveTitle(new RegExp(`^${title.replace("?", "\\?")} - Help centre`));
      if (javaScriptEnabled) expect(await pub.evaluate(() => (window as unknown as { kbInjected?: number }).kbInjected)).toBeUndefined();
      await axe(pub, javaScriptEnabled);
      expect((await pub.request.get(`/support/kb/en/${internalId}`)).status()).toBe(404);
      expect((await pub.request.get(`/support/manual/en/${id}`)).status()).toBe(404);
      await visitor.close();

      // an agent finds it from a conversation's panel, inserts its text and link, and sends them
      const agentContext = await browser.newContext({ javaScriptEnabled, baseURL });
      await chooseLanguage(agentContext, baseURL!);
      const agent = await agentContext.newPage();
      await login(agent, "agent", "agent");
      await agent.goto("/ticket");
      const ticket = await agent.locator(".ticket-item").first().getAttribute("data-ticket");
      await agent.goto(`/ticket/${ticket}`);
      if (javaScriptEnabled) await hydrated(agent);
      const panel = agent.locator('[data-panel="kb"]');
      await expect(panel.getByRole("heading", { name: "Knowledge base" })).toBeVisible();
      await panel.getByLabel("Search articles").fill(word);
      await panel.getByRole("button", { name: "Search" }).click();
      await expect(panel.getByRole("link", { name: `${title} (English)` })).toBeVisible();
      await expect(panel.getByText(`Internal ${word} (English, internal)`)).toBeVisible();
      const item = panel.locator("li", { hasText: `${title} (English)` });
      await item.getByRole("link", { name: "Insert text" }).click();
      // (its label's name takes in the text it starts with: found by its name attribute)
      const box = agent.locator('#reply textarea[name="message"]');
      await expect(box).toHaveValue(new RegExp(`Parcels travel by ${word} across the sea\\.`));
      await expect(box).not.toHaveValue(/kbInjected/);
      if (javaScriptEnabled) {
        await item.getByRole("link", { name: "Insert link" }).click();
        await expect(box).toHaveValue(new RegExp(`across the sea\\.\\s+http://[^ ]+/support/kb/en/${id}/how-do-airships-carry-${word}$`));
      }
      await agent.getByRole("button", { name: "Send", exact: true }).click();
      await expect(agent.locator(".message", { hasText: `Parcels travel by ${word} across the sea.` })).toBeVisible();
      await expect(box).toHaveValue("");
      await agentContext.close();
    });
  });
}
