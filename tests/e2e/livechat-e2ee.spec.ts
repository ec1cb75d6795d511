// An end-to-end encrypted live chat in two browsers (decision 048): the visitor's (its own key,
// made there and kept in its IndexedDB) and the agent's (a key from /e2ee/keys). The agent turns
// encryption on with the panel's real form once the visitor's browser published its key; messages
// then go both ways sealed, each opened in the other browser, and the server's database holds none
// of their text. Without JavaScript the visitor's page says that it cannot encrypt (before) and
// that it cannot read or send (after), and a plain message is refused with its text kept.
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";

const PASSPHRASE = "pelican harbour 2026";
const AGENT_SECRET = `agent-PLAINTEXT-walrus-${Date.now()}`;
const VISITOR_SECRET = `visitor-PLAINTEXT-ibis-${Date.now()}`;

async function setUpKey(page: Page) {
  await page.goto("/e2ee/keys");
  await hydrated(page);
  const setup = page.locator("form", { has: page.getByRole("heading", { name: "Set up a new key" }) });
  await setup.getByLabel("Passphrase (at least 10 characters)").fill(PASSPHRASE);
  await setup.getByLabel("Passphrase again").fill(PASSPHRASE);
  await setup.getByRole("button", { name: "Create my key" }).click();
  await expect(page.getByText("Your key was created and its backup stored.")).toBeVisible({ timeout: 20_000 });
}

/** Every text column of every table of the server's database, as one string. */
function databaseText() {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const db = new Database(path.join(dir, "omnidesk.sqlite"), { readonly: true });
  db.pragma("busy_timeout = 5000");
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map(({ name }) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all())).join("\n");
  } finally {
    db.close();
  }
}

test("an encrypted live chat: the visitor's own key, sealed both ways, no plaintext on the server, the honest no-JS page", async ({ browser, baseURL }) => {
  test.setTimeout(180_000);
  const agentContext = await browser.newContext();
  await chooseLanguage(agentContext, baseURL!);
  const agent = await agentContext.newPage();
  await login(agent, "agent", "agent");
  await setUpKey(agent);
  await agent.goto("/livechat");
  await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);

  // the visitor (JavaScript on) joins the queue; its browser publishes its key meanwhile
  const visitorContext = await browser.newContext();
  const v = await visitorContext.newPage();
  const name = `Iris ${Date.now()}`;
  await v.goto("/livechat/demo");
  await v.getByRole("link", { name: "Continue" }).click();
  await v.getByLabel("Name").fill(name);
  await v.getByLabel("Phone").fill("+60 12 345 6789");
  await v.getByLabel("Email").fill(`iris${Date.now()}@example.com`);
  await v.getByLabel("Message").fill("Hello, a question about my account");
  const published = v.waitForResponse((r) => /\/livechat\/[^/]+\/e2ee$/.test(new URL(r.url()).pathname) && r.request().method() === "POST");
  await v.getByRole("button", { name: "Connect" }).click();
  await expect(v.getByText(/Your queue number is \d+/)).toBeVisible();
  expect((await published).status()).toBe(200);
  const visitUrl = v.url();

  // without JavaScript the same chat says it cannot be encrypted there
  const plainContext = await browser.newContext({ javaScriptEnabled: false });
  const noJs = await plainContext.newPage();

  await agent.locator(".queue li", { hasText: name }).getByRole("button", { name: "Accept" }).click();
  await expect(agent).toHaveURL(/\/livechat\/\d+$/);
  const chatUrl = new URL(agent.url()).pathname;
  await expect(v.getByRole("textbox", { name: "Message" })).toBeVisible({ timeout: 10_000 });
  await noJs.goto(visitUrl);
  await expect(noJs.getByText("Your browser runs without JavaScript, so this chat cannot be end-to-end encrypted")).toBeVisible();

  // the agent turns encryption on (a real form); their browser makes key version 1, wrapped for the visitor too
  const panel = agent.locator('[data-panel="e2ee"]');
  await panel.getByRole("link", { name: "Turn on encryption" }).click();
  await agent.getByRole("button", { name: "Turn on encryption" }).click();
  await expect(agent).toHaveURL(new RegExp(`${chatUrl}$`));
  await hydrated(agent);
  await expect(panel.getByText(/key version 1\./)).toBeVisible({ timeout: 20_000 });

  // the agent's sealed message, opened in the visitor's browser
  await agent.getByRole("textbox", { name: "Reply", exact: true }).fill(AGENT_SECRET);
  await agent.getByRole("button", { name: "Send" }).click();
  await expect(agent.locator('[data-e2ee-state="decrypted"]', { hasText: AGENT_SECRET })).toBeVisible({ timeout: 20_000 });
  await expect(v.locator('.live-messages li.theirs [data-e2ee-state="decrypted"]', { hasText: AGENT_SECRET })).toBeVisible({ timeout: 20_000 });
  await expect(v.getByText("End-to-end encrypted: new messages are sealed in your browser")).toBeVisible();

  // the visitor's sealed message, opened in the agent's browser
  const box = v.getByRole("textbox", { name: "Message" });
  await box.fill(VISITOR_SECRET);
  await v.getByRole("button", { name: "Send" }).click();
  await expect(box).toHaveValue("", { timeout: 20_000 });
  await expect(agent.locator('[data-e2ee-state="decrypted"]', { hasText: VISITOR_SECRET })).toBeVisible({ timeout: 20_000 });
  await expect(v.locator('.live-messages li.mine [data-e2ee-state="decrypted"]', { hasText: VISITOR_SECRET })).toBeVisible({ timeout: 20_000 });

  // the server's database has neither text (the plain first line, from before, is there: the dump is real)
  const stored = databaseText();
  expect(stored).toContain("Hello, a question about my account");
  expect(stored).not.toContain(AGENT_SECRET);
  expect(stored).not.toContain(VISITOR_SECRET);
  expect(stored).not.toContain("PLAINTEXT");

  // without JavaScript: the messages are shown as encrypted, and a plain message is refused, kept in the box
  await noJs.goto(visitUrl);
  await expect(noJs.getByText("This chat is end-to-end encrypted: reading and sending messages here needs JavaScript.").first()).toBeVisible();
  const frame = noJs.frameLocator("iframe.messages-frame");
  await expect(frame.getByText("Encrypted message (needs JavaScript to decrypt)").first()).toBeVisible();
  await noJs.getByRole("textbox", { name: "Message" }).fill("sent without a key");
  await noJs.getByRole("button", { name: "Send" }).click();
  await expect(noJs.getByText("This chat is end-to-end encrypted: reading and sending messages here needs JavaScript.").first()).toBeVisible();
  await expect(noJs.getByRole("textbox", { name: "Message" })).toHaveValue("sent without a key");
  expect(databaseText()).not.toContain("sent without a key");

  await Promise.all([agentContext.close(), visitorContext.close(), plainContext.close()]);
});
