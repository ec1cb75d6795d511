// Own account (issue 15 item 3): password change, password reset, profile card, avatar and custom
// statuses, with JavaScript on and off. Each test makes its own users straight in the server's
// database (playwright.config.ts keeps its folder in E2E_DATA_DIR), so the seeded ones stay as they are.
import path from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { test, expect, type Browser, type Page } from "@playwright/test";
import { hashPassword } from "../../app/accounts/password.server";
import { chooseLanguage, hydrated, login } from "./helpers";

const GOOD = "correct horse battery staple";
const NEW = "a brand new passphrase";
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

function database() {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const db = new Database(path.join(dir, "omnidesk.sqlite"));
  db.pragma("busy_timeout = 5000");
  return db;
}

/** A user of this test alone: a unique username, an email, a policy-proof password. */
async function createUser(type: "agent" | "admin" = "agent") {
  const username = `acct${randomBytes(4).toString("hex")}`;
  const user = { username, name: `Test ${username}`, email: `${username}@example.com`, password: GOOD, type };
  const db = database();
  try {
    db.prepare("INSERT INTO users (username, name, type, password_hash, email, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
      username,
      user.name,
      type,
      await hashPassword(GOOD),
      user.email,
      Date.now(),
    );
  } finally {
    db.close();
  }
  return user;
}

/** The reset link of the last mail queued to `to` (the outbox is in the same database). */
function lastResetLink(to: string) {
  const db = database();
  try {
    const row = db.prepare("SELECT text FROM mail_outbox WHERE to_address = ? ORDER BY id DESC LIMIT 1").get(to) as { text: string } | undefined;
    const link = row?.text.match(/https?:\/\/\S+\/password_reset\/[\w-]+/)?.[0];
    return link ? new URL(link).pathname : undefined;
  } finally {
    db.close();
  }
}

async function signedIn(browser: Browser, baseURL: string, user: { username: string; type: "agent" | "admin"; password?: string }, javaScriptEnabled: boolean) {
  const context = await browser.newContext({ baseURL, javaScriptEnabled });
  await chooseLanguage(context, baseURL);
  const page = await context.newPage();
  await login(page, user.username, user.type, user.password ?? GOOD);
  return { page, close: () => context.close() };
}

