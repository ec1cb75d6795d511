// Changing the passphrase of an end-to-end encryption key's backup on /e2ee/keys: the browser opens
// the stored backup with the current passphrase (a wrong one is refused and nothing changes), seals
// the same key again with the new one and stores it. A fresh browser profile then restores the key
// with the new passphrase (and reads a message sealed before the change), never with the old one;
// the same message tampered with on the way shows as 'Message could not be decrypted'. Without
// JavaScript the page says that changing the passphrase needs JavaScript.
import { expect, test, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, hydrated, login } from "./helpers";

const OLD_PASSPHRASE = "paper lantern 1961 old";
const NEW_PASSPHRASE = "granite harbour 2042 new";
const SECRET = `Sealed before the change ${Date.now()}`;

const panel = (page: Page) => page.locator('[data-panel="e2ee"]');
const changeForm = (page: Page) => page.locator("form", { has: page.getByRole("heading", { name: "Change the backup's passphrase" }) });
const restoreForm = (page: Page) => page.locator("form", { has: page.getByRole("heading", { name: "Use your key on this browser" }) });
/** The backup the server holds for the signed-in user (what the browser would fetch). */
const storedBackup = async (page: Page) => ((await (await page.request.get("/api/e2ee/backup")).json()) as { data: { salt: string; blob: string } }).data;

async function changePassphrase(page: Page, current: string, next: string) {
  const form = changeForm(page);
  await form.getByLabel("Current passphrase").fill(current);
  await form.getByLabel("New passphrase (at least 10 characters)").fill(next);
  await form.getByLabel("New passphrase again").fill(next);
  await form.getByRole("button", { name: "Change passphrase" }).click();
}

async function restore(page: Page, passphrase: string) {
  await restoreForm(page).getByLabel("Passphrase (at least 10 characters)").fill(passphrase);
  await restoreForm(page).getByRole("button", { name: "Restore my key" }).click();
}

