// Public live chat: a visitor queues, an agent accepts, they talk, the chat ends and is rated.
// The visitor runs with JavaScript on and off; the agent runs with it on (an agent counts as
// online for live chat while their page is connected).
import { test, expect, type Browser, type Page } from "@playwright/test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { io } from "socket.io-client";
import { chooseLanguage, login, PASSWORD } from "./helpers";

async function agentPage(browser: Browser, baseURL: string, username = "agent") {
  const context = await browser.newContext();
  await chooseLanguage(context, baseURL);
  const page = await context.newPage();
  await login(page, username, username === "admin" ? "admin" : "agent");
  await expect(page.locator('html[data-realtime="connected"]')).toHaveCount(1);
  return { page, close: () => context.close() };
}

async function visitorPage(browser: Browser, javaScriptEnabled: boolean) {
  // a stranger: no language cookie, no session
  const context = await browser.newContext({ javaScriptEnabled });
  const page = await context.newPage();
  return { page, close: () => context.close() };
}

/** Fills the online form and joins the queue; returns the visit's URL. */
async function register(visitor: Page, name: string, message: string) {
  await visitor.goto("/livechat/demo");
  await expect(visitor.getByRole("heading", { name: "Live Chat" })).toBeVisible();
  await expect(visitor.getByText("You are connecting to")).toBeVisible();
  await visitor.getByRole("link", { name: "Continue" }).click();
  await visitor.getByLabel("Name").fill(name);
  await visitor.getByLabel("Phone").fill("+60 12 345 6789");
  await visitor.getByLabel("Email").fill(`visitor${Date.now()}@example.com`);
  await visitor.getByLabel("Message").fill(message);
  await visitor.getByRole("button", { name: "Connect" }).click();
  await expect(visitor.getByText(/Your queue number is \d+/)).toBeVisible();
  await expect(visitor.getByText("Do not refresh the page, otherwise you have to apply the queue again.")).toBeVisible();
  return visitor.url();
}

/** The agent accepts the waiting chat named `name` from the desk; ends on the chat's page. */
async function accept(agent: Page, name: string) {
  await agent.goto("/livechat");
  const waiting = agent.locator(".queue li", { hasText: name });
  await waiting.getByRole("button", { name: "Accept" }).click();
  await expect(agent).toHaveURL(/\/livechat\/\d+$/);
  await expect(agent.locator(".livechat-controls [data-state='active']")).toBeVisible();
}

async function agentReply(agent: Page, text: string) {
  await agent.getByRole("textbox", { name: "Reply", exact: true }).fill(text);
  await agent.getByRole("button", { name: "Send" }).click();
}

