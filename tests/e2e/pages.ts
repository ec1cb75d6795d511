// The pages the guards of issue 23 visit (tests/e2e/axe.spec.ts, tests/e2e/language-leak.spec.ts):
// every page an admin reaches from the menu and the settings page, a conversation, search and a
// report, and the public pages. The menu is crawled, so a page that gains a menu link is checked
// by every guard from then on.
import type { Page } from "@playwright/test";

/** Pages a stranger sees: sign-in, new ticket, live chat, survey, sign-up, 404. */
export const PUBLIC_PAGES = ["/", "/new_ticket/demo", "/livechat/demo", "/survey/demo", "/signup", "/no-such-page"];

/** Same-site links of the page's menu and navigation, without query or hash. */
async function linksOf(page: Page, selector: string) {
  const hrefs = await page.locator(`${selector} a[href^="/"]`).evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  return hrefs.map((h) => h.split(/[?#]/)[0]).filter((h) => h && !h.startsWith("/logout") && !h.startsWith("/files/"));
}

/**
 * The signed-in pages, sorted: the menu's links, the settings pages, the first ticket of the list,
 * a search, a profile, a report of a ticket, preferences, notifications and WhatsApp's template page. `page` is signed in as
 * an admin; it is left on the last page it visited.
 */
export async function adminPages(page: Page): Promise<string[]> {
  await page.goto("/ticket");
  const pages = new Set(await linksOf(page, "#menu"));
  pages.add(`/ticket/${await page.locator(".ticket-item").first().getAttribute("data-ticket")}`);
  await page.goto("/settings");
  for (const link of await linksOf(page, "main")) if (link.startsWith("/settings")) pages.add(link);
  for (const extra of ["/search?q=refund", "/contacts/fields", "/profile", "/report/ticket/4", "/preferences", "/notifications", "/e2ee/keys"])
    pages.add(extra);
  // pages a conversation leads to: WhatsApp's template page (closed window)
  await page.goto("/ticket?channel=WHATSAPP");
  const whatsapp = await page.locator(".ticket-item").first().getAttribute("data-ticket");
  if (whatsapp) pages.add(`/whatsapp/template/${whatsapp}`);
  // the knowledge base's pages of one article (edit, history, delete): the first listed, else one written here
  for (const kb of await knowledgeBasePages(page)) pages.add(kb);
  return [...pages].sort();
}

/** /kb/new and an article's edit, history and delete pages (an article is written when there is none). */
async function knowledgeBasePages(page: Page) {
  await page.goto("/kb");
  const listed = page.locator(".kb-list tbody a[href^='/kb/']").first();
  let href = (await listed.count()) ? await listed.getAttribute("href") : null;
  if (!href) {
    await page.goto("/kb/new");
    const form = page.locator("form", { has: page.locator('textarea[name="body"]') });
    await form.locator('input[name="title"]').fill("Guard article");
    await form.locator('textarea[name="body"]').fill("Written by the page guards.");
    await form.locator('button[name="intent"][value="save"]').click();
    await page.waitForURL(/\/kb\/\d+\?saved=1$/);
    href = new URL(page.url()).pathname;
  }
  return ["/kb/new", href, `${href}/history`, `${href}/delete`];
}