test("changing the key backup's passphrase: a wrong current one changes nothing, the new one restores the key on a fresh profile and the old one no longer does", async ({
  browser,
  baseURL,
}) => {
  // generous: PBKDF2 at 600 000 iterations runs seven times in the browsers, slow on a loaded machine
  test.setTimeout(480_000);
  const first = await browser.newContext();
  await chooseLanguage(first, baseURL!);
  const admin = await first.newPage();
  await login(admin, "admin", "admin");

  // a key made in this browser with the old passphrase
  await admin.goto("/e2ee/keys");
  await hydrated(admin);
  await expect(admin.locator("[data-key-here]")).toBeVisible();
  await expect(changeForm(admin)).toHaveCount(0);
  const setup = admin.locator("form", { has: admin.getByRole("heading", { name: "Set up a new key" }) });
  await setup.getByLabel("Passphrase (at least 10 characters)").fill(OLD_PASSPHRASE);
  await setup.getByLabel("Passphrase again").fill(OLD_PASSPHRASE);
  await setup.getByRole("button", { name: "Create my key" }).click();
  await expect(admin.getByText("Your key was created and its backup stored.")).toBeVisible({ timeout: 20_000 });
  const fingerprint = (await admin.getByText(/Your published key's fingerprint/).textContent())!;

  // a message sealed with it, in an encrypted chat
  await admin.goto("/?list=chat");
  await admin.getByRole("link", { name: "New chat" }).click();
  await admin.getByLabel("Subject").fill(`Passphrase change ${Date.now()}`);
  await admin.getByRole("checkbox", { name: "Alya Agent" }).check();
  await admin.getByLabel("Message", { exact: true }).fill("Before encryption");
  await admin.getByRole("button", { name: "Start chat" }).click();
  await expect(admin).toHaveURL(/\/chat\/\d+$/);
  const url = new URL(admin.url()).pathname;
  await panel(admin).getByRole("link", { name: "Turn on encryption" }).click();
  await admin.getByRole("button", { name: "Turn on encryption" }).click();
  await expect(admin).toHaveURL(new RegExp(`${url}$`));
  await hydrated(admin);
  await admin.getByRole("textbox", { name: "Reply", exact: true }).fill(SECRET);
  await admin.getByRole("button", { name: "Send" }).click();
  await expect(admin.locator('[data-e2ee-state="decrypted"]', { hasText: SECRET })).toBeVisible({ timeout: 20_000 });

  // a wrong current passphrase: refused in the browser, the stored backup untouched
  await admin.goto("/e2ee/keys");
  await hydrated(admin);
  await expect(changeForm(admin)).toBeVisible();
  const before = await storedBackup(admin);
  await changePassphrase(admin, "not my passphrase at all", NEW_PASSPHRASE);
  await expect(admin.getByRole("alert")).toHaveText("The current passphrase is wrong: nothing was changed.", { timeout: 30_000 });
  expect(await storedBackup(admin)).toEqual(before);
  // the new one twice, differently: refused before any work
  const form = changeForm(admin);
  await form.getByLabel("Current passphrase").fill(OLD_PASSPHRASE);
  await form.getByLabel("New passphrase (at least 10 characters)").fill(NEW_PASSPHRASE);
  await form.getByLabel("New passphrase again").fill(`${NEW_PASSPHRASE}!`);
  await form.getByRole("button", { name: "Change passphrase" }).click();
  await expect(admin.getByRole("alert")).toHaveText("The passphrases do not match.");
  expect(await storedBackup(admin)).toEqual(before);

  // the right one: the same key sealed again, stored in place of the old backup
  await changePassphrase(admin, OLD_PASSPHRASE, NEW_PASSPHRASE);
  await expect(admin.getByText("The passphrase was changed: from now on, use the new one to restore your key on another browser.")).toBeVisible({
    timeout: 30_000,
  });
  const after = await storedBackup(admin);
  expect(after.salt).not.toBe(before.salt);
  expect(after.blob).not.toBe(before.blob);
  // the key itself did not change: same fingerprint, still here
  await expect(admin.getByText(/Your published key's fingerprint/)).toHaveText(fingerprint);
  await expect(admin.locator("[data-key-here]")).toHaveAttribute("data-key-here", "yes");
  expect(await axeViolations(admin)).toEqual([]);

  // a fresh browser profile: the old passphrase no longer opens the backup, the new one does
  const fresh = await browser.newContext();
  await chooseLanguage(fresh, baseURL!);
  const laptop = await fresh.newPage();
  await login(laptop, "admin", "admin");
  await laptop.goto("/e2ee/keys");
  await hydrated(laptop);
  await expect(laptop.locator("[data-key-here]")).toHaveAttribute("data-key-here", "no");
  await restore(laptop, OLD_PASSPHRASE);
  await expect(laptop.getByRole("alert")).toHaveText("The passphrase is wrong, or the backup was changed.", { timeout: 30_000 });
  await expect(laptop.locator("[data-key-here]")).toHaveAttribute("data-key-here", "no");
  await restore(laptop, NEW_PASSPHRASE);
  await expect(laptop.getByText("Your key is ready on this browser.")).toBeVisible({ timeout: 30_000 });
  await expect(laptop.locator("[data-key-here]")).toHaveAttribute("data-key-here", "yes");
  // the restored key opens what was sealed before the change
  await laptop.goto(url);
  await expect(laptop.locator('[data-e2ee-state="decrypted"]', { hasText: SECRET })).toBeVisible({ timeout: 20_000 });

  // the same message with one character of its ciphertext changed on the way (in the page and its
  // data alike): 'Message could not be decrypted', never any text of it
  const page = new RegExp(`${url}$`);
  await laptop.route(page, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    const ct = /ct&quot;:&quot;([A-Za-z0-9+/]{24,})/.exec(html)![1];
    const chunk = ct.slice(8, 20);
    const changed = (chunk[0] === "A" ? "B" : "A") + chunk.slice(1);
    await route.fulfill({ response, body: html.split(chunk).join(changed) });
  });
  await laptop.reload();
  await expect(laptop.locator('[data-e2ee-state="undecryptable"]')).toHaveText("Message could not be decrypted", { timeout: 20_000 });
  await expect(laptop.getByText(SECRET)).toHaveCount(0);
  await laptop.unroute(page);
  await laptop.reload();
  await expect(laptop.locator('[data-e2ee-state="decrypted"]', { hasText: SECRET })).toBeVisible({ timeout: 20_000 });

  // without JavaScript: no form that cannot work, the honest text
  const nojs = await browser.newContext({ javaScriptEnabled: false });
  await chooseLanguage(nojs, baseURL!);
  const plain = await nojs.newPage();
  await login(plain, "admin", "admin");
  await plain.goto("/e2ee/keys");
  await expect(plain.getByText("Changing the passphrase of your key's backup needs JavaScript too")).toBeVisible();
  await expect(plain.getByRole("button", { name: "Change passphrase" })).toHaveCount(0);
  await Promise.all([first, fresh, nojs].map((c) => c.close()));
});
