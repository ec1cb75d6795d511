// End-to-end encrypted workspace chat in three browser contexts (Alya, Brian, the admin): keys made
// in each browser, encryption turned on by a real form, messages and a file sealed in the sender's
// browser and opened in the others', safety numbers that agree, a removed participant who cannot
// open what comes after (until a participant shares the earlier key versions with them), private
// notes sealed like messages, the missing-key text with the draft kept, the key restored on a new
// browser profile from its passphrase, a swapped key flagged, encryption_method 'aes' with a
// shared passphrase, and the honest text without JavaScript.
import fs from "node:fs";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { chooseLanguage, hydrated, login } from "./helpers";

const PASSPHRASE = "tangerine submarine 1987";
const ROOM_PASSPHRASE = "told at the coffee machine";
const UNDECRYPTABLE = "Message could not be decrypted";
const MISSING_KEY = "You cannot read or send message because you don't have the encryption key on this browser.";

async function setUpKey(page: Page) {
  await page.goto("/e2ee/keys");
  await hydrated(page);
  await expect(page.locator("[data-key-here]")).toBeVisible();
  const setup = page.locator("form", { has: page.getByRole("heading", { name: "Set up a new key" }) });
  await setup.getByLabel("Passphrase (at least 10 characters)").fill(PASSPHRASE);
  await setup.getByLabel("Passphrase again").fill(PASSPHRASE);
  await setup.getByRole("button", { name: "Create my key" }).click();
  await expect(page.getByText("Your key was created and its backup stored.")).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(/Your published key's fingerprint/)).toBeVisible();
}

/** Each page signed in (in its own context) with a key made in its browser. */
async function signInWithKeys(baseURL: string, people: [Page, string, "admin" | "agent"][]) {
  for (const [page, user, type] of people) {
    await chooseLanguage(page.context(), baseURL);
    await login(page, user, type);
    await setUpKey(page);
  }
}

/** A new workspace chat by `page` with the people named; its path. */
async function startChat(page: Page, subject: string, people: string[], message: string) {
  await page.goto("/?list=chat");
  await page.getByRole("link", { name: "New chat" }).click();
  await page.getByLabel("Subject").fill(subject);
  for (const name of people) await page.getByRole("checkbox", { name }).check();
  await page.getByLabel("Message", { exact: true }).fill(message);
  await page.getByRole("button", { name: "Start chat" }).click();
  await expect(page).toHaveURL(/\/chat\/\d+$/);
  return new URL(page.url()).pathname;
}

const panel = (page: Page) => page.locator('[data-panel="e2ee"]');
/** The number this browser computes from the key it encrypts for (the one to compare out of band). */
const browserSafety = async (page: Page, name: string) =>
  (await panel(page).getByText(`Safety number with ${name}, as this browser computes it`).textContent())!.replace(/^.*: /, "").trim();

async function send(page: Page, text: string) {
  await page.getByRole("textbox", { name: "Reply", exact: true }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

/** A private note on a message. */
async function addNote(message: Locator, note: string) {
  await message.locator("summary", { hasText: "Actions" }).click();
  await message.getByLabel("Private note").fill(note);
  await message.getByRole("button", { name: "Add note" }).click();
}

test("an end-to-end encrypted chat: messages, a file, removal, safety numbers, restore from the passphrase", async ({ browser, baseURL }) => {
  test.setTimeout(180_000);
  const contexts = await Promise.all([0, 1, 2].map(() => browser.newContext({ acceptDownloads: true })));
  const [alya, brian, admin] = await Promise.all(contexts.map((c) => c.newPage()));
  await signInWithKeys(baseURL!, [
    [alya, "agent", "agent"],
    [brian, "agent2", "agent"],
    [admin, "admin", "admin"],
  ]);

  // Alya starts a chat with Brian and the admin, then turns encryption on (a real form)
  const subject = `Salary review ${Date.now()}`;
  const url = await startChat(alya, subject, ["Brian Agent", "Demo Admin"], "Before encryption");
  await expect(panel(alya).getByText("Off: messages are stored as written.")).toBeVisible();
  await panel(alya).getByRole("link", { name: "Turn on encryption" }).click();
  await alya.getByRole("button", { name: "Turn on encryption" }).click();
  await expect(alya).toHaveURL(new RegExp(`${url}$`));
  await expect(alya.getByText("End-to-end encrypted", { exact: true })).toBeVisible();
  await expect(alya.locator(".system-message", { hasText: "turned on end-to-end encryption" })).toBeVisible();

  // the first message makes key version 1 in Alya's browser; Brian and the admin read it
  await hydrated(alya);
  await send(alya, "The budget is 42k");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "The budget is 42k" })).toBeVisible({ timeout: 20_000 });
  await expect(alya.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue("");
  for (const page of [brian, admin]) {
    await page.goto(url);
    await expect(page.locator('[data-e2ee-state="decrypted"]', { hasText: "The budget is 42k" })).toBeVisible({ timeout: 20_000 });
  }

  // Brian sends a file: encrypted before upload, opened in Alya's browser
  const fileText = `Names and figures ${Date.now()}\n`;
  await hydrated(brian);
  await brian.getByLabel("Attachments").setInputFiles({ name: "figures.txt", mimeType: "text/plain", buffer: Buffer.from(fileText) });
  await brian.getByRole("button", { name: "Send" }).click();
  const fileButton = alya.getByRole("button", { name: /Download figures\.txt/ });
  await expect(fileButton).toBeVisible({ timeout: 20_000 });
  const downloading = alya.waitForEvent("download");
  await fileButton.click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("figures.txt");
  expect(fs.readFileSync((await download.path())!, "utf8")).toBe(fileText);
  // what the server hands out for that file is ciphertext
  const stored = await alya.evaluate(async () => {
    const link = document.querySelector<HTMLElement>("[data-e2ee-file]")!.dataset.e2eeFile!;
    return new TextDecoder().decode(await (await fetch(link)).arrayBuffer());
  });
  expect(stored).not.toContain("Names and figures");

  // a private note by Brian, sealed in his browser and bound to the message; Alya's opens it
  await addNote(brian.locator("article.message", { hasText: "The budget is 42k" }), "Check with finance first");
  await expect(alya.locator('[data-e2ee-note] [data-e2ee-state="decrypted"]')).toHaveText("Check with finance first", { timeout: 20_000 });

  // safety numbers, computed by each browser from the keys it encrypts for: the same digits on both sides
  await alya.reload();
  await brian.reload();
  const alyaSees = await browserSafety(alya, "Brian Agent");
  expect(alyaSees).toMatch(/^(\d{5} ){11}\d{5}$/);
  expect(await browserSafety(brian, "Alya Agent")).toBe(alyaSees);
  // the server's page shows none of its own (one it computed could hide a swapped key), and nothing is flagged
  await expect(panel(alya).getByText(/Safety numbers to compare are computed by your browser/)).toBeVisible();
  await expect(panel(alya).getByText(`Safety number with Brian Agent: `)).toHaveCount(0);
  await expect(panel(alya).locator("[data-e2ee-mismatch]")).toHaveCount(0);

  // the admin is removed: the next message is sealed with a new key version they do not get
  await alya.getByRole("button", { name: "Remove Demo Admin" }).click();
  await expect(panel(alya).getByText("A new key version is made when the next message is sent.")).toBeVisible();
  await hydrated(alya);
  await send(alya, "After the admin left");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "After the admin left" })).toBeVisible({ timeout: 20_000 });
  await brian.reload();
  await expect(brian.locator('[data-e2ee-state="decrypted"]', { hasText: "After the admin left" })).toBeVisible({ timeout: 20_000 });
  // admins may still open the conversation, but not what was sealed after they left
  await admin.reload();
  await expect(admin.locator('[data-e2ee-state="decrypted"]', { hasText: "The budget is 42k" })).toBeVisible({ timeout: 20_000 });
  await expect(admin.locator('[data-e2ee-state="undecryptable"]')).toHaveText(UNDECRYPTABLE);
  await expect(admin.getByText("After the admin left")).toHaveCount(0);

  // the admin is added back: they read what comes next, not what was sealed while they were out,
  // until Alya shares the earlier key versions with them
  await alya.getByLabel("Add a person").selectOption({ label: "Demo Admin" });
  await alya.getByRole("button", { name: "Add", exact: true }).click();
  await hydrated(alya);
  await send(alya, "Welcome back, admin");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "Welcome back, admin" })).toBeVisible({ timeout: 20_000 });
  await admin.reload();
  await expect(admin.locator('[data-e2ee-state="decrypted"]', { hasText: "Welcome back, admin" })).toBeVisible({ timeout: 20_000 });
  await expect(admin.locator('[data-e2ee-state="undecryptable"]')).toHaveText(UNDECRYPTABLE);
  await alya.reload();
  await panel(alya).getByRole("button", { name: "Share earlier messages with Demo Admin" }).click();
  await expect(panel(alya).getByText("Demo Admin can now read the earlier messages.")).toBeVisible({ timeout: 20_000 });
  // the admin's open page learns of it (the system message comes in) and opens the message
  await expect(admin.locator(".system-message", { hasText: "shared the earlier encrypted messages with Demo Admin" })).toBeVisible({ timeout: 20_000 });
  await expect(admin.locator('[data-e2ee-state="decrypted"]', { hasText: "After the admin left" })).toBeVisible({ timeout: 20_000 });
  await expect(admin.locator('[data-e2ee-state="undecryptable"]')).toHaveCount(0);

  // Brian on a new browser profile: no key here, sending blocked and the draft kept
  const fresh = await browser.newContext();
  await chooseLanguage(fresh, baseURL!);
  const brian2 = await fresh.newPage();
  await login(brian2, "agent2", "agent");
  await brian2.goto(url);
  await hydrated(brian2);
  await expect(brian2.locator("[data-e2ee-missing]")).toContainText(MISSING_KEY);
  await send(brian2, "A draft I keep");
  await expect(brian2.locator('[data-e2ee-say="error"]')).toHaveText(MISSING_KEY);
  await expect(brian2.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue("A draft I keep");
  // restore from the passphrase
  await brian2.goto("/e2ee/keys");
  await hydrated(brian2);
  const restore = brian2.locator("form", { has: brian2.getByRole("heading", { name: "Use your key on this browser" }) });
  await restore.getByLabel("Passphrase (at least 10 characters)").fill("not the passphrase");
  await restore.getByRole("button", { name: "Restore my key" }).click();
  await expect(brian2.getByRole("alert")).toHaveText("The passphrase is wrong, or the backup was changed.", { timeout: 20_000 });
  await restore.getByLabel("Passphrase (at least 10 characters)").fill(PASSPHRASE);
  await restore.getByRole("button", { name: "Restore my key" }).click();
  await expect(brian2.getByText("Your key is ready on this browser.")).toBeVisible({ timeout: 20_000 });
  await brian2.goto(url);
  await expect(brian2.locator('[data-e2ee-state="decrypted"]', { hasText: "After the admin left" })).toBeVisible({ timeout: 20_000 });
  await expect(brian2.locator('[data-e2ee-state="decrypted"]', { hasText: "The budget is 42k" })).toBeVisible();
  await hydrated(brian2);
  await send(brian2, "Back on a new laptop");
  await alya.reload();
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "Back on a new laptop" })).toBeVisible({ timeout: 20_000 });

  // without JavaScript: the list and the metadata, the honest text instead of the messages
  const nojs = await browser.newContext({ javaScriptEnabled: false });
  await chooseLanguage(nojs, baseURL!);
  const plain = await nojs.newPage();
  await login(plain, "agent", "agent");
  await plain.goto("/?list=chat");
  await expect(plain.locator(".ticket-item", { hasText: subject }).locator(".last")).toHaveText("Encrypted message");
  await plain.goto(url);
  await expect(plain.getByRole("heading", { name: new RegExp(subject) })).toBeVisible();
  await expect(plain.getByText("This message is end-to-end encrypted: it needs JavaScript to decrypt.").first()).toBeVisible();
  await expect(plain.getByText("The budget is 42k")).toHaveCount(0);
  await expect(plain.getByText("Check with finance first")).toHaveCount(0);
  await expect(plain.locator("[data-e2ee-note]")).toContainText("it needs JavaScript to decrypt");
  // a plain note is refused: it would be stored readable
  await addNote(plain.locator("article.message:has([data-e2ee-message])").last(), "a note without JavaScript");
  await expect(plain.getByRole("alert")).toContainText("Notes in an end-to-end encrypted conversation are encrypted in your browser");
  // a plain reply is refused, the text kept
  await send(plain, "typed without JavaScript");
  await expect(plain.getByRole("alert")).toContainText("This conversation is end-to-end encrypted");
  await expect(plain.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue("typed without JavaScript");

  await Promise.all([...contexts, fresh, nojs].map((c) => c.close()));
});

