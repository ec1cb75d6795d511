// Single sign-on with OpenID Connect against a real provider on loopback (oidc-standin.ts). The
// sign-ins need users with an email, which the shared server's seed has none of: this spec starts
// its own server on a fresh database, adds such users to it, and signs in there (JS on and off).
import { test, expect, type Browser, type BrowserContext } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { chooseLanguage, login } from "./helpers";
import { startOidcStandin, type OidcStandin } from "../support/oidc-standin";

test.describe.configure({ mode: "serial" });

const NO_MATCH = "No OmniDesk account matches this sign-in. Ask your admin to invite you with this email.";

let standin: OidcStandin;
let server: ChildProcess | undefined;
let app = ""; // the origin of this spec's own server
let dataDir = "";

function freePort() {
  return new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`the SSO test server exited with ${child.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the SSO test server did not start");
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const port = await freePort();
  app = `http://localhost:${port}`;
  const base = Number(process.env.E2E_PORT || 3210);
  standin = await startOidcStandin({
    redirectUris: [port, base].flatMap((p) => Array.from({ length: 10 }, (_, i) => `http://localhost:${p}/sso/${i + 1}/callback`)),
    accounts: [
      { sub: "pat-sub", email: "pat@example.test", email_verified: true, name: "Pat" },
      { sub: "gone-sub", email: "gone@example.test", email_verified: true },
      { sub: "stranger-sub", email: "stranger@example.test", email_verified: true },
    ],
  });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-sso-e2e-"));
  server = spawn("node", ["build/server.js"], {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: "", SESSION_SECRET: "sso-e2e-secret", NODE_ENV: "test" },
    stdio: "ignore",
  });
  await waitForHealth(`${app}/healthz`, server);
  // accounts an admin would have invited: one with the provider's email, one disabled since
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"));
  const add = db.prepare("INSERT INTO users (username, name, type, password_hash, email, disabled_at, created_at) VALUES (?, ?, 'agent', '!', ?, ?, ?)");
  add.run("pat", "Pat Single", "pat@example.test", null, Date.now());
  add.run("gone", "Gone Away", "gone@example.test", Date.now(), Date.now());
  db.close();
});

test.afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    const exited = new Promise((r) => server!.once("exit", r));
    server.kill("SIGTERM");
    await exited;
  }
  await standin?.close();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function visitor(browser: Browser, javaScriptEnabled = true) {
  const context = await browser.newContext({ javaScriptEnabled });
  await chooseLanguage(context, app);
  return context;
}

async function asAdmin(browser: Browser) {
  const context = await visitor(browser);
  const page = await context.newPage();
  await login(page, "admin", "admin", undefined, app);
  return { context, page };
}

/** Clicks "Sign in with Stand-in" on the login page as `sub` at the provider; ends where the app sends the browser back. */
async function signInWithStandin(context: BrowserContext, sub: string) {
  standin.signInAs(sub);
  const page = await context.newPage();
  await page.goto(`${app}/`);
  await page.getByRole("link", { name: "Sign in with Stand-in" }).click();
  await page.waitForURL((url) => url.origin === app && url.pathname === "/");
  return page;
}

test("an agent can neither open nor change the single sign-on settings", async ({ page, baseURL }) => {
  await chooseLanguage(page.context(), baseURL!);
  await login(page, "agent", "agent");
  expect((await page.goto("/settings/sso"))?.status()).toBe(403);
  const post = await page.request.post("/settings/sso", {
    form: { intent: "add", name: "Evil", issuer: standin.issuer, clientId: "x", clientSecret: "y", scopes: "openid" },
  });
  expect(post.status()).toBe(403);
  await page.context().clearCookies();
  await chooseLanguage(page.context(), baseURL!);
  await page.goto("/");
  await expect(page.getByLabel("Username")).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign in with Evil" })).toHaveCount(0);
});

test("the admin adds the provider: a wrong issuer is refused with the input kept, the secret is never shown", async ({ browser }) => {
  const { context, page } = await asAdmin(browser);
  await page.goto(`${app}/settings/sso`);
  await expect(page.getByRole("heading", { name: "Single sign-on", level: 1 })).toBeVisible();
  await expect(page.getByText("No provider has been added yet.")).toBeVisible();
  const form = page.locator("form", { has: page.getByRole("button", { name: "Add provider" }) });
  await form.getByLabel("Name").fill("Stand-in");
  await form.getByLabel("Issuer URL").fill(`${standin.issuer}/wrong`);
  await form.getByLabel("Client ID").fill(standin.clientId);
  await form.getByLabel("Client secret").fill(standin.clientSecret);
  await form.getByRole("button", { name: "Add provider" }).click();
  const issuer = form.getByLabel("Issuer URL");
  await expect(issuer).toHaveAccessibleDescription(/No OpenID provider answered at this issuer URL/);
  await expect(issuer).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("Name")).toHaveValue("Stand-in");
  await expect(form.getByLabel("Client ID")).toHaveValue(standin.clientId);
  await expect(form.getByLabel("Client secret")).toHaveValue("");

  await issuer.fill(standin.issuer);
  await form.getByLabel("Client secret").fill(standin.clientSecret);
  await form.getByRole("button", { name: "Add provider" }).click();
  const card = page.locator("article", { has: page.getByRole("heading", { name: /Stand-in/ }) });
  await expect(card.getByRole("status")).toHaveText("Provider saved.");
  await expect(card.getByRole("heading")).toHaveText("Stand-in (on)");
  await expect(card.locator("code", { hasText: "/callback" })).toHaveText(`${app}/sso/1/callback`);
  await expect(card.getByText("stored (never shown)")).toBeVisible();
  expect(await page.content()).not.toContain(standin.clientSecret);

  // an edit with the secret left empty keeps it: the sign-ins below still work
  await card.getByText("Edit Stand-in").click();
  await card.getByLabel("Scopes").fill("openid email");
  await card.getByRole("button", { name: "Save changes" }).click();
  await expect(card.getByRole("status")).toHaveText("Provider saved.");
  await expect(card.locator("dd code", { hasText: "openid" })).toHaveText("openid email");
  await context.close();
});