test("with nobody online the visitor leaves a message instead", async ({ browser }) => {
  const visitor = await visitorPage(browser, false);
  const page = visitor.page;
  // nobody online: straight from the link to the form that leaves a message
  await page.goto("/livechat/demo");
  await expect(page).toHaveURL(/\/register\/livechat\//);
  await expect(page.getByText("Unfortunately, we are offline now. Please leave us a message and we'll contact you shortly.")).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveCount(0);
  await page.getByRole("button", { name: "Submit" }).click();
  await expect(page.getByText("This cannot be empty.")).toHaveCount(1);
  await page.getByLabel("Message").fill("Please call me back tomorrow");
  await page.getByRole("button", { name: "Submit" }).click();
  await expect(page.getByRole("heading", { name: "Message sent" })).toBeVisible();
  await expect(page.getByText("Thank you for contacting us!")).toBeVisible();
  await visitor.close();
});

test("JavaScript on: queue, accept, messages both ways, typing, end, rating with a reason the agent sees", async ({ browser, baseURL }) => {
  const agent = await agentPage(browser, baseURL!);
  const visitor = await visitorPage(browser, true);
  const v = visitor.page;
  const name = `<i>Vera</i> ${Date.now()}`;

  await agent.page.goto("/livechat?list=livechat");
  await expect(agent.page.getByText("Nobody is waiting.")).toBeVisible();
  // the new page's socket, not the old one's, is what makes the agent count as online
  await expect(agent.page.locator('html[data-realtime="connected"]')).toHaveCount(1);

  await v.goto("/livechat/demo");
  await v.getByRole("link", { name: "Continue" }).click();
  await v.getByRole("button", { name: "Connect" }).click();
  await expect(v.getByText("This cannot be empty.")).toHaveCount(4);
  await register(v, name, "My order has not arrived");

  // the agent's desk shows the waiting visitor without a reload; the name is text, not markup
  await expect(agent.page.locator(".queue li", { hasText: name })).toBeVisible();
  await accept(agent.page, name);
  await expect(agent.page.locator(".text-body", { hasText: "My order has not arrived" })).toBeVisible();

  // the visitor is taken into the chat (after the 2 s pause)
  const box = v.getByRole("textbox", { name: "Message" });
  await expect(box).toBeVisible({ timeout: 10_000 });
  await expect(v.locator(".live-messages")).toContainText("My order has not arrived");

  await agentReply(agent.page, "Hello, let me check that for you");
  await expect(v.locator(".live-messages li.theirs", { hasText: "Hello, let me check that for you" })).toBeVisible();

  await box.pressSequentially("It was order 42", { delay: 30 });
  await expect(agent.page.getByText(/is typing/)).toBeVisible();
  await v.getByRole("button", { name: "Send" }).click();
  await expect(box).toHaveValue("");
  await expect(agent.page.locator(".text-body", { hasText: "It was order 42" })).toBeVisible();
  await expect(v.locator(".live-messages li.mine", { hasText: "It was order 42" })).toHaveCount(1);

  // the visitor ends the chat and rates it: stars first, then a reason under 5 stars
  await v.getByRole("button", { name: "End chat" }).click();
  await expect(v.getByRole("heading", { name: "Live Chat Ended" })).toBeVisible();
  await v.getByRole("button", { name: "Submit" }).click();
  await expect(v.getByText("Please fill in.")).toBeVisible();
  await v.getByLabel("3 stars").check();
  await v.getByRole("button", { name: "Submit" }).click();
  await expect(v.getByText("Please tell us what should we improve!")).toBeVisible();
  await v.getByLabel("Reason").fill("Took a while to answer");
  await v.getByRole("button", { name: "Submit" }).click();
  await expect(v.getByText("Thank you for your feedback.")).toBeVisible();

  await expect(agent.page.locator(".livechat-controls [data-state='ended']")).toBeVisible();
  await expect(agent.page.locator(".livechat-controls .rating")).toHaveText("Rating: 3/5 · Reason: Took a while to answer");
  await visitor.close();
  await agent.close();
});

test("JavaScript off: the visitor waits on a page that refreshes itself, reads and sends messages and rates", async ({ browser, baseURL }) => {
  const agent = await agentPage(browser, baseURL!);
  const visitor = await visitorPage(browser, false);
  const v = visitor.page;
  const name = `Noel ${Date.now()}`;
  await register(v, name, "Hello from a plain browser");

  await accept(agent.page, name);
  // the queue page reloads itself into the chat
  await expect(v.getByRole("textbox", { name: "Message" })).toBeVisible({ timeout: 15_000 });
  const frame = v.frameLocator("iframe.messages-frame");
  await expect(frame.locator("li", { hasText: "Hello from a plain browser" })).toBeVisible();

  await agentReply(agent.page, "Welcome, Noel");
  await expect(frame.locator("li.theirs", { hasText: "Welcome, Noel" })).toBeVisible({ timeout: 10_000 });

  await v.getByRole("textbox", { name: "Message" }).fill("Thanks!");
  await v.getByRole("button", { name: "Send" }).click();
  await expect(agent.page.locator(".text-body", { hasText: "Thanks!" })).toBeVisible();

  // too long: refused with a clear error, the text kept
  const long = "x".repeat(5001);
  await v.getByRole("textbox", { name: "Message" }).fill(long);
  await v.getByRole("button", { name: "Send" }).click();
  await expect(v.getByText("The message is too long (at most 5000 characters).")).toBeVisible();
  await expect(v.getByRole("textbox", { name: "Message" })).toHaveValue(long);

  // the agent ends it; the visitor's frame says so and leads to the rating
  await agent.page.getByRole("button", { name: "End live chat" }).click();
  await frame.getByRole("link", { name: "The chat is over. Continue" }).click({ timeout: 10_000 });
  await v.getByLabel("5 stars").check();
  await v.getByRole("button", { name: "Submit" }).click();
  await expect(v.getByRole("heading", { name: "Live Chat Ended" })).toBeVisible();
  await expect(v.getByText("Thank you for your feedback.")).toBeVisible();
  await agent.page.reload();
  await expect(agent.page.locator(".livechat-controls .rating")).toHaveText("Rating: 5/5");
  await visitor.close();
  await agent.close();
});

test("the agent converts a chat to a ticket, and the visitor sees it converted", async ({ browser, baseURL }) => {
  const agent = await agentPage(browser, baseURL!);
  const visitor = await visitorPage(browser, true);
  const name = `Cora ${Date.now()}`;
  await register(visitor.page, name, "I need an invoice");
  await accept(agent.page, name);
  await agent.page.getByRole("button", { name: "Convert to ticket" }).click();
  await expect(agent.page).toHaveURL(/\/ticket\/\d+$/);
  await expect(agent.page.getByText(/converted the live chat to a ticket/)).toBeVisible();
  await expect(visitor.page.getByRole("heading", { name: "Live Chat Converted" })).toBeVisible();
  await expect(visitor.page.getByText("Your live chat has been converted to ticket, thank you!")).toBeVisible();
  await visitor.close();
  await agent.close();
});

test("an unknown or removed link says 'Invalid link'; an admin's removal reaches an open agent page", async ({ browser, baseURL }) => {
  const visitor = await visitorPage(browser, false);
  const response = await visitor.page.goto("/livechat/no-such-visit-token");
  expect(response?.status()).toBe(404);
  await expect(visitor.page.getByRole("heading", { name: "Invalid link" })).toBeVisible();
  await expect(visitor.page.getByText("This link maybe used or deleted. Please request a link from your live chat provider again.")).toBeVisible();
  expect((await visitor.page.goto("/start/livechat/revoked-or-unknown"))?.status()).toBe(404);

  const admin = await agentPage(browser, baseURL!, "admin");
  const agent = await agentPage(browser, baseURL!);
  const name = `Rex ${Date.now()}`;
  const url = await register(visitor.page, name, "spam spam");
  await accept(agent.page, name);
  await admin.page.goto(agent.page.url());
  await admin.page.getByRole("button", { name: "Remove live chat" }).click();
  await expect(admin.page).toHaveURL(/\/$/);
  // the agent who had it open is sent home
  await expect(agent.page).toHaveURL(/\/$/);
  await visitor.page.goto(url);
  await expect(visitor.page.getByRole("heading", { name: "Invalid link" })).toBeVisible();
  await Promise.all([visitor.close(), admin.close(), agent.close()]);
});

test("JSON twins: info, register and rate; a forged csrf is refused; a visit only reads itself", async ({ request, browser, baseURL }) => {
  const agent = await agentPage(browser, baseURL!);
  const info = await (await request.get("/api/livechat/info?token=demo")).json();
  expect(info).toMatchObject({ result: "success", ticket_id: null, name: "OmniDesk" });
  expect(info.csrf).toEqual(expect.any(String));
  const token = info.token as string;

  const forged = await request.post("/api/livechat/register", { data: { _token: "forged", token, name: "A", phone: "1", email: "a@example.com", des: "hi" } });
  expect(forged.status()).toBe(403);
  const missing = await request.post("/api/livechat/register", { data: { token, name: "A", phone: "1", email: "a@example.com", des: "hi" } });
  expect(missing.status()).toBe(403);

  const empty = await request.post("/api/livechat/register", { data: { _token: info.csrf, token, name: "", phone: "", email: "", des: "" } });
  expect(empty.status()).toBe(400);
  expect((await empty.json()).errors).toMatchObject({ name: "livechat.empty", message: "livechat.empty" });

  const name = `Api ${Date.now()}`;
  const ok = await request.post("/api/livechat/register", {
    data: { _token: info.csrf, token, title: "t", name, phone: "1", email: "api@example.com", des: "via the API", ic: "" },
  });
  expect(ok.status()).toBe(200);
  const registered = await ok.json();
  expect(registered).toMatchObject({ result: "success", state: "queued" });

  // rating before the end: refused, and said so
  const early = await request.post("/api/livechat/rate", { data: { _token: info.csrf, token, rating: 4, reason: "ok" } });
  expect(early.status()).toBe(409);
  expect((await early.json()).errors).toEqual({ form: "livechat.notEnded" });

  // another visit's csrf does not open this one
  const other = await (await request.get("/api/livechat/info?token=demo")).json();
  expect((await request.post("/api/livechat/rate", { data: { _token: other.csrf, token, rating: 5 } })).status()).toBe(403);

  await accept(agent.page, name);
  await agent.page.getByRole("button", { name: "End live chat" }).click();
  // the click only sends the End: rating before it lands is "not ended yet" (this raced before)
  await expect(agent.page.locator(".livechat-controls [data-state='ended']")).toBeVisible();
  const rated = await request.post("/api/livechat/rate", { data: { _token: info.csrf, token, rating: 4, reason: "ok" } });
  expect(await rated.json()).toEqual({ result: "success" });
  expect((await (await request.get(`/api/livechat/info?token=${token}`)).json()).result).toBe("closed");
  await agent.close();
});

test("sockets: a visitor needs a live visit token, hears only their own chat; agents accept over the socket", async ({ baseURL, playwright }) => {
  const connectVisitor = (token: string) => {
    const socket = io(`${baseURL}/visitor`, { transports: ["websocket"], auth: { token }, reconnection: false, timeout: 5000, forceNew: true });
    return new Promise<{ socket: typeof socket; error?: Error }>((resolve) => {
      socket.on("connect", () => resolve({ socket }));
      socket.on("connect_error", (error) => resolve({ socket, error }));
    });
  };
  expect((await connectVisitor("no-such-visit-token")).error?.message).toBe("unauthorized");

  // an agent connected over the socket makes the live chat "online"
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  const signedIn = await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  expect(signedIn.status(), await signedIn.text()).toBe(302);
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const agent = io(baseURL!, { forceNew: true, transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  const agentError = await new Promise<Error | undefined>((resolve) => {
    agent.on("connect", () => resolve(undefined));
    agent.on("connect_error", resolve);
  });
  expect(agentError).toBeUndefined();

  const register = async (name: string) => {
    const info = await (await api.get("/api/livechat/info?token=demo")).json();
    await api.post("/api/livechat/register", { data: { _token: info.csrf, token: info.token, name, phone: "1", email: `${name}@example.com`, des: "hi" } });
    return info as { token: string; csrf: string };
  };
  const mine = await register(`sock${Date.now()}`);
  const other = await register(`other${Date.now()}`);

  const { socket: visitor } = await connectVisitor(mine.token);
  expect(await visitor.timeout(4000).emitWithAck("registerQueue", { token: mine.token, csrf: other.csrf })).toEqual({ ok: false });
  const answer = await visitor.timeout(4000).emitWithAck("registerQueue", { token: mine.token, csrf: mine.csrf });
  expect(answer).toMatchObject({ ok: true, number: expect.any(Number) });

  const heard: string[] = [];
  visitor.onAny((event) => heard.push(event));
  const otherInfo = await (await api.get(`/api/livechat/info?token=${other.token}`)).json();
  const mineInfo = await (await api.get(`/api/livechat/info?token=${mine.token}`)).json();

  // accepting the other visitor's chat: this visitor hears only that its place in the queue moved
  const moved = new Promise((resolve) => visitor.once("queueNumber", resolve));
  expect(await agent.timeout(4000).emitWithAck("acceptLiveChat", { ticketId: otherInfo.ticket_id })).toMatchObject({ ok: true });
  await moved;
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(new Set(heard)).toEqual(new Set(["queueNumber"]));
  const accepted = new Promise((resolve) => visitor.on("queueAccepted", resolve));
  expect(await agent.timeout(4000).emitWithAck("acceptLiveChat", { ticketId: mineInfo.ticket_id })).toMatchObject({
    ok: true,
    ticketNumber: expect.any(Number),
  });
  // a second accept of the same chat loses
  expect(await agent.timeout(4000).emitWithAck("acceptLiveChat", { ticketId: mineInfo.ticket_id })).toEqual({ ok: false });
  await accepted;
  visitor.close();
  agent.close();
  await api.dispose();
});

test("sockets: a visitor's socket no longer joins its chat once the chat is over", async ({ baseURL, playwright }) => {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  const signedIn = await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  expect(signedIn.status(), await signedIn.text()).toBe(302);
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const agent = io(baseURL!, { forceNew: true, transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    agent.on("connect", () => resolve());
    agent.on("connect_error", reject);
  });
  const auth = await (await api.post("/api/auth2", { data: { client: "agent", password: PASSWORD, type: "agent" } })).json();

  const info = await (await api.get("/api/livechat/info?token=demo")).json();
  const name = `over${Date.now()}`;
  await api.post("/api/livechat/register", { data: { _token: info.csrf, token: info.token, name, phone: "1", email: `${name}@example.com`, des: "hi" } });
  const ticketId = (await (await api.get(`/api/livechat/info?token=${info.token}`)).json()).ticket_id as number;
  expect(await agent.timeout(4000).emitWithAck("acceptLiveChat", { ticketId })).toMatchObject({ ok: true });
  // the visitor ends the chat from their page
  expect((await api.post(`/livechat/${info.token}`, { form: { _token: info.csrf, intent: "end" } })).status()).toBe(302);

  // the same token connects again (its page may still ask), but hears nothing of the chat
  const visitor = io(`${baseURL}/visitor`, { transports: ["websocket"], auth: { token: info.token }, reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    visitor.on("connect", () => resolve());
    visitor.on("connect_error", reject);
  });
  const heard: string[] = [];
  visitor.onAny((event) => heard.push(event));
  expect(await visitor.timeout(4000).emitWithAck("registerQueue", { token: info.token, csrf: info.csrf })).toEqual({ ok: false });
  const reply = await api.post("/api/ticket/message/reply", { data: { _token: auth.token, ticket_id: ticketId, message: "a note after the end" } });
  expect((await reply.json()).result).toBe("success");
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(heard).toEqual([]);
  visitor.close();
  agent.close();
  await api.dispose();
});

test("sockets: a visitor's socket in the chat leaves its room when the chat ends", async ({ baseURL, playwright }) => {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  expect((await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } })).status()).toBe(302);
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const agent = io(baseURL!, { forceNew: true, transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    agent.on("connect", () => resolve());
    agent.on("connect_error", reject);
  });
  const auth = await (await api.post("/api/auth2", { data: { client: "agent", password: PASSWORD, type: "agent" } })).json();
  const info = await (await api.get("/api/livechat/info?token=demo")).json();
  const name = `leave${Date.now()}`;
  await api.post("/api/livechat/register", { data: { _token: info.csrf, token: info.token, name, phone: "1", email: `${name}@example.com`, des: "hi" } });
  const ticketId = (await (await api.get(`/api/livechat/info?token=${info.token}`)).json()).ticket_id as number;
  expect(await agent.timeout(4000).emitWithAck("acceptLiveChat", { ticketId })).toMatchObject({ ok: true });

  // connected while the chat runs: it hears the agent
  const visitor = io(`${baseURL}/visitor`, { transports: ["websocket"], auth: { token: info.token }, reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    visitor.on("connect", () => resolve());
    visitor.on("connect_error", reject);
  });
  const heard: string[] = [];
  visitor.onAny((event) => heard.push(event));
  const reply = (message: string) => api.post("/api/ticket/message/reply", { data: { _token: auth.token, ticket_id: ticketId, message } });
  expect((await (await reply("still here")).json()).result).toBe("success");
  await expect.poll(() => heard).toEqual(["newMessage"]);

  // the visitor ends it: told so, and out of the room (the same socket hears nothing after)
  expect((await api.post(`/livechat/${info.token}`, { form: { _token: info.csrf, intent: "end" } })).status()).toBe(302);
  await expect.poll(() => heard).toEqual(["newMessage", "liveChatEnded"]);
  expect((await (await reply("a note after the end")).json()).result).toBe("success");
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(heard).toEqual(["newMessage", "liveChatEnded"]);
  visitor.close();
  agent.close();
  await api.dispose();
});

test("the embed script on another website opens the live chat in a frame", async ({ browser, baseURL }) => {
  // another website: its own origin (a port of its own), pasting the one line of the README
  const shop = http.createServer((_req, res) => {
    res.setHeader("Content-Type", "text/html");
    res.end(`<!doctype html><title>Shop</title><h1>Shop</h1><script src="${baseURL}/livechat.js" data-token="demo" data-label="Chat with us" async></script>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, "localhost", resolve));
  const visitor = await visitorPage(browser, true);
  const page = visitor.page;
  await page.goto(`http://localhost:${(shop.address() as AddressInfo).port}/`);
  await page.getByRole("button", { name: "Chat with us" }).click();
  const frame = page.frameLocator('iframe[title="Chat with us"]');
  // nobody online in this test: the frame shows the form that leaves a message
  await expect(frame.getByText("Unfortunately, we are offline now.", { exact: false })).toBeVisible();
  await page.getByRole("button", { name: "Chat with us" }).click();
  await expect(page.locator("iframe")).toHaveCount(0);
  await visitor.close();
  shop.close();
});
