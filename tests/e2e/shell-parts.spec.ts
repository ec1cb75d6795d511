// The shell's pieces of issue 16: lazy-load retry, the image viewer, ?message_id=, the removed
// modal, new-ticket notices that follow the list's filters, the debug shortcuts.
import { test, expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { deflateSync } from "node:zlib";
import { PASSWORD, chooseLanguage, hydrated, login } from "./helpers";

/** A grey PNG of w x h pixels (big enough to be seen and clicked). */
function png(w: number, h: number) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.concat(Array.from({ length: h }, () => Buffer.concat([Buffer.from([0]), Buffer.alloc(w, 0x88)])));
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
const PNG = png(160, 120);
const IMAGES = ["one.png", "two.png", "three.png"];

test.describe.configure({ mode: "serial" });

let chatUrl = "";
let chatNumber = 0;

async function contextFor(browser: Browser, baseURL: string, javaScriptEnabled = true): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled });
  await chooseLanguage(context, baseURL);
  return context;
}

async function signedIn(browser: Browser, baseURL: string, username: string, type: "admin" | "agent", javaScriptEnabled = true): Promise<Page> {
  const page = await (await contextFor(browser, baseURL, javaScriptEnabled)).newPage();
  await login(page, username, type);
  return page;
}

/** The conversation route's own data requests (not the shell's, the frame's or the plugin gate's). */
const isConversationData = (url: URL) => /^plugin\/[a-z_]+\/\d+$/.test(url.searchParams.get("_data") ?? "");

test.beforeAll(async ({ browser, baseURL }) => {
  test.setTimeout(90_000);
  // a workspace chat of agent and agent2 with more messages than one page, ending with three images
  const page = await signedIn(browser, baseURL!, "agent", "agent");
  await page.goto("/?list=chat");
  await page.getByRole("link", { name: "New chat" }).click();
  await page.getByLabel("Subject").fill(`Shell parts ${Date.now()}`);
  await page.getByRole("checkbox", { name: "Brian Agent" }).check();
  await page.getByLabel("Message", { exact: true }).fill("The very first message");
  await page.getByRole("button", { name: "Start chat" }).click();
  await expect(page).toHaveURL(/\/chat\/\d+$/);
  chatUrl = new URL(page.url()).pathname;
  chatNumber = Number(chatUrl.split("/").pop());
  for (let i = 1; i <= 32; i++) {
    const res = await page.request.post(chatUrl, { multipart: { intent: "reply", message: `Line ${i}` }, headers: { Origin: baseURL! } });
    expect(res.ok()).toBe(true);
  }
  await page.reload();
  await page.getByLabel("Attachments").setInputFiles(IMAGES.map((name) => ({ name, mimeType: "image/png", buffer: PNG })));
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.locator("img.message-image")).toHaveCount(3);
  await page.context().close();
});