test("a user whose email the provider verified signs in with it (JavaScript on)", async ({ browser }) => {
  const context = await visitor(browser);
  const page = await signInWithStandin(context, "pat-sub");
  await expect(page.locator(".shell")).toBeVisible();
  await expect(page.getByRole("heading", { name: /Pat Single/ })).toBeVisible();
  await context.close();
});

test("the same sign-in works with JavaScript off, through the stored link", async ({ browser }) => {
  const context = await visitor(browser, false);
  const page = await signInWithStandin(context, "pat-sub");
  await expect(page.getByRole("heading", { name: /Pat Single/ })).toBeVisible();
  await context.close();
});

test("refused sign-ins end on the login page with the reason", async ({ browser }) => {
  const cases: [string, string][] = [
    ["stranger-sub", NO_MATCH],
    ["gone-sub", "This account is disabled. Ask your admin."],
    ["deny", "The sign-in was cancelled at the provider."],
  ];
  for (const [sub, message] of cases) {
    const context = await visitor(browser, sub !== "deny");
    const page = await signInWithStandin(context, sub);
    await expect(page.getByRole("alert")).toHaveText(message);
    await expect(page.getByLabel("Username")).toBeVisible();
    await context.close();
  }
  // an answer that no sign-in of this browser started
  const context = await visitor(browser);
  const page = await context.newPage();
  await page.goto(`${app}/sso/1/callback?code=stolen&state=forged`);
  await expect(page.getByRole("alert")).toHaveText("This sign-in expired or was started in another window. Please try again.");
  await context.close();
});

test("token sign-in: /api/oauth/verify answers a session for a token issued to us, once; another audience is refused", async ({ request }) => {
  const token = await standin.mintIdToken({ sub: "pat-sub" });
  const ok = await request.post(`${app}/api/oauth/verify`, { data: { token } });
  expect(ok.status()).toBe(200);
  const body = await ok.json();
  expect(body).toMatchObject({ result: "success" });
  expect(body.token).toEqual(expect.any(String));
  expect(body.refresh_token).toEqual(expect.any(String));
  const check = await request.post(`${app}/api/auth/check`, { data: { _token: body.token } });
  expect(await check.json()).toMatchObject({ result: "success" });

  const again = await request.post(`${app}/api/oauth/verify`, { data: { token } });
  expect(again.status()).toBe(401);
  expect(await again.json()).toEqual({ result: "failed", description: "The sign-in token is not valid, has expired or was already used.", tfa: false });

  const foreign = await standin.mintIdToken({ sub: "pat-sub" }, { audience: "some-other-app" });
  const refused = await request.post(`${app}/api/oauth/verify`, { data: { token: foreign } });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).result).toBe("failed");

  const stranger = await request.post(`${app}/api/oauth/verify`, {
    data: { token: await standin.mintIdToken({ sub: "stranger-sub", email: "stranger@example.test" }) },
  });
  expect(await stranger.json()).toMatchObject({ result: "failed", description: NO_MATCH });
});

test("?oauth=<token> on a page signs the visitor in and shows the page without it", async ({ browser }) => {
  const context = await visitor(browser, false);
  const page = await context.newPage();
  await page.goto(`${app}/settings?oauth=${await standin.mintIdToken({ sub: "pat-sub" })}`);
  expect(page.url()).toBe(`${app}/settings`);
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await context.close();

  const other = await visitor(browser);
  const refused = await other.newPage();
  await refused.goto(`${app}/settings?oauth=${await standin.mintIdToken({ sub: "pat-sub" }, { audience: "some-other-app" })}`);
  expect(refused.url()).toBe(`${app}/?sso=invalid_token`);
  await expect(refused.getByRole("alert")).toHaveText("The sign-in token is not valid, has expired or was already used.");
  await other.close();
});

test("a turned-off provider leaves the login page; a deleted one is gone (JavaScript off)", async ({ browser }) => {
  const context = await visitor(browser, false);
  const page = await context.newPage();
  await login(page, "admin", "admin", undefined, app);
  await page.goto(`${app}/settings/sso`);
  await page.getByRole("button", { name: "Turn off Stand-in" }).click();
  await expect(page.getByRole("heading", { name: "Stand-in (off)" })).toBeVisible();
  const loginPage = await (await visitor(browser)).newPage();
  await loginPage.goto(`${app}/`);
  await expect(loginPage.getByLabel("Username")).toBeVisible();
  await expect(loginPage.getByRole("link", { name: "Sign in with Stand-in" })).toHaveCount(0);
  expect((await loginPage.goto(`${app}/sso/1`))?.url()).toBe(`${app}/?sso=unknown_provider`);

  await page.getByRole("button", { name: "Turn on Stand-in" }).click();
  await expect(page.getByRole("heading", { name: "Stand-in (on)" })).toBeVisible();
  await page.getByRole("button", { name: "Delete Stand-in" }).click();
  await expect(page.getByRole("status")).toHaveText("Provider deleted. Its account links were removed with it.");
  await expect(page.getByText("No provider has been added yet.")).toBeVisible();
  await loginPage.context().close();
  await context.close();
});
