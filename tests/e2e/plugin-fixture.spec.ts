// A new plugin is added by touching only its own folder. The fixture plugin
// tests/fixtures/plugins/hello (a page, a menu item with a rule, a socket event and a report
// widget, its own texts) is copied into plugins/ of a copy of the source; that copy is built and
// served, an admin switches the plugin on for the edition, and each part works.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { test, expect, type APIRequestContext } from "@playwright/test";
import { io } from "socket.io-client";
import { waitHealthy, stopServer } from "../support/server-process";
import { PASSWORD } from "./helpers";
import defaultEdition from "../../editions/default";

const PORT = 3412;
const base = `http://localhost:${PORT}`;
const SOURCE = ["app", "plugins", "public", "db", "editions", "remix.config.js", "server.ts", "worker.ts", "package.json", "tsconfig.json"];

let dir: string;
let server: ChildProcess;
let serverOutput = "";

test.describe.configure({ mode: "serial", timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-plugin-"));
  for (const entry of SOURCE) fs.cpSync(entry, path.join(dir, entry), { recursive: true, filter: (src) => !src.includes(`public${path.sep}build`) });
  fs.symlinkSync(path.resolve("node_modules"), path.join(dir, "node_modules"));
  // the one change: the plugin's folder
  fs.cpSync("tests/fixtures/plugins/hello", path.join(dir, "plugins", "hello"), { recursive: true });
  execFileSync("npm", ["run", "build", "--silent"], { cwd: dir, stdio: "ignore" });
  server = spawn(process.execPath, ["build/server.js"], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(PORT),
      DATA_DIR: path.join(dir, "data"),
      DATABASE_URL: "",
      SESSION_SECRET: "fixture",
      LOGIN_FAILURES_ALLOWED: "1000",
      NODE_ENV: "test",
      // the defaults (2525, 5072) are another server's to take
      SMTP_LISTEN_PORT: "off",
      VOICEMAIL_SIP_PORT: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // its last lines and how it ended go into a failure's message (CI shows only the summary)
  const keep = (chunk: Buffer) => (serverOutput = (serverOutput + chunk.toString()).slice(-4000));
  server.stdout!.on("data", keep);
  server.stderr!.on("data", keep);
  server.on("exit", (code, signal) => (serverOutput += `\n[the server ended: code ${code}, signal ${signal}]`));
  await waitHealthy(base);
});

/** A failure's message with the server's last output appended. */
async function tellingServerOutput(body: () => Promise<void>) {
  try {
    await body();
  } catch (error) {
    if (error instanceof Error) error.message += `\n\nThe plugin copy's server said:\n${serverOutput}`;
    throw error;
  }
}

test.afterAll(async () => {
  if (server) await stopServer(server);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function signIn(request: APIRequestContext, username: string, type: "admin" | "agent") {
  const res = await request.post(`${base}/?index`, {
    form: { intent: "login", username, password: PASSWORD, type },
    headers: { Origin: base },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(302);
  const sid = (await request.storageState()).cookies.find((c) => c.name === "sid")!.value;
  return `sid=${sid}`;
}

test("a plugin folder alone adds a page, a menu item with its rule, a socket event and a report widget", ({ playwright }) =>
  tellingServerOutput(async () => {
    const admin = await playwright.request.newContext();
    const agent = await playwright.request.newContext();
    const adminCookie = await signIn(admin, "admin", "admin");
    await signIn(agent, "agent", "agent");

    // off until an admin switches it on for the edition (Editions and plugins)
    expect((await admin.get(`${base}/hello`)).status()).toBe(404);
    const plugins = [...defaultEdition.plugins, "hello"].map((p) => ["plugins", p]);
    const saved = await admin.post(`${base}/admin/editions`, {
      data: new URLSearchParams([["edition", "default"], ["hosts", ""], ...plugins]).toString(),
      headers: { Origin: base, "Content-Type": "application/x-www-form-urlencoded" },
      maxRedirects: 0,
    });
    expect(saved.status()).toBe(302);

    // the page, with the plugin's own texts, inside the shell
    const page = await admin.get(`${base}/hello`);
    expect(page.status()).toBe(200);
    const html = await page.text();
    expect(html).toContain("Hello, Demo Admin");
    expect(html).toContain('class="list-panel');
    // the menu item follows its rule: admins only
    expect(html).toMatch(/data-menu-item="hello"[^>]*>[\s\S]*?Hello</);
    expect(await (await agent.get(`${base}/hello`)).text()).not.toContain('data-menu-item="hello"');

    // the socket event, answered by the plugin's own handler
    const socket = io(base, { transports: ["websocket"], extraHeaders: { cookie: adminCookie }, reconnection: false });
    try {
      const answer = await socket.timeout(5000).emitWithAck("helloPing", {});
      expect(answer).toEqual({ pong: true, username: "admin" });
    } finally {
      socket.close();
    }

    // the report widget on the dashboard, drawn on the server from the plugin's loader
    const dashboard = await (await admin.get(`${base}/dashboard`)).text();
    expect(dashboard).toContain("Hello widget");
    expect(dashboard).toContain("hello-b");
    await admin.dispose();
    await agent.dispose();
  }));
