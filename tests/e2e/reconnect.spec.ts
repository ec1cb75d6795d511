// The server goes away and comes back while an agent has a conversation open: the page says
// 'No connection', reconnects by itself, and a message written meanwhile shows exactly once.
// This test runs its own server (on its own port and database) so it can stop and restart it.
import { test, expect } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import { startServer, stopServer as stop, waitHealthy } from "../support/server-process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chooseLanguage, login, PASSWORD } from "./helpers";

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

  server = start();
  await healthy();
  // written through the API while the page is still waiting for its next retry (every 5 s)
  const post = (url: string, body: unknown) =>
    fetch(base + url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
  const auth = await post("/api/auth2", { client: "admin", password: PASSWORD, type: "admin" });
  const list = await (await fetch(`${base}/api/ticket/load/${auth.token}/4/ticket/0`)).json();
  const ticket = list.data.find((t: { ticket_number: number }) => t.ticket_number === number);
  const text = `while you were away ${Date.now()}`;
  expect((await post("/api/ticket/message/reply", { _token: auth.token, ticket_id: ticket.id, message: text })).result).toBe("success");
  await expect(page.getByText("No connection")).toHaveCount(0, { timeout: 15_000 });
  await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1, { timeout: 10_000 });
  await expect(page.locator('.conversation[data-live="on"]')).toBeVisible();
  await context.close();
});
