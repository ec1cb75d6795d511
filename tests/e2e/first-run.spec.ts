// A fresh production server on an empty data dir has no known password: nothing is seeded, every
// page leads to /setup, which opens only with the one-time link printed on the console; the link
// creates the first admin once. And with SIGNUP_OPEN=1 a visitor signs up a trial workspace.
// Each part runs its own server (NODE_ENV=production, its own empty database), not the shared one.
import { test, expect, type APIRequestContext, type Browser } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { stopServer, waitHealthy } from "../support/server-process";
import { chooseLanguage, login, logout } from "./helpers";

const DEMO_USERS = [
  ["admin", "admin"],
  ["agent", "agent"],
  ["agent2", "agent"],
] as const;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Fresh {
  base: string;
  dataDir: string;
  server: ChildProcess;
  output: () => string;
}

/** `node build/server.js` as production runs it, on an empty data dir; its console is kept. */
async function startFresh(env: Record<string, string> = {}): Promise<Fresh> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-first-run-"));
  const { SEED_DEMO: _seed, SEED_PASSWORD: _password, SIGNUP_OPEN: _signup, BASE_URL: _base, ...inherited } = process.env;
  const server = spawn(process.execPath, ["build/server.js"], {
    env: {
      ...inherited,
      NODE_ENV: "production",
      BASE_URL: `http://localhost:${port}`,
      SESSION_SECRET: "first-run-secret",
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      REDIS_URL: "",
      // the wrong demo passwords below must answer "invalid", not "too many attempts"
      LOGIN_FAILURES_ALLOWED: "1000",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  server.stdout!.on("data", (chunk) => (output += chunk));
  const base = `http://localhost:${port}`;
  await waitHealthy(base);
  return { base, dataDir, server, output: () => output };
}

async function stopFresh(fresh: Fresh | undefined) {
  if (!fresh) return;
  await stopServer(fresh.server);
  fs.rmSync(fresh.dataDir, { recursive: true, force: true });
}

const query = <T>(fresh: Fresh, sql: string) => {
  const db = new Database(path.join(fresh.dataDir, "omnidesk.sqlite"), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
};

async function demoPasswordsFail(request: APIRequestContext, base: string) {
  for (const [username, type] of DEMO_USERS) {
    const res = await request.post(`${base}/api/auth2`, { data: { client: username, password: "demo1234", type } });
    expect(res.status(), `${username} with the demo password`).toBe(403);
    expect(await res.json()).toMatchObject({ result: "failed" });
  }
}

async function demoTokensGone(request: APIRequestContext, base: string) {
  for (const page of ["/livechat/demo", "/start/livechat/demo", "/new_ticket/demo", "/survey/demo"])
    expect((await request.get(`${base}${page}`, { maxRedirects: 0 })).status(), page).toBe(404);
}

const newContext = async (browser: Browser, base: string, javaScriptEnabled: boolean) => {
  const context = await browser.newContext({ baseURL: base, javaScriptEnabled });
  await chooseLanguage(context, base);
  return context;
};

test.describe("a fresh production server", () => {
  test.describe.configure({ mode: "serial" });
  let fresh: Fresh;
  let link: string;
  test.beforeAll(async () => {
    test.setTimeout(90_000);
    fresh = await startFresh();
    link = fresh.output().match(/First run: open (http:\/\/\S+\/setup\?token=[\w-]+)/)?.[1] ?? "";
  });
  test.afterAll(() => stopFresh(fresh));

  test("seeds nothing and prints a one-time setup link", async ({ request }) => {
    expect(fresh.output()).not.toMatch(/Seeded the demo/);
    expect(link).toMatch(new RegExp(`^${fresh.base}/setup\\?token=[\\w-]{40,}$`));
    expect(query(fresh, "select id from users")).toEqual([]);
    await demoPasswordsFail(request, fresh.base);
    await demoTokensGone(request, fresh.base);
  });

  test("every page leads to /setup, which without the link says how to get one", async ({ browser }) => {
    const context = await newContext(browser, fresh.base, false);
    const page = await context.newPage();
    for (const start of ["/", "/login", "/settings"]) {
      await page.goto(start);
      await expect(page).toHaveURL(`${fresh.base}/setup`);
    }
    await expect(page.getByRole("heading", { name: "Set up OmniDesk" })).toBeVisible();
    await expect(page.getByText('the log line whose message begins with "First run: open"')).toBeVisible();
    await expect(page.getByText("npm run user:create -- --admin")).toBeVisible();
    await expect(page.locator("input[name=password]")).toHaveCount(0);
    await expect(page.getByRole("link", { name: /sign up/i })).toHaveCount(0);

    await page.goto("/setup?token=not-the-token");
    await expect(page.getByRole("alert")).toHaveText(/expired or has already been used/);
    await expect(page.locator("input[name=password]")).toHaveCount(0);

    await page.goto("/signup");
    await expect(page.getByRole("heading", { name: "Sign-up is closed" })).toBeVisible();
    await expect(page.locator("input[name=password]")).toHaveCount(0);
    await context.close();
  });

  test("the link opens the form once (JavaScript off): refusals keep the input, then the admin is made and signed in", async ({ browser, request }) => {
    const context = await newContext(browser, fresh.base, false);
    const page = await context.newPage();
    await page.goto(link);
    await expect(page.getByRole("heading", { name: "Set up OmniDesk" })).toBeVisible();
    await page.getByLabel("Workspace name").fill("Acme Support");
    await page.getByLabel("Time zone").selectOption("Europe/Berlin");
    await page.getByLabel("Username").fill("fay founder");
    await page.getByLabel("Full name").fill("Fay Founder");
    await page.getByLabel("Email").fill("Fay@Example.com");
    await page.getByLabel("Password").fill("password1234");
    await page.getByRole("button", { name: "Create workspace" }).click();

    await expect(page.getByText("Use only letters, digits, dots, dashes and underscores (no spaces).")).toBeVisible();
    await expect(page.getByText("This password is too common; choose another one.")).toBeVisible();
    await expect(page.getByLabel("Username")).toHaveAttribute("aria-describedby", "username-hint username-error");
    await expect(page.getByLabel("Workspace name")).toHaveValue("Acme Support");
    await expect(page.getByLabel("Time zone")).toHaveValue("Europe/Berlin");
    await expect(page.getByLabel("Email")).toHaveValue("Fay@Example.com");
    await expect(page.getByLabel("Password")).toHaveValue("");
    expect(query(fresh, "select id from users")).toEqual([]);

    await page.getByLabel("Username").fill("fay");
    await page.getByLabel("Password").fill("a long and quiet harbour");
    await page.getByRole("button", { name: "Create workspace" }).click();
    await expect(page).toHaveURL(`${fresh.base}/`);
    await expect(page.locator(".shell")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Welcome, Fay Founder" })).toBeVisible();
    await expect(page).toHaveTitle(/Acme Support/);

    // the workspace: its own random public tokens, never "demo"; the audit log has the creation
    const tokens = query<{ kind: string; token: string }>(fresh, "select kind, token from public_tokens order by kind");
    expect(tokens.map((t) => t.kind)).toEqual(["livechat", "new_ticket", "survey"]);
    for (const { token } of tokens) expect(token).toMatch(/^[\w-]{32}$/);
    expect((await request.get(`${fresh.base}/new_ticket/${tokens.find((t) => t.kind === "new_ticket")!.token}`)).status()).toBe(200);
    expect(query(fresh, "select action from audit_log where action in ('workspace.created', 'user.created') order by action")).toEqual([
      { action: "user.created" },
      { action: "workspace.created" },
    ]);

    // the new admin signs in with the password chosen; the demo passwords still fail
    await logout(page);
    await login(page, "fay", "admin", "a long and quiet harbour");
    await demoPasswordsFail(request, fresh.base);
    await demoTokensGone(request, fresh.base);
    await context.close();
  });

  test("the link cannot be used twice: /setup is gone once the admin exists", async ({ browser, request }) => {
    expect((await request.get(link)).status()).toBe(404);
    const form = { token: new URL(link).searchParams.get("token")!, workspace: "Again", timezone: "UTC", language: "en" };
    const again = await request.post(link, {
      form: { ...form, username: "mallory", name: "Mallory", email: "m@example.com", password: "another long passphrase" },
      headers: { Origin: fresh.base },
    });
    expect(again.status()).toBe(404);
    expect(query(fresh, "select username from users")).toEqual([{ username: "fay" }]);
    const context = await newContext(browser, fresh.base, false);
    const page = await context.newPage();
    await page.goto("/");
    await expect(page.getByRole("button", { name: "Log In" })).toBeVisible();
    await context.close();
  });

  test("the admin finds the customer links and replaces one that leaked (JavaScript off)", async ({ browser, request }) => {
    const context = await newContext(browser, fresh.base, false);
    const page = await context.newPage();
    await login(page, "fay", "admin", "a long and quiet harbour");
    await page.goto("/settings/links");
    const token = (kind: string) => query<{ token: string }>(fresh, `select token from public_tokens where kind = '${kind}' and revoked_at is null`)[0].token;
    const oldTicketToken = token("new_ticket");
    await expect(page.getByRole("link", { name: `${fresh.base}/start/livechat/${token("livechat")}` })).toBeVisible();
    await expect(page.getByLabel(/Code for your website/)).toHaveValue(
      `<script src="${fresh.base}/livechat.js" data-token="${token("livechat")}" async></script>`,
    );

    await page.locator("#link-new_ticket").getByRole("button", { name: "Make a new link" }).click();
    await expect(page.getByRole("status")).toHaveText("A new link is ready; the old one no longer works.");
    const newTicketToken = token("new_ticket");
    expect(newTicketToken).not.toBe(oldTicketToken);
    await expect(page.getByRole("link", { name: `${fresh.base}/new_ticket/${newTicketToken}` })).toBeVisible();
    expect((await request.get(`${fresh.base}/new_ticket/${oldTicketToken}`)).status()).toBe(404);
    expect((await request.get(`${fresh.base}/new_ticket/${newTicketToken}`)).status()).toBe(200);
    expect(query(fresh, "select action, target_id from audit_log where action = 'link.renewed'")).toEqual([
      { action: "link.renewed", target_id: "new_ticket" },
    ]);
    await context.close();
  });
});

test.describe("sign-up (SIGNUP_OPEN=1)", () => {
  test.describe.configure({ mode: "serial" });
  let fresh: Fresh;
  test.beforeAll(async () => {
    test.setTimeout(90_000);
    fresh = await startFresh({ SIGNUP_OPEN: "1" });
  });
  test.afterAll(() => stopFresh(fresh));

  test("an empty install offers sign-up; it makes a trial workspace and signs its admin in; then the workspace exists", async ({ browser }) => {
    const context = await newContext(browser, fresh.base, true);
    const page = await context.newPage();
    await page.goto("/");
    await expect(page).toHaveURL(`${fresh.base}/setup`);
    await page.getByRole("link", { name: "Or sign up for a free trial workspace" }).click();
    await expect(page.getByRole("heading", { name: "Sign up" })).toBeVisible();
    await expect(page.getByText("Start a free 14-day trial of OmniDesk")).toBeVisible();
    await page.getByLabel("Workspace name").fill("Trial Co");
    await page.getByLabel("Username").fill("tina");
    await page.getByLabel("Full name").fill("Tina Trial");
    await page.getByLabel("Email").fill("tina@example.com");
    await page.getByLabel("Password").fill("tina");
    await page.getByRole("button", { name: "Start free trial" }).click();
    await expect(page.getByText("The password must be at least 12 characters long.")).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
    await page.getByLabel("Password").fill("trial of the long passphrase");
    await page.getByRole("button", { name: "Start free trial" }).click();
    await expect(page.locator(".shell")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Welcome, Tina Trial" })).toBeVisible();

    const settings = Object.fromEntries(query<{ key: string; value: string }>(fresh, "select key, value from settings").map((r) => [r.key, r.value]));
    expect(settings).toMatchObject({ account_type: "0", plan: "0", admin_name: "Trial Co" });
    const days = (Number(settings.account_expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThanOrEqual(14);

    // signed in: /signup goes home; signed out: the workspace exists, ask its admin
    await page.goto("/signup");
    await expect(page).toHaveURL(`${fresh.base}/`);
    await logout(page);
    await page.goto("/signup");
    await expect(page.getByRole("heading", { name: "The workspace already exists" })).toBeVisible();
    await expect(page.locator("input[name=password]")).toHaveCount(0);
    expect((await page.request.get(`${fresh.base}/setup`)).status()).toBe(404);
    await context.close();
  });
});

test.describe("the shared demo server (seeded, sign-up off by default)", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("/setup is 404, /signup is closed and sends signed-in users home", async ({ page, baseURL }) => {
    expect((await page.goto("/setup"))?.status()).toBe(404);
    await page.goto("/signup");
    await expect(page.getByRole("heading", { name: "Sign-up is closed" })).toBeVisible();
    await expect(page.getByText("Please ask your workspace admin to invite you.")).toBeVisible();
    await login(page, "agent", "agent");
    await page.goto("/signup");
    await expect(page).toHaveURL(`${baseURL}/`);
  });
});