test("a participant's changed key is warned of before sending; the pages pass axe", async ({ browser, baseURL }) => {
  test.setTimeout(150_000);
  const contexts = await Promise.all([0, 1].map(() => browser.newContext()));
  const [alya, brian] = await Promise.all(contexts.map((c) => c.newPage()));
  await signInWithKeys(baseURL!, [
    [alya, "agent", "agent"],
    [brian, "agent2", "agent"],
  ]);
  const url = await startChat(alya, `Key check ${Date.now()}`, ["Brian Agent"], "Let us check our keys");
  await panel(alya).getByRole("link", { name: "Turn on encryption" }).click();
  await expect(alya).toHaveURL(/\/e2ee\/enable\/\d+$/);
  await expect(alya.getByRole("heading", { name: "Turn on end-to-end encryption" })).toBeVisible();
  const found = await axeViolations(alya);
  await alya.getByRole("button", { name: "Turn on encryption" }).click();
  await expect(alya).toHaveURL(new RegExp(`${url}$`));
  await hydrated(alya);
  await send(alya, "First, with the key I know");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "First, with the key I know" })).toBeVisible({ timeout: 20_000 });
  found.push(...(await axeViolations(alya)));

  // a key swapped on the way (the server hands Alya's browser another key for Brian than the
  // fingerprint it names for him): flagged beside the safety numbers, and warned of before sending
  const keysRoute = /\/api\/e2ee\/conversation\/\d+$/;
  await alya.route(keysRoute, async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    const response = await route.fetch();
    const body = await response.json();
    const mine = body.data.participants.find((p: { name: string }) => p.name === "Alya Agent");
    for (const p of body.data.participants) if (p.name === "Brian Agent") p.publicKey = mine.publicKey;
    await route.fulfill({ response, json: body });
  });
  await alya.reload();
  await expect(panel(alya).locator("[data-e2ee-mismatch]")).toContainText("the key this browser got for Brian Agent is not the one the server names", {
    timeout: 20_000,
  });
  await hydrated(alya);
  await send(alya, "Sent to a swapped key?");
  await expect(alya.locator('[data-e2ee-say="warning"]')).toContainText("Brian Agent");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "Sent to a swapped key?" })).toHaveCount(0);
  await alya.unroute(keysRoute);
  await alya.reload();
  await expect(panel(alya).getByText(/Safety number with Brian Agent, as this browser computes it/)).toBeVisible({ timeout: 20_000 });
  await expect(panel(alya).locator("[data-e2ee-mismatch]")).toHaveCount(0);

  // Brian makes a new key (another browser, say): Alya is warned before her next message goes
  await brian.goto("/e2ee/keys");
  await expect(brian.getByText("Creating a new key replaces your current one")).toBeVisible();
  await setUpKey(brian);
  found.push(...(await axeViolations(brian)));
  await alya.reload();
  await hydrated(alya);
  await send(alya, "Is this still you?");
  const warning = alya.locator('[data-e2ee-say="warning"]');
  await expect(warning).toContainText("The encryption key of Brian Agent changed since you last saw it.");
  await expect(alya.getByRole("textbox", { name: "Reply", exact: true })).toHaveValue("Is this still you?");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "Is this still you?" })).toHaveCount(0);
  await warning.getByRole("button", { name: "I checked: send" }).click();
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "Is this still you?" })).toBeVisible({ timeout: 20_000 });
  // sealed for Brian's new key: his browser reads it; what was sealed for his old key it cannot
  await brian.goto(url);
  await expect(brian.locator('[data-e2ee-state="decrypted"]', { hasText: "Is this still you?" })).toBeVisible({ timeout: 20_000 });
  await expect(brian.locator('[data-e2ee-state="undecryptable"]')).toHaveText(UNDECRYPTABLE);
  expect(found).toEqual([]);
  await Promise.all(contexts.map((c) => c.close()));
});