test.describe("older messages", () => {
  test("a failed load is retried 5 s later and then shows the older messages", async ({ browser, baseURL }) => {
    const page = await signedIn(browser, baseURL!, "agent", "agent");
    await page.clock.install();
    await page.goto(chatUrl);
    await hydrated(page);
    let tries = 0;
    await page.route(isConversationData, (route) => (++tries <= 2 ? route.abort("connectionfailed") : route.continue()));
    await page.getByRole("link", { name: "Load older messages" }).click();
    for (const failed of [1, 2]) {
      await expect.poll(() => tries).toBe(failed);
      await expect(page.locator(".text-body", { hasText: "The very first message" })).toHaveCount(0);
      await page.clock.fastForward(5_000);
    }
    await expect(page.locator(".text-body", { hasText: "The very first message" })).toBeVisible();
    expect(tries).toBe(3);
    await page.context().close();
  });

  test("after 5 retries 5 s apart the alert 'maximum retries exceeded' shows", async ({ browser, baseURL }) => {
    const page = await signedIn(browser, baseURL!, "agent", "agent");
    await page.clock.install();
    await page.goto(chatUrl);
    await hydrated(page);
    let tries = 0;
    await page.route(isConversationData, (route) => (tries++, route.abort("connectionfailed")));
    await page.getByRole("link", { name: "Load older messages" }).click();
    for (let failed = 1; failed <= 5; failed++) {
      await expect.poll(() => tries).toBe(failed);
      await expect(page.getByRole("alert")).toHaveCount(0);
      await page.clock.fastForward(5_000);
    }
    await expect(page.getByRole("alert")).toContainText("maximum retries exceeded");
    expect(tries).toBe(6);
    // its link loads the same address again, as a plain page
    await page.unroute(isConversationData);
    await page.getByRole("link", { name: "Try again", exact: true }).click();
    await expect(page.locator(".text-body", { hasText: "The very first message" })).toBeVisible();
    await page.context().close();
  });

  test("without JavaScript the link is a plain link to the page with older messages", async ({ browser, baseURL }) => {
    const page = await signedIn(browser, baseURL!, "agent", "agent", false);
    await page.goto(chatUrl);
    await expect(page.locator(".text-body", { hasText: "The very first message" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Load older messages" })).toHaveAttribute("href", /before=\d+/);
    await page.getByRole("link", { name: "Load older messages" }).click();
    await expect(page.locator(".text-body", { hasText: "The very first message" })).toBeVisible();
    await page.context().close();
  });
});

for (const javaScriptEnabled of [true, false]) {
  test(`?message_id= shows, marks and scrolls to a message older than the first page, JavaScript ${javaScriptEnabled ? "on" : "off"}`, async ({
    browser,
    baseURL,
  }) => {
    const page = await signedIn(browser, baseURL!, "agent", "agent", javaScriptEnabled);
    await page.goto(chatUrl);
    await page.getByRole("link", { name: "Load older messages" }).click();
    const first = page.locator(".message-list > li", { has: page.locator(".text-body", { hasText: "The very first message" }) });
    const id = (await first.getAttribute("id"))!.slice("m-".length);

    await page.goto(`${chatUrl}?message_id=${id}`);
    const target = page.locator(`#m-${id}`);
    await expect(target).toHaveClass(/message-target/);
    await expect(target).toHaveAttribute("aria-current", "true");
    await expect(target).toBeInViewport();
    await expect(target).toBeFocused();
    // the newest messages are further down, out of view
    await expect(page.locator(".message-list > li").last()).not.toBeInViewport();
    await page.context().close();
  });
}

test.describe("image viewer", () => {
  test("opens over the conversation; arrows, swipe, Tab stays inside, Escape returns focus", async ({ browser, baseURL }) => {
    const page = await signedIn(browser, baseURL!, "agent", "agent");
    await page.goto(chatUrl);
    await hydrated(page);
    const opener = page.locator("a[data-image-link]").first();
    await opener.click();
    const dialog = page.getByRole("dialog", { name: /one\.png \(1 of 3\)/ });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("img", { name: "one.png" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Close the image viewer" })).toBeFocused();

    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("dialog", { name: /two\.png \(2 of 3\)/ })).toBeVisible();
    await page.keyboard.press("ArrowLeft");
    await expect(page.getByRole("dialog", { name: /one\.png \(1 of 3\)/ })).toBeVisible();

    // a swipe to the left shows the next image, to the right the previous one
    const stage = page.locator(".image-viewer-stage");
    const box = (await stage.boundingBox())!;
    const swipe = async (dx: number) => {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + dx, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
    };
    await swipe(-120);
    await expect(page.getByRole("dialog", { name: /two\.png \(2 of 3\)/ })).toBeVisible();
    await swipe(-120);
    await expect(page.getByRole("dialog", { name: /three\.png \(3 of 3\)/ })).toBeVisible();
    await swipe(120);
    await expect(page.getByRole("dialog", { name: /two\.png \(2 of 3\)/ })).toBeVisible();

    // focus stays in the dialog
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => !!document.activeElement?.closest(".image-viewer"))).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(opener).toBeFocused();
    await page.context().close();
  });

  test("without JavaScript each image is a plain link to its file", async ({ browser, baseURL }) => {
    const page = await signedIn(browser, baseURL!, "agent", "agent", false);
    await page.goto(chatUrl);
    const link = page.locator("a[data-image-link]").first();
    await expect(link).toHaveAttribute("href", /^\/files\/v101\/\d+\/one\.png$/);
    const res = await page.request.get((await link.getAttribute("href"))!);
    expect(res.headers()["content-type"]).toContain("image/png");
    await expect(link.getByRole("img", { name: "one.png" })).toBeVisible();
    await page.context().close();
  });
});

test.describe("new-ticket notices follow the list's filters", () => {
  test("only the pages whose channel, department, campaign and priority filters the ticket passes hear of it", async ({ browser, baseURL }) => {
    const context = await contextFor(browser, baseURL!);
    const agent = await context.newPage();
    await login(agent, "agent", "agent");
    const pages: Record<string, Page> = {
      all: agent,
      whatsapp: await context.newPage(),
      lowPriority: await context.newPage(),
      noPriority: await context.newPage(),
    };
    await pages.whatsapp.goto("/?channel=WHATSAPP");
    await pages.lowPriority.goto("/?priority=L");
    await pages.noPriority.goto("/?priority=none");
    for (const page of Object.values(pages)) await expect(page.locator("html")).toHaveAttribute("data-realtime", "connected");

    const visitor = await (await contextFor(browser, baseURL!)).newPage();
    await visitor.goto("/new_ticket/demo");
    await visitor.getByLabel("Name").fill("Nadia Visitor");
    await visitor.getByLabel("Email").fill("nadia@example.com");
    await visitor.getByLabel("Subject").fill(`Filtered notice ${Date.now()}`);
    await visitor.getByLabel("Message").fill("Hello");
    await visitor.getByRole("button", { name: "Submit" }).click();
    await expect(visitor.getByRole("heading", { name: "Message sent" })).toBeVisible();

    await expect(pages.all.locator(".notice-toast")).toContainText(/New conversation #\d+/);
    await expect(pages.noPriority.locator(".notice-toast")).toContainText(/New conversation #\d+/);
    await expect(pages.whatsapp.locator(".notice-toast")).toHaveCount(0);
    await expect(pages.lowPriority.locator(".notice-toast")).toHaveCount(0);
    await visitor.context().close();
    await context.close();
  });
});

test.describe("debug shortcuts", () => {
  test("an admin's alt+shift+letter each does what its name says; holding Alt shows the action mode", async ({ browser, baseURL }) => {
    const page = await signedIn(browser, baseURL!, "admin", "admin");
    await hydrated(page);
    await expect(page.locator("html")).toHaveAttribute("data-realtime", "connected");
    const panel = page.locator(".debug-panel");

    await page.keyboard.down("Alt");
    await expect(page.locator('[data-debug="action-mode"]')).toContainText("Alt+Shift+S Socket debug");
    await page.keyboard.up("Alt");
    await expect(page.locator('[data-debug="action-mode"]')).toHaveCount(0);

    await page.keyboard.press("Alt+Shift+KeyS");
    await expect(page.getByRole("dialog", { name: "Socket debug" })).toBeVisible();
    await expect(panel.locator('[data-debug="socket-status"]')).toHaveText("connected");
    await expect(panel.getByRole("button", { name: "Close the debug panel" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(panel).toHaveCount(0);

    await page.keyboard.press("Alt+Shift+KeyV");
    await expect(page.getByRole("dialog", { name: "Variable check" })).toContainText("(admin, admin)");

    await page.keyboard.press("Alt+Shift+KeyT");
    await expect(page.getByRole("dialog", { name: "Test send" })).toContainText(/The server answered in \d+ ms\./);

    await page.keyboard.press("Alt+Shift+KeyN");
    await expect(page.getByRole("dialog", { name: "Test notification" })).toContainText("This is a test notification.");

    await page.keyboard.press("Alt+Shift+KeyD");
    await expect(panel).toContainText("Socket.io debug is on");
    await page.keyboard.press("Alt+Shift+KeyD");
    await expect(panel).toContainText("Socket.io debug is off.");

    // the rejection has happened (and the page's own listener, added first, has logged it) before the log opens
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          window.addEventListener("unhandledrejection", () => setTimeout(resolve), { once: true });
          setTimeout(() => Promise.reject(new Error("boom for the log")));
        }),
    );
    await page.keyboard.press("Alt+Shift+KeyE");
    await expect(page.getByRole("dialog", { name: "Error log" })).toContainText("boom for the log");

    await page.keyboard.press("Alt+Shift+KeyC");
    await expect(page.getByRole("link", { name: "Refresh Now" })).toBeVisible();
    await page.context().close();
  });

  test("agents have them only while the workspace's debug setting is on", async ({ browser, baseURL, request }) => {
    const setDebug = async (value: string) => {
      const token = (await (await request.post("/api/auth2", { data: { client: "admin", password: PASSWORD, type: "admin" } })).json()).token;
      const res = await request.post("/api/settings/update_2", { data: { _token: token, function: "debug_shortcuts", value } });
      expect(res.ok()).toBe(true);
    };
    const page = await signedIn(browser, baseURL!, "agent", "agent");
    await hydrated(page);
    await page.keyboard.press("Alt+Shift+KeyV");
    await page.keyboard.press("Alt+Shift+KeyS");
    await expect(page.locator(".debug-panel")).toHaveCount(0);
    try {
      await setDebug("1");
      await page.reload();
      await hydrated(page);
      // the shortcuts' code loads lazily after hydration; a key pressed before it arrives is not heard
      await expect(async () => {
        await page.keyboard.press("Alt+Shift+KeyV");
        await expect(page.getByRole("dialog", { name: "Variable check" })).toContainText("(agent, agent)", { timeout: 1000 });
      }).toPass();
    } finally {
      await setDebug("0");
    }
    await page.context().close();
  });
});

test.describe("removed from the open conversation", () => {
  test('agent2 sees "You\'ve got removed!" and the chat leaves their lists; the page then answers Access denied', async ({ browser, baseURL }) => {
    // three sign-ins and a live removal: more than 30 s on a busy runner
    test.setTimeout(90_000);
    const agent2 = await signedIn(browser, baseURL!, "agent2", "agent");
    await agent2.goto(`${chatUrl}?list=chat`);
    await expect(agent2.locator(`.ticket-item[data-ticket="${chatNumber}"]`)).toHaveCount(1);
    await expect(agent2.locator(".conversation")).toHaveAttribute("data-live", "on");

    const admin = await signedIn(browser, baseURL!, "admin", "admin");
    await admin.goto(chatUrl);
    await admin.getByRole("button", { name: "Remove Brian Agent" }).click();
    await expect(admin.getByRole("button", { name: "Remove Brian Agent" })).toHaveCount(0);

    const modal = agent2.getByRole("alertdialog", { name: "You've got removed!" });
    await expect(modal).toBeVisible();
    await expect(modal).toContainText("You are not longer a participant in this conversation.");
    await expect(modal.getByRole("link", { name: "Close" })).toBeFocused();
    await expect(agent2.locator(`.ticket-item[data-ticket="${chatNumber}"]`)).toHaveCount(0);
    await modal.getByRole("link", { name: "Close" }).click();
    await expect(agent2).toHaveURL(/\/$/);
    await expect(modal).toHaveCount(0);

    // without JavaScript the next load of the page answers by the access rules
    const plain = await signedIn(browser, baseURL!, "agent2", "agent", false);
    expect((await plain.goto(chatUrl))!.status()).toBe(403);
    await expect(plain.getByText("You cannot read this conversation.")).toBeVisible();
    for (const p of [agent2, admin, plain]) await p.context().close();
  });
});
