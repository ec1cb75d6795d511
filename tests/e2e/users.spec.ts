// User management by admins: invite (the link is shown: no mail server in e2e), accept, permissions
// in the menu, disable (the open tab is signed out), and the refusals; with JavaScript on and off.
import { test, expect, type Browser, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

const NEW_PASSWORD = "Velvet-Kettle-Orbit-42";
const EXPIRED = "This link has expired or was already used. Ask your admin for a new invite.";

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}`;

async function newPage(browser: Browser, baseURL: string, js: boolean) {
  const context = await browser.newContext({ javaScriptEnabled: js });
  await chooseLanguage(context, baseURL);
  return context.newPage();
}

/** Invites an agent from /settings/users and answers the link the page shows. */
async function inviteAgent(admin: Page, username: string) {
  await admin.goto("/settings/users");
  const form = admin.getByRole("form", { name: "Invite by email" });
  await form.getByLabel("Email", { exact: true }).fill(`${username}@example.com`);
  await form.getByLabel("Name", { exact: true }).fill(`Invited ${username}`);
  await form.getByLabel("Username", { exact: true }).fill(username);
  await form.getByLabel("Department", { exact: true }).selectOption({ label: "Support" });
  await form.getByRole("button", { name: "Send invite" }).click();
  await expect(admin.getByText("No mail server is configured, so no mail was sent.")).toBeVisible();
  const link = await admin.getByTestId("invite-link").inputValue();
  expect(link).toMatch(/\/invite\/[\w-]{40,}$/);
  return link;
}

/** The admin's edit page of a user, found through the list's search. */
async function openUser(admin: Page, username: string) {
  await admin.goto(`/settings/users?q=${username}`);
  await admin.locator(`tr[data-username="${username}"] a`).click();
  await expect(admin.getByRole("heading", { level: 1 })).toContainText(username);
}

async function setPermissions(admin: Page, username: string, on: string[], off: string[] = []) {
  await openUser(admin, username);
  for (const label of on) await admin.getByLabel(label).check();
  for (const label of off) await admin.getByLabel(label).uncheck();
  await admin.getByRole("button", { name: "Save" }).click();
  await expect(admin.getByRole("status")).toHaveText("Changes saved.");
}

async function acceptInvite(page: Page, link: string) {
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Set your password" })).toBeVisible();
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByLabel("Repeat the password").fill("not the same password");
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByText("The two passwords are not the same.")).toBeVisible();
  await page.getByLabel("New password").fill("short");
  await page.getByLabel("Repeat the password").fill("short");
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.getByText("The password must be at least 12 characters long.")).toBeVisible();
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByLabel("Repeat the password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Set password and sign in" }).click();
  await expect(page.locator(".shell")).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
}

const menuItem = (page: Page, id: string) => page.locator(`[data-menu-item="${id}"]`);

async function disable(admin: Page, username: string) {
  await openUser(admin, username);
  await admin.getByRole("button", { name: "Disable user" }).click();
  await expect(admin.getByRole("status")).toHaveText("The user was disabled and signed out everywhere.");
  await expect(admin.getByTestId("user-status")).toContainText("Disabled");
}

async function cannotSignIn(page: Page, username: string) {
  await page.goto("/");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(NEW_PASSWORD);
  await page.getByRole("radio", { name: "Agent" }).check();
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page.getByRole("alert")).toHaveText("Invalid username or password.");
  await expect(page.locator(".shell")).toHaveCount(0);
}

for (const js of [true, false]) {
  test.describe(`users, JavaScript ${js ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled: js });

    test("an admin invites an agent, who sets a password, signs in and sees what the permissions allow; disabled, they are signed out", async ({
      page,
      browser,
      baseURL,
    }) => {
      // two browsers, several pages each, and a reconnect delay of 5 s
      test.setTimeout(60_000);
      const username = unique(js ? "inv-js" : "inv-nojs");
      await chooseLanguage(page.context(), baseURL!);
      await login(page, "admin", "admin");
      const link = await inviteAgent(page, username);
      await setPermissions(page, username, ["Hide workspace chat"]);
      await expect(page.getByTestId("user-status")).toContainText("Invited");

      const agent = await newPage(browser, baseURL!, js);
      await acceptInvite(agent, link);
      // hide_chat hides the chat item; without view_report there are no reports
      await expect(menuItem(agent, "ticket")).toBeVisible();
      await expect(menuItem(agent, "chat")).toHaveCount(0);
      await expect(menuItem(agent, "report")).toHaveCount(0);
      await agent.goto("/report/omnichannel");
      await expect(agent).toHaveURL(/\/$/);

      // the link worked once
      const other = await newPage(browser, baseURL!, js);
      await other.goto(link);
      await expect(other.getByRole("alert")).toHaveText(EXPIRED);
      await other.context().close();

      // a new permission applies at once: with JavaScript the open page reloads by itself
      await setPermissions(page, username, ["View reports"], ["Hide workspace chat"]);
      if (!js) await agent.reload();
      await expect(menuItem(agent, "report")).toBeVisible();
      await expect(menuItem(agent, "chat")).toBeVisible();
      await agent.goto("/report/omnichannel");
      await expect(agent).toHaveURL(/\/report\/omnichannel$/);

      // offered in the participant picker while enabled
      const option = page.locator('select[name="username"] option', { hasText: `Invited ${username}` });
      await page.goto("/ticket");
      const ticket = `/ticket/${await page.locator(".ticket-item").first().getAttribute("data-ticket")}`;
      await page.goto(ticket);
      await expect(option).toHaveCount(1);

      // a tab in the background does not reload its data (that would mark conversations read):
      // the refused reconnect alone must sign it out
      if (js) await agent.evaluate(() => Object.defineProperty(document, "hidden", { value: true, configurable: true }));
      await disable(page, username);
      if (js) {
        // the open tab lands on the login form within seconds, without anyone touching it
        await expect(agent.locator(".login-card form")).toBeVisible({ timeout: 10_000 });
      } else {
        await agent.goto("/settings");
        await expect(agent.locator(".login-card form")).toBeVisible();
      }
      await cannotSignIn(agent, username);
      await agent.context().close();

      // the disabled user is gone from the participant picker
      await page.goto(ticket);
      await expect(page.locator('select[name="username"]')).toBeVisible();
      await expect(option).toHaveCount(0);
    });

    test("refusals keep the admin's input and say why", async ({ page, baseURL }) => {
      await chooseLanguage(page.context(), baseURL!);
      await login(page, "admin", "admin");
      await page.goto("/settings/users");
      const form = page.getByRole("form", { name: "Create a user with a password" });
      const create = async (username: string, password = NEW_PASSWORD) => {
        await form.getByLabel("Name", { exact: true }).fill("Refused Person");
        await form.getByLabel("Username", { exact: true }).fill(username);
        await form.getByLabel("Password", { exact: true }).fill(password);
        await form.getByRole("button", { name: "Create user" }).click();
      };
      await create("has space");
      await expect(form.getByText("Use only letters, digits, dots, dashes and underscores (no spaces).")).toBeVisible();
      await expect(form.getByLabel("Name", { exact: true })).toHaveValue("Refused Person");
      await expect(form.getByLabel("Username", { exact: true })).toHaveAccessibleDescription(/no spaces/);
      await create("x".repeat(500));
      await expect(form.getByText("The username must be 3 to 32 characters long.")).toBeVisible();
      await create("AGENT");
      await expect(form.getByText("This username is already taken.")).toBeVisible();
      await create(unique("weak"), "password1234");
      await expect(form.getByText("This password is too common; choose another one.")).toBeVisible();
      // (the last active admin cannot be demoted: users-admin.test.ts; other specs add admins to
      // this shared database, so trying it here could demote the seeded admin)
    });
  });
}

test("an agent gets 403 from the user pages and posting there changes nothing", async ({ page, baseURL }) => {
  await chooseLanguage(page.context(), baseURL!);
  await login(page, "agent", "agent");
  const opened = await page.goto("/settings/users");
  expect(opened?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Access denied" })).toBeVisible();
  const name = unique("sneaky");
  const post = await page.request.post("/settings/users", {
    form: { intent: "create", username: name, name: "Sneaky", email: "", type: "admin", department: "", password: NEW_PASSWORD },
    headers: { Origin: baseURL! },
  });
  expect(post.status()).toBe(403);
  const disable = await page.request.post("/settings/users/1", { form: { intent: "disable" }, headers: { Origin: baseURL! } });
  expect(disable.status()).toBe(403);
  // still there, and the admin can still sign in; no such user was made
  await page.context().clearCookies();
  await chooseLanguage(page.context(), baseURL!);
  await login(page, "admin", "admin");
  await page.goto(`/settings/users?q=${name}`);
  await expect(page.getByText(`No user matches “${name}”.`)).toBeVisible();
});
