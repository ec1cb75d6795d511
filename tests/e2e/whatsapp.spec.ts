// WhatsApp end to end, JavaScript on and off: an admin connects a number (pointing at a local
// stand-in of Meta's Graph API) and gives Meta the webhook URL the page shows; a customer's signed
// message becomes a conversation in the agent's list (live with JavaScript); the agent answers;
// the stand-in receives the answer; its delivery and read receipts show on the message.
import { test, expect, type Browser, type Page } from "@playwright/test";
import { chooseLanguage, hydrated, login } from "./helpers";
import { startMetaStandin, waContact, waStatus, waText, whatsappBody, type MetaStandin } from "../support/meta-standin";

let meta: MetaStandin;
let webhookUrl = "";

test.beforeAll(async () => {
  meta = await startMetaStandin();
  meta.addTemplate({
    name: "order_update",
    language: "en_US",
    components: [
      { type: "BODY", text: "Hello {{1}}, your order {{2}} has shipped." },
      { type: "FOOTER", text: "Reply STOP to opt out" },
    ],
  });
});
test.afterAll(async () => meta?.close());

/** The admin adds the WhatsApp account through the settings page and reads its webhook URL there. */
async function connectNumber(page: Page) {
  await login(page, "admin", "admin");
  await page.goto("/settings/channels");
  await page.getByLabel("Channel", { exact: true }).selectOption({ label: "WhatsApp" });
  await page.getByRole("button", { name: "Show its form" }).click();
  const form = page.getByRole("form", { name: "New WhatsApp account" });
  await form.getByLabel("Name", { exact: true }).fill("WhatsApp support");
  await form.getByLabel("Address", { exact: true }).fill(`+1555${Date.now() % 10_000_000}`);
  await form.getByLabel("Department", { exact: true }).selectOption({ label: "Support" });
  await form.getByLabel("Phone number ID").fill(meta.phoneNumberId);
  await form.getByLabel("WhatsApp Business Account ID").fill(meta.businessAccountId);
  await form.getByLabel("Access token").fill(meta.accessToken);
  await form.getByLabel("App secret").fill(meta.appSecret);
  await form.getByLabel("Webhook verify token").fill("e2e-verify");
  await form.getByLabel("Graph API address").fill(meta.apiBase);
  await form.getByRole("button", { name: "Add account" }).click();
  await expect(page).toHaveURL(/\/settings\/channels\/\d+\?created=1/);
  // the Test button reaches the (stand-in) number
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(page.getByTestId("account-state")).toContainText("Working");
  webhookUrl = await page.getByLabel("Webhook URL", { exact: true }).inputValue();
  expect(webhookUrl).toMatch(/\/hooks\/channels\/\d+$/);
  // Meta's subscription handshake against that URL
  const handshake = await page.request.get(`${webhookUrl}?hub.mode=subscribe&hub.verify_token=e2e-verify&hub.challenge=424242`);
  expect(await handshake.text()).toBe("424242");
  await page.context().clearCookies();
}