async function changePassword(page: Page, current: string, next: string, confirm = next) {
  await page.getByLabel("Current password", { exact: true }).fill(current);
  await page.getByLabel("New password", { exact: true }).fill(next);
  await page.getByLabel("Confirm new password").fill(confirm);
  await page.getByRole("button", { name: "Change password" }).click();
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`own account with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("change password: the current one is required, a weak one is refused with the reason, and success signs out the other browser", async ({
      page,
      browser,
      baseURL,
    }) => {
      const user = await createUser();
      const other = await signedIn(browser, baseURL!, user, true);
      try {
        await login(page, user.username, "agent", GOOD);
        await page.goto("/profile");
        if (javaScriptEnabled) await hydrated(page);
        await expect(page.getByRole("heading", { name: "Profile", level: 1 })).toBeVisible();

        await changePassword(page, "not my password", NEW);
        await expect(page.getByText("That password is not right.")).toBeVisible();
        await expect(page.getByLabel("Current password", { exact: true })).toHaveAttribute("aria-invalid", "true");

        await changePassword(page, GOOD, "short");
        await expect(page.getByText("The password must be at least 12 characters long.")).toBeVisible();
        await changePassword(page, GOOD, "password1234");
        await expect(page.getByText("This password is too common; choose another one.")).toBeVisible();

        // the other browser is still in
        await other.page.reload();
        await expect(other.page.locator(".shell")).toBeVisible();

        await changePassword(page, GOOD, NEW);
        await expect(page.getByRole("status").filter({ hasText: "Password changed." })).toBeVisible();
        await page.reload();
        await expect(page.locator(".shell")).toBeVisible();

        await other.page.reload();
        await expect(other.page.locator(".login-card form")).toBeVisible();
      } finally {
        await other.close();
      }
      // the new password signs in, the old one does not
      const again = await signedIn(browser, baseURL!, { ...user, password: NEW }, javaScriptEnabled);
      await again.close();
    });

    test("the profile card: a person's name opens it; a bot and unknown people get their texts", async ({ page }) => {
      const user = await createUser();
      await login(page, user.username, "agent", GOOD);
      if (javaScriptEnabled) {
        await hydrated(page);
        await page.locator(".online-agents summary").click();
        const link = page.locator(`.online-agents [data-agent="${user.username}"] a`);
        await expect(link).toHaveText(user.name);
        await link.click();
        const dialog = page.getByRole("dialog");
        await expect(dialog.getByRole("heading", { name: user.name })).toBeVisible();
        await expect(dialog.getByRole("link", { name: "View Profile" })).toHaveAttribute("href", `/contacts/${user.username}`);
        await dialog.getByRole("link", { name: "Live Chat" }).click();
        await expect(dialog.getByRole("link", { name: "Live Chat" })).toHaveAttribute("aria-current", "page");
        await expect(dialog.getByText("All caught up!")).toBeVisible();
        await page.keyboard.press("Escape");
        await expect(page.getByRole("dialog")).toHaveCount(0);
        await expect(page).not.toHaveURL(/\/profile/);
      } else {
        // the user menu's username is the same link, to the card's page
        await page.locator(".user-menu summary").click();
        await page.locator(".user-menu .menu-panel").getByRole("link", { name: user.username }).click();
        await expect(page).toHaveURL(new RegExp(`/profile\\?username=${user.username}`));
        await expect(page.getByRole("heading", { name: user.name })).toBeVisible();
        await expect(page.getByRole("link", { name: "View Profile" })).toHaveAttribute("href", `/contacts/${user.username}`);
        const card = page.locator(".profile-card");
        await card.getByRole("link", { name: "Live Chat" }).click();
        await expect(card.getByRole("link", { name: "Live Chat" })).toHaveAttribute("aria-current", "page");
        await expect(card.getByText("All caught up!")).toBeVisible();
      }
      await page.goto("/profile?username=chatbot");
      await expect(page.getByText("I am a bot. I help send messages, manage tickets and can do much more.")).toBeVisible();
      await page.goto("/profile?username=nobody-like-this");
      await expect(page.getByText("This profile cannot be shown.")).toBeVisible();
    });

    test("avatar: a PNG becomes the photo (also in the user menu); a file that is not an image is refused", async ({ page, request }) => {
      const user = await createUser();
      await login(page, user.username, "agent", GOOD);
      await page.goto("/profile");
      if (javaScriptEnabled) await hydrated(page);
      await page.getByLabel("Image file").setInputFiles({ name: "notes.png", mimeType: "image/png", buffer: Buffer.from("<script>alert(1)</script>") });
      await page.getByRole("button", { name: "Upload photo" }).click();
      await expect(page.getByText("Only PNG, JPEG, WebP or GIF images can be used.")).toBeVisible();
      await expect(page.getByLabel("Image file")).toHaveAttribute("aria-invalid", "true");

      await page.getByLabel("Image file").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: PNG });
      await page.getByRole("button", { name: "Upload photo" }).click();
      await expect(page.getByText("Photo updated.")).toBeVisible();
      const photo = page.getByTestId("own-photo");
      await expect(photo).toBeVisible();
      const src = (await photo.getAttribute("src"))!;
      expect(src).toMatch(/^\/avatar\/[a-f0-9]{32}$/);
      const served = await request.get(src);
      expect(served.headers()["content-type"]).toBe("image/png");
      expect(served.headers()["x-content-type-options"]).toBe("nosniff");
      await expect(page.locator(`.user-menu summary img[src="${src}"]`)).toHaveCount(1);

      await page.getByRole("button", { name: "Remove photo" }).click();
      await expect(page.getByText("Photo removed.")).toBeVisible();
      expect((await request.get(src)).status()).toBe(404);
    });

    test("name and email: a bad address is refused with the typed values kept", async ({ page }) => {
      const user = await createUser();
      const other = await createUser();
      await login(page, user.username, "agent", GOOD);
      await page.goto("/profile");
      if (javaScriptEnabled) await hydrated(page);
      await page.getByLabel("Name", { exact: true }).fill("Renamed Person");
      await page.getByRole("textbox", { name: "Email", exact: true }).fill("not-an-address");
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Please check the email address. not-an-address")).toBeVisible();
      await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Renamed Person");
      // a new email asks for the password (reset links go there)
      await page.getByRole("textbox", { name: "Email", exact: true }).fill(`New.${user.email}`);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Please enter your current password.")).toBeVisible();
      await expect(page.getByRole("textbox", { name: "Email", exact: true })).toHaveValue(`New.${user.email}`);
      const current = page.getByLabel("Current password (needed to change the email)");
      await current.fill(GOOD);
      await page.getByRole("textbox", { name: "Email", exact: true }).fill(other.email.toUpperCase());
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Another user already has this email address.")).toBeVisible();
      await page.getByRole("textbox", { name: "Email", exact: true }).fill(`New.${user.email}`);
      await current.fill(GOOD);
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByText("Profile updated.")).toBeVisible();
      await expect(page.getByRole("textbox", { name: "Email", exact: true })).toHaveValue(`new.${user.email}`);
      await expect(page.locator(".user-menu summary")).toContainText("Renamed Person");
    });

    test("password reset: the same answer for any name; the mailed link works once", async ({ page, browser, baseURL }) => {
      const user = await createUser();
      const other = await signedIn(browser, baseURL!, user, true);
      await page.goto("/");
      await page.getByRole("link", { name: "Forgot password?" }).click();
      await expect(page).toHaveURL(/\/password_reset$/);
      await page.getByRole("button", { name: "Send link" }).click();
      await expect(page.getByText("Please enter your username or email.")).toBeVisible();

      await page.getByLabel("Username or email").fill("nobody-has-this-name");
      await page.getByRole("button", { name: "Send link" }).click();
      const unknown = await page.getByRole("status").innerText();
      expect(unknown).toBe("If an account matches, we have sent a link.");

      await page.goto("/password_reset");
      await page.getByLabel("Username or email").fill(user.email);
      await page.getByRole("button", { name: "Send link" }).click();
      expect(await page.getByRole("status").innerText()).toBe(unknown);

      const link = lastResetLink(user.email);
      expect(link).toBeTruthy();
      await page.goto(link!);
      await expect(page.getByText(`For the account ${user.username}`)).toBeVisible();
      await page.getByLabel("New password", { exact: true }).fill("too short");
      await page.getByLabel("Confirm new password").fill("too short");
      await page.getByRole("button", { name: "Set password" }).click();
      await expect(page.getByText("The password must be at least 12 characters long.")).toBeVisible();
      await page.getByLabel("New password", { exact: true }).fill(NEW);
      await page.getByLabel("Confirm new password").fill(NEW);
      await page.getByRole("button", { name: "Set password" }).click();
      await expect(page.getByText("Your password has been changed. You can now sign in.")).toBeVisible();

      // every session ended
      await other.page.reload();
      await expect(other.page.locator(".login-card form")).toBeVisible();
      await other.close();

      await page.goto(link!);
      await expect(page.getByText("This link has expired or was already used.")).toBeVisible();
      await page.getByRole("link", { name: "Request a new link" }).click();
      await expect(page.getByLabel("Username or email")).toBeVisible();

      await login(page, user.username, "agent", NEW);
      // signed in, the reset page sends home
      await page.goto("/password_reset");
      await expect(page).toHaveURL(/\/$/);
    });

    test("custom statuses: an admin adds one that needs a reason, a user chooses it and sees it, the admin removes it", async ({ page, browser, baseURL }) => {
      const name = `Training ${randomBytes(3).toString("hex")}`;
      const admin = await createUser("admin");
      const agent = await signedIn(browser, baseURL!, await createUser(), javaScriptEnabled);
      try {
        await login(page, admin.username, "admin", GOOD);
        await page.goto("/settings/statuses");
        const add = page.getByRole("region", { name: "Add a status" });
        await add.getByLabel("Name").fill("Away");
        await add.getByRole("button", { name: "Add status" }).click();
        await expect(page.getByText("A status with this name already exists.")).toBeVisible();
        await expect(add.getByLabel("Name")).toHaveValue("Away");
        await add.getByLabel("Name").fill(name);
        await add.getByLabel("Needs a reason").check();
        await add.getByRole("button", { name: "Add status" }).click();
        await expect(page.getByText("Status added.")).toBeVisible();
        await expect(page.locator(`tr[data-status="${name}"]`)).toContainText("Yes");

        const a = agent.page;
        // an agent posting to the admins' page: 403, nothing added
        expect((await a.request.post("/settings/statuses", { form: { intent: "add", name: "Agents made this" } })).status()).toBe(403);
        await page.reload();
        await expect(page.locator('tr[data-status="Agents made this"]')).toHaveCount(0);
        await a.goto("/");
        if (javaScriptEnabled) await hydrated(a);
        await a.locator(".user-menu summary").click();
        const form = a.locator(".user-menu form.status-form");
        await form.getByLabel("Status").selectOption({ label: name });
        if (javaScriptEnabled) await expect(form.getByRole("button", { name: "Change status" })).toBeDisabled();
        else {
          await form.getByRole("button", { name: "Change status" }).click();
          await expect(a.getByText("Please give a reason.")).toBeVisible();
          await form.getByLabel("Status").selectOption({ label: name });
        }
        await form.getByLabel("Reason").fill("New hires");
        await form.getByRole("button", { name: "Change status" }).click();
        const banner = a.locator(".banner").filter({ hasText: `${name} for 0 minutes` });
        await expect(banner).toBeVisible();
        await expect(a.locator(".user-menu .presence")).toHaveClass(/presence-custom/);
        await banner.getByRole("button", { name: "go online" }).click();
        await expect(a.locator(".banner")).toHaveCount(0);

        await page.getByRole("button", { name: `Remove ${name}` }).click();
        await expect(page.getByText("Status removed.")).toBeVisible();
        await expect(page.locator(`tr[data-status="${name}"]`)).toHaveCount(0);
      } finally {
        await agent.close();
      }
    });
  });
}

test("the status menu alerts and reloads when the custom statuses cannot be fetched", async ({ page, baseURL, context }) => {
  // a new user's sign-in, hydration and a full reload: more than 30 s on a busy runner
  test.setTimeout(90_000);
  await chooseLanguage(context, baseURL!);
  const user = await createUser();
  await login(page, user.username, "agent", GOOD);
  await hydrated(page);
  await page.route("**/api/customstatus/get", (route) => route.fulfill({ status: 500, body: "down" }));
  const alerted = page.waitForEvent("dialog");
  await page.locator(".user-menu summary").click();
  const dialog = await alerted;
  expect(dialog.message()).toBe("Failed to fetch custom status. Reload page to fix it.");
  const reloaded = page.waitForEvent("load");
  await dialog.accept();
  await reloaded;
  await expect(page.locator(".shell")).toBeVisible();
});