test("encryption_method 'aes': a shared passphrase entered in each browser, messages and notes; without JavaScript the honest text", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const contexts = await Promise.all([0, 1].map(() => browser.newContext()));
  const [alya, brian] = await Promise.all(contexts.map((c) => c.newPage()));
  // no personal keys needed: the key comes from the passphrase
  for (const [page, user] of [
    [alya, "agent"],
    [brian, "agent2"],
  ] as const) {
    await chooseLanguage(page.context(), baseURL!);
    await login(page, user, "agent");
  }
  const subject = `Shared secret ${Date.now()}`;
  const url = await startChat(alya, subject, ["Brian Agent"], "Before the passphrase");
  await panel(alya).getByRole("link", { name: "Turn on encryption" }).click();
  await alya.getByRole("radio", { name: /^AES: one key from a passphrase/ }).check();
  await alya.getByRole("button", { name: "Turn on encryption" }).click();
  await expect(alya).toHaveURL(new RegExp(`${url}$`));
  await expect(alya.locator(".system-message", { hasText: "turned on end-to-end encryption with a shared passphrase" })).toBeVisible();
  await expect(panel(alya).getByText(/including a participant who was removed/)).toBeVisible();

  // Alya is the first: she chooses the passphrase (twice) and sends
  await hydrated(alya);
  const first = alya.locator("[data-e2ee-passphrase]");
  await expect(first).toContainText("nobody has entered yet");
  await first.getByLabel("Conversation passphrase (at least 10 characters)").fill(ROOM_PASSPHRASE);
  await first.getByLabel("Passphrase again").fill(ROOM_PASSPHRASE);
  await first.getByRole("button", { name: "Unlock" }).click();
  await expect(alya.locator("[data-e2ee-missing]")).toHaveCount(0, { timeout: 20_000 });
  await send(alya, "The door code is 4711");
  await expect(alya.locator('[data-e2ee-state="decrypted"]', { hasText: "The door code is 4711" })).toBeVisible({ timeout: 20_000 });

  // Brian cannot read it until he enters the passphrase; a wrong one is told apart
  await brian.goto(url);
  await hydrated(brian);
  await expect(brian.locator('[data-e2ee-state="missing-key"]').first()).toHaveText(MISSING_KEY);
  const enter = brian.locator("[data-e2ee-passphrase]");
  await expect(enter).toContainText("Enter the passphrase the participants of this conversation share.");
  await enter.getByLabel("Conversation passphrase (at least 10 characters)").fill("not our passphrase");
  await enter.getByRole("button", { name: "Unlock" }).click();
  await expect(enter.getByRole("alert")).toHaveText("This is not the conversation's passphrase.", { timeout: 20_000 });
  await enter.getByLabel("Conversation passphrase (at least 10 characters)").fill(ROOM_PASSPHRASE);
  await enter.getByRole("button", { name: "Unlock" }).click();
  await expect(brian.locator('[data-e2ee-state="decrypted"]', { hasText: "The door code is 4711" })).toBeVisible({ timeout: 20_000 });
  // a note of his, opened in Alya's browser; the key stays on his browser across a reload
  await addNote(brian.locator("article.message", { hasText: "The door code is 4711" }), "Changes on Monday");
  await expect(alya.locator('[data-e2ee-note] [data-e2ee-state="decrypted"]')).toHaveText("Changes on Monday", { timeout: 20_000 });
  await brian.reload();
  await expect(brian.locator('[data-e2ee-state="decrypted"]', { hasText: "The door code is 4711" })).toBeVisible({ timeout: 20_000 });
  expect(await axeViolations(brian)).toEqual([]);

  // without JavaScript: turning it on works (a real form), the messages say they need JavaScript
  const nojs = await browser.newContext({ javaScriptEnabled: false });
  await chooseLanguage(nojs, baseURL!);
  const plain = await nojs.newPage();
  await login(plain, "agent", "agent");
  const other = await startChat(plain, `No script ${Date.now()}`, ["Brian Agent"], "Plain before");
  await plain.goto(`/e2ee/enable/${other.split("/").pop()}`);
  await plain.getByRole("radio", { name: /^AES: one key from a passphrase/ }).check();
  await plain.getByRole("button", { name: "Turn on encryption" }).click();
  await expect(plain).toHaveURL(new RegExp(`${other}$`));
  await expect(plain.getByText("End-to-end encrypted", { exact: true })).toBeVisible();
  await plain.goto(url);
  await expect(plain.getByText("This message is end-to-end encrypted: it needs JavaScript to decrypt.").first()).toBeVisible();
  await expect(plain.getByText("The door code is 4711")).toHaveCount(0);
  await expect(plain.getByText("Changes on Monday")).toHaveCount(0);
  await send(plain, "typed without JavaScript");
  await expect(plain.getByRole("alert")).toContainText("This conversation is end-to-end encrypted");
  await Promise.all([...contexts, nojs].map((c) => c.close()));
});