/** The number is connected once, by whichever test comes first. */
async function ensureConnected(browser: Browser, baseURL: string) {
  if (webhookUrl) return;
  const admin = await browser.newPage({ baseURL });
  await chooseLanguage(admin.context(), baseURL);
  await connectNumber(admin);
  await admin.close();
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`WhatsApp with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("a customer's message reaches the agent's list, the answer reaches the customer, receipts show on it", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      await ensureConnected(browser, baseURL!);
      const from = `6012${Date.now() % 10_000_000}`;
      const name = `Aisyah ${javaScriptEnabled ? "js" : "nojs"} ${Date.now() % 100000}`;
      const question = `Where is parcel ${from}?`;

      await login(page, "agent", "agent");
      await page.goto("/ticket");
      if (javaScriptEnabled) {
        await hydrated(page);
        await expect(page.locator("html")).toHaveAttribute("data-realtime", "connected");
      }
      const sent = await meta.deliver(webhookUrl, whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, name)], messages: [waText(from, question)] }));
      expect(sent.status).toBe(200);
      // an unsigned copy is refused and changes nothing
      expect((await meta.deliver(webhookUrl, whatsappBody(meta.phoneNumberId, { messages: [waText(from, "unsigned")] }), { secret: null })).status).toBe(401);

      // with JavaScript the page updates itself; without, the agent reloads until it shows
      const eventually = async (check: (timeout: number) => Promise<void>) => {
        if (javaScriptEnabled) return check(15_000);
        await expect(async () => {
          await page.reload();
          await check(1000);
        }).toPass({ timeout: 15_000 });
      };
      const list = page.getByRole("region", { name: "Conversations" });
      const item = list.locator(".ticket-item", { hasText: question });
      await eventually((timeout) => expect(item).toBeVisible({ timeout }));
      // the row names the channel with WhatsApp's logo beside it
      await expect(item.locator('[data-channel="WHATSAPP"]')).toHaveText("WhatsApp");
      await expect(item.locator('[data-channel="WHATSAPP"] svg[aria-hidden="true"]')).toBeVisible();
      await item.click();
      await expect(page.getByRole("heading", { level: 1 })).toContainText(question);
      await expect(page.locator(".message-list")).toContainText(name);

      const answer = `Your parcel ships today (${javaScriptEnabled ? "js" : "nojs"}).`;
      await page.getByRole("textbox", { name: "Reply", exact: true }).fill(answer);
      await page.getByRole("button", { name: "Send" }).click();
      const mine = page.locator(".message-list .message", { hasText: answer });
      await expect(mine).toBeVisible();
      // the stand-in received it, addressed to the customer
      await expect.poll(() => meta.sent.find((s) => s.to === from)?.body.text, { timeout: 15_000 }).toEqual({ body: answer, preview_url: false });
      const wamid = meta.sent.find((s) => s.to === from)!.id;

      const state = mine.locator("[data-delivery]");
      const showsState = (value: string) => eventually((timeout) => expect(state).toHaveAttribute("data-delivery", value, { timeout }));
      await showsState("sent");
      await meta.deliver(webhookUrl, whatsappBody(meta.phoneNumberId, { statuses: [waStatus(wamid, "delivered", from)] }));
      await showsState("delivered");
      await expect(state).toContainText("Delivered");
      await meta.deliver(webhookUrl, whatsappBody(meta.phoneNumberId, { statuses: [waStatus(wamid, "read", from)] }));
      await showsState("read");
      await expect(state).toContainText("Read");
    });

    test("after 24 hours the reply box says only a template goes out now; the agent sends an approved one", async ({ page, browser, baseURL }) => {
      test.setTimeout(90_000);
      await ensureConnected(browser, baseURL!);
      const from = `6013${Date.now() % 10_000_000}`;
      const question = `Any news on order ${from}?`;
      const yesterday = { ...waText(from, question), timestamp: String(Math.floor(Date.now() / 1000) - 30 * 3600) };
      expect(
        (await meta.deliver(webhookUrl, whatsappBody(meta.phoneNumberId, { contacts: [waContact(from, "Late customer")], messages: [yesterday] }))).status,
      ).toBe(200);

      await login(page, "agent", "agent");
      // its last activity is of yesterday, so it may be past the list's first page: found by search
      await expect(async () => {
        await page.goto(`/search?q=${encodeURIComponent(`order ${from}`)}`);
        await page.locator(".search-hit", { hasText: question }).first().click({ timeout: 1000 });
        await expect(page).toHaveURL(/\/ticket\/\d+/, { timeout: 3000 });
      }).toPass({ timeout: 20_000 });
      await expect(page.locator("[data-composer-hint]")).toContainText("More than 24 hours have passed since the customer's last message");
      await page.locator("[data-composer-hint]").getByRole("link", { name: "Send a template" }).click();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Send a WhatsApp template");
      await page.getByLabel("Template", { exact: true }).selectOption({ label: "order_update (en_US)" });
      await page.getByRole("button", { name: "Use this template" }).click();
      // an empty value is refused, the other one kept
      await page.getByLabel("Value 2").fill(`#${from}`);
      await page.getByRole("button", { name: "Send template" }).click();
      await expect(page.getByText("Enter a value.")).toBeVisible();
      await expect(page.getByLabel("Value 2")).toHaveValue(`#${from}`);
      await page.getByLabel("Value 1").fill("Aisyah");
      await page.getByRole("button", { name: "Send template" }).click();

      // the customer's message is of yesterday, the template of today: two days' lists
      await expect(page.locator(".message-list .message", { hasText: `Hello Aisyah, your order #${from} has shipped.` })).toBeVisible();
      await expect.poll(() => meta.sent.find((s) => s.to === from)?.type, { timeout: 15_000 }).toBe("template");
      expect(meta.sent.find((s) => s.to === from)!.body.template).toMatchObject({ name: "order_update", language: { code: "en_US" } });
    });
  });
}
