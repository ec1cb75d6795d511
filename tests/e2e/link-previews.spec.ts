// Rich links (spec sections 1 and 2): a message's link shows its stored preview, rendered on the
// server as plain text (so also with JavaScript off), and the rich-links toggle turns previews off.
// The preview is put in the server's database directly: the test machine has no internet, and the
// fetch itself (with its SSRF guard) has unit tests (tests/unit/link-preview.test.ts).
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { test, expect, type Page } from "@playwright/test";
import { PASSWORD, chooseLanguage, login } from "./helpers";

function storePreview(url: string, title: string, description: string) {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const db = new Database(path.join(dir, "omnidesk.sqlite"));
  db.pragma("busy_timeout = 5000");
  try {
    // fresh: the job queued by the reply finds it and fetches nothing
    db.prepare("INSERT INTO link_previews (url_hash, url, state, title, description, image, fetched_at) VALUES (?, ?, 'ok', ?, ?, '', ?)").run(
      createHash("sha256").update(url).digest("hex"),
      url,
      title,
      description,
      Date.now(),
    );
  } finally {
    db.close();
  }
}

async function setRichLinks(page: Page, on: boolean) {
  await page.goto("/settings");
  const button = page.getByRole("button", { name: on ? "Turn on" : "Turn off", exact: true });
  if (await button.isVisible()) await button.click();
  await expect(page.getByText(on ? "Rich links: On" : "Rich links: Off")).toBeVisible();
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`link previews with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });

    test("a link's preview shows under its message, escaped, and the toggle turns previews off", async ({ page, request, context, baseURL }) => {
      const url = `https://docs.example.com/guide/${randomBytes(4).toString("hex")}`;
      storePreview(url, "The <b>guide</b> title", "How to set things up & more");
      const admin = (await (await request.post("/api/auth2", { data: { client: "admin", password: PASSWORD, type: "admin" } })).json()).token;
      const ticket = (await (await request.get(`/api/ticket/load/${admin}/4/ticket/0`)).json()).data[0];
      const sent = await request.post("/api/ticket/message/reply", { data: { _token: admin, ticket_id: ticket.id, message: `Read this: ${url}` } });
      expect((await sent.json()).result).toBe("success");

      await chooseLanguage(context, baseURL!);
      await login(page, "admin", "admin");
      await setRichLinks(page, true);
      await page.goto(`/ticket/${ticket.ticket_number}`);
      const preview = page.locator(`a.link-preview[href="${url}"]`);
      await expect(preview).toBeVisible();
      // the title is text: its markup shows as written, nothing is bold
      await expect(preview).toContainText("The <b>guide</b> title");
      await expect(preview).toContainText("How to set things up & more");
      await expect(preview).toContainText("docs.example.com");
      await expect(preview.locator("b")).toHaveCount(0);

      await setRichLinks(page, false);
      await page.goto(`/ticket/${ticket.ticket_number}`);
      await expect(page.getByText(`Read this: ${url}`).first()).toBeVisible();
      await expect(page.locator("a.link-preview")).toHaveCount(0);
      await setRichLinks(page, true);
    });
  });
}
