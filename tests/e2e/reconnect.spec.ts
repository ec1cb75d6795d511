// The server goes away and comes back while an agent has a conversation open: the page says
// 'No connection', reconnects by itself, and a message written meanwhile shows exactly once.
// This test runs its own server (on its own port and database) so it can stop and restart it.
import { test, expect } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import { startServer, stopServer as stop, waitHealthy } from "../support/server-process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { chooseLanguage, login } from "./helpers";

const port = Number(process.env.E2E_PORT || 3210) + 77;
const base = `http://localhost:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-reconnect-"));

const start = () =>
  startServer({ PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "", SESSION_SECRET: "reconnect-secret", NODE_ENV: "test" });
const healthy = () => waitHealthy(base);

let server: ChildProcess;
test.beforeAll(async () => {
  server = start();
  await healthy();
});
test.afterAll(async () => {
  await stop(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("banner, reconnect and the missed message exactly once", async ({ browser }) => {
  test.setTimeout(90_000);
  const context = await browser.newContext({ baseURL: base });
  await chooseLanguage(context, base);
  const page = await context.newPage();
  await login(page, "admin", "admin");
  await page.goto("/?status=4");
  await page.locator(".ticket-item").first().click();
  await expect(page.locator('.conversation[data-live="on"]')).toBeVisible();
  const number = Number(new URL(page.url()).pathname.split("/").pop());

  await stop(server);
  await expect(page.getByText("No connection")).toBeVisible();
  await expect(page.getByRole("button", { name: "Reconnect" })).toBeVisible();

  // a message lands while this page cannot hear about it: written straight into the database
  // of the stopped server (as another node would), so only the sync after reconnecting can bring it
  const text = `while you were away ${Date.now()}`;
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"));
  const { id } = db.prepare("select id from tickets where ticket_number = ?").get(number) as { id: number };
  const at = Date.now();
  db.prepare("insert into messages (ticket_id, type, body, sender_name, created_at) values (?, 'text', ?, 'Customer', ?)").run(id, text, at);
  db.prepare("update tickets set last_message = ?, updated_at = ? where id = ?").run(text, at, id);
  db.close();

  server = start();
  await healthy();
  await expect(page.getByText("No connection")).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1, { timeout: 10_000 });
  await expect(page.locator('.conversation[data-live="on"]')).toBeVisible();
  await context.close();
});

test("a waiting live chat visitor sees 'Connecting to server...' and comes back by itself", async ({ browser }) => {
  test.setTimeout(90_000);
  const agentContext = await browser.newContext({ baseURL: base });
  await chooseLanguage(agentContext, base);
  const agent = await agentContext.newPage();
  await login(agent, "agent", "agent");
  await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);

  const visitorContext = await browser.newContext({ baseURL: base });
  const visitor = await visitorContext.newPage();
  await visitor.goto("/livechat/demo");
  await visitor.getByRole("link", { name: "Continue" }).click();
  await visitor.getByLabel("Name").fill("Wendy");
  await visitor.getByLabel("Phone").fill("1");
  await visitor.getByLabel("Email").fill("wendy@example.com");
  await visitor.getByLabel("Message").fill("Hello?");
  await visitor.getByRole("button", { name: "Connect" }).click();
  await expect(visitor.getByText(/Your queue number is \d+/)).toBeVisible();
  await expect(visitor.getByText("Connecting to server...")).toHaveCount(0);

  await stop(server);
  await expect(visitor.getByText("Connecting to server...")).toBeVisible();
  server = start();
  await healthy();
  // retried every second: back within moments of the server, still in the queue
  await expect(visitor.getByText("Connecting to server...")).toHaveCount(0, { timeout: 10_000 });
  await expect(visitor.getByText(/Your queue number is \d+/)).toBeVisible();
  await Promise.all([agentContext.close(), visitorContext.close()]);
});
