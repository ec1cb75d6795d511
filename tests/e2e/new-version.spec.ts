// The new-version notice, as an operator's release brings it: a page is open, the server is
// restarted with a newer release (VERSION_ID and VERSION_NOTES in its environment), the page's
// socket reconnects and offers to refresh; after Refresh the page is the new release's.
import { test, expect } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer, stopServer, waitHealthy } from "../support/server-process";
import { chooseLanguage, hydrated, login } from "./helpers";

const port = Number(process.env.E2E_PORT || 3210) + 70;
const origin = `http://localhost:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-version-"));
let server: ChildProcess | undefined;

async function start(release: Record<string, string> = {}) {
  server = startServer({ PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: "", SESSION_SECRET: "version-secret", NODE_ENV: "test", ...release });
  await waitHealthy(origin);
}

test.afterAll(async () => {
  if (server) await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("a newer release on the server shows 'Update is available' with Refresh", async ({ browser }) => {
  test.setTimeout(120_000);
  await start();
  const context = await browser.newContext({ baseURL: origin });
  await chooseLanguage(context, origin);
  const page = await context.newPage();
  await login(page, "admin", "admin", undefined, origin);
  await hydrated(page);
  await expect(page.locator("html")).toHaveAttribute("data-realtime", "connected");
  const notice = page.getByRole("status").filter({ hasText: "Update is available" });
  await expect(notice).toHaveCount(0);

  // the release: same data, a newer version id; the open page reconnects on its own
  await stopServer(server!);
  await expect(page.locator("html")).toHaveAttribute("data-realtime", "disconnected");
  await start({ VERSION_ID: "99001", VERSION_NOTES: "Faster search" });
  await expect(notice).toContainText("Update is available. What's new: Faster search", { timeout: 20_000 });
  await notice.getByRole("button", { name: "Refresh" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-version", "99001");
  await expect(page.locator("html")).toHaveAttribute("data-realtime", "connected");
  await expect(notice).toHaveCount(0);
  await context.close();
});
