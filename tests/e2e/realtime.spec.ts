// Two agents on one conversation, JavaScript on: replies and typing arrive without reload.
import { test, expect } from "@playwright/test";
import { signedInPages } from "./helpers";

test("a reply and typing reach the other agent without reload", async ({ browser, baseURL }) => {
  const {
    pages: [a, b],
    close,
  } = await signedInPages(browser, baseURL!, [
    ["agent", "agent"],
    ["admin", "admin"],
  ]);

  // a Support ticket the agent may read, opened by both
  await a.goto("/?department=2&status=4");
  const number = await a.locator(".ticket-item").first().getAttribute("data-ticket");
  // that ticket, wherever news has moved it meanwhile
  await a.locator(`.ticket-item[data-ticket="${number}"]`).click();
  await expect(a).toHaveURL(new RegExp(`/ticket/${number}`));
  await b.goto(`/ticket/${number}`);
  await expect(b.locator(".conversation")).toBeVisible();
  // both pages have their sockets in the room
  await expect(a.locator('.conversation[data-live="on"]')).toBeVisible();
  await expect(b.locator('.conversation[data-live="on"]')).toBeVisible();

  const text = `live ${Date.now()}`;
  await a.getByRole("textbox", { name: "Reply", exact: true }).fill(text);
  await a.getByRole("button", { name: "Send" }).click();
  await expect(b.locator(".text-body", { hasText: text })).toBeVisible();
  await expect(b.locator(".text-body", { hasText: text })).toHaveCount(1);

  // B types: A sees it, and it clears once B stops (2 s idle at B, at the latest 5 s at A)
  await b.getByRole("textbox", { name: "Reply", exact: true }).pressSequentially("hello", { delay: 50 });
  await expect(a.locator(".typing")).toHaveText("Demo Admin is typing…");
  await expect(a.locator(".typing")).not.toContainText("typing", { timeout: 8_000 });

  await close();
});

test("joining the room of a conversation the user may not read is refused", async ({ baseURL, playwright }) => {
  const { io } = await import("socket.io-client");
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  await api.post("/?index", { form: { intent: "login", username: "agent", password: process.env.SEED_PASSWORD || "demo1234", type: "agent" } });
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const admin = await (await api.post("/api/auth2", { data: { client: "admin", password: process.env.SEED_PASSWORD || "demo1234", type: "admin" } })).json();
  // a Sales ticket without the agent
  const sales = await (await api.get(`/api/ticket/load/${admin.token}/4/ticket/0?depFilter=1`)).json();
  let forbidden: number | undefined;
  for (const t of sales.data) {
    const info = await (await api.get(`/ticket/info/${admin.token}/${t.id}`)).json();
    if (!info.participants.includes("agent")) {
      forbidden = t.id;
      break;
    }
  }
  const own = await (await api.get(`/api/ticket/load/${admin.token}/4/ticket/0?depFilter=2`)).json();
  expect(forbidden, "a Sales ticket without the agent among the first 30").toBeDefined();
  const socket = io(baseURL!, { transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
  const join = (ticketId: number) => new Promise<{ ok: boolean }>((resolve) => socket.emit("joinRoom", { ticketId }, resolve));
  expect(await join(forbidden!)).toEqual({ ok: false });
  // ids the database cannot hold, or no id at all, are refused without harm
  expect(await join(2 ** 40)).toEqual({ ok: false });
  expect(await new Promise((resolve) => socket.emit("joinRoom", null, resolve))).toEqual({ ok: false });
  expect(await join(own.data[0].id)).toEqual({ ok: true });
  socket.close();
  await api.dispose();
});

test("the online-agents popup lists who is online and follows status changes", async ({ browser, baseURL }) => {
  const {
    pages: [a, b],
    close,
  } = await signedInPages(browser, baseURL!, [
    ["agent2", "agent"],
    ["admin", "admin"],
  ]);
  await expect(a.locator('html[data-realtime="connected"]')).toHaveCount(1);
  await expect(b.locator('html[data-realtime="connected"]')).toHaveCount(1);

  await b.locator(".online-agents summary").click();
  const row = b.locator('.online-agents [data-agent="agent2"]');
  await expect(row).toContainText("Brian Agent");
  await expect(row).toContainText("Online");

  // agent2 goes busy: the open popup at the admin follows without a reload
  await a.locator(".user-menu summary").click();
  const form = a.locator(".status-form");
  await form.getByLabel("Status").selectOption({ label: "Busy" });
  await form.getByLabel("Reason").fill("On a call");
  await form.getByRole("button", { name: "Change status" }).click();
  await expect(row).toContainText("Busy");

  await a.locator(".banner").getByRole("button", { name: "go online" }).click();
  await expect(row).toContainText("Online");
  // leaving takes agent2 off the list
  await a.context().close();
  await expect(row).toHaveCount(0);
  await close();
});

test("a new conversation for me shows a notice at once and tops the Workspace list", async ({ browser, baseURL }) => {
  const {
    pages: [a, b],
    close,
  } = await signedInPages(browser, baseURL!, [
    ["agent", "agent"],
    ["agent2", "agent"],
  ]);
  await b.goto("/?list=chat");
  await expect(b.locator('html[data-realtime="connected"]')).toHaveCount(1);

  await a.goto("/chat");
  const subject = `Quick question ${Date.now()}`;
  await a.getByLabel("Subject").fill(subject);
  await a.getByRole("checkbox", { name: "Brian Agent" }).check();
  await a.getByLabel("Message", { exact: true }).fill("Have you got a minute?");
  await a.getByRole("button", { name: "Start chat" }).click();
  await expect(a).toHaveURL(/\/chat\/(\d+)$/);
  const number = new URL(a.url()).pathname.split("/").pop();

  const notice = b.locator(".notice-toast");
  await expect(notice).toContainText(`New conversation #${number}`);
  // the Workspace list follows too, unread at the top
  await expect(b.locator(".ticket-item").first()).toContainText(subject);
  await expect(b.locator(".ticket-item").first()).toHaveClass(/unread/);
  await notice.getByRole("link").click();
  await expect(b).toHaveURL(new RegExp(`/chat/${number}$`));
  await expect(b.locator(".notice-toast")).toHaveCount(0);

  // back on the list, a reply in that chat highlights it for a few seconds
  await b.goto("/?list=chat");
  await expect(b.locator('html[data-realtime="connected"]')).toHaveCount(1);
  const row = b.locator(`.ticket-item[data-ticket="${number}"]`);
  await expect(row).not.toHaveClass(/fresh/);
  await a.getByRole("textbox", { name: "Reply", exact: true }).fill("One more thing");
  await a.getByRole("button", { name: "Send" }).click();
  await expect(row).toHaveClass(/fresh/);
  await expect(row).toHaveClass(/unread/);
  await expect(row).not.toHaveClass(/fresh/, { timeout: 8_000 });

  await close();
});

test("moving a ticket out of an agent's department stops its events reaching that agent", async ({ baseURL, playwright }) => {
  const { io } = await import("socket.io-client");
  const password = process.env.SEED_PASSWORD || "demo1234";
  const signIn = async (username: string, type: string) => {
    const ctx = await playwright.request.newContext({ baseURL, maxRedirects: 0, extraHTTPHeaders: { Origin: baseURL! } });
    await ctx.post("/?index", { form: { intent: "login", username, password, type } });
    return ctx;
  };
  const admin = await signIn("admin", "admin");
  const agent = await signIn("agent", "agent");
  const token = (await (await admin.post("/api/auth2", { data: { client: "admin", password, type: "admin" } })).json()).token;
  // a Support ticket the agent reads through the department only
  const support = await (await admin.get(`/api/ticket/load/${token}/4/ticket/0?depFilter=2`)).json();
  let ticket: { id: number; ticket_number: number } | undefined;
  for (const t of support.data) {
    const info = await (await admin.get(`/ticket/info/${token}/${t.id}`)).json();
    if (!info.participants.includes("agent")) {
      ticket = t;
      break;
    }
  }
  expect(ticket, "a Support ticket without the agent among the first 30").toBeDefined();
  const sid = (await agent.storageState()).cookies.find((c) => c.name === "sid")!;
  const socket = io(baseURL!, { transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
  expect(await new Promise((resolve) => socket.emit("joinRoom", { ticketId: ticket!.id }, resolve))).toEqual({ ok: true });
  const heard: number[][] = [];
  socket.on("newMessage", (e: { ticketId: number; messageIds: number[] }) => e.ticketId === ticket!.id && heard.push(e.messageIds));
  // the department's agents hear of it as channel data
  const channelData: number[] = [];
  socket.on("channelDataUpdated", (e: { ticketId: number }) => channelData.push(e.ticketId));
  const reply = async (message: string) =>
    (await (await admin.post("/api/ticket/message/reply", { data: { _token: token, ticket_id: ticket!.id, message } })).json()).id as number;

  const first = await reply("first, in Support");
  await expect.poll(() => heard.flat()).toContain(first);
  await expect.poll(() => channelData).toContain(ticket!.id);

  // moved to Sales: the agent's socket is taken out of the room, so the next reply is not heard
  const moved = await admin.post(`/ticket/${ticket!.ticket_number}`, { form: { intent: "department", department: "1" } });
  expect(moved.status()).toBe(302);
  const second = await reply("second, in Sales");
  // an event for the room would arrive within milliseconds; wait well past that
  await new Promise((r) => setTimeout(r, 1_500));
  expect(heard.flat()).not.toContain(second);
  expect(await new Promise((resolve) => socket.emit("joinRoom", { ticketId: ticket!.id }, resolve))).toEqual({ ok: false });
  socket.close();
  await admin.dispose();
  await agent.dispose();
});

test("an admin's plugin change reaches open pages at once (settingsChanged)", async ({ browser, baseURL }) => {
  const {
    pages: [agent, admin],
    close,
  } = await signedInPages(browser, baseURL!, [
    ["agent", "agent"],
    ["admin", "admin"],
  ]);
  await expect(agent.locator('html[data-realtime="connected"]')).toHaveCount(1);
  const formsLink = agent.locator(".left-nav").getByRole("link", { name: "Forms", exact: true });
  await expect(formsLink).toBeVisible();
  const setForms = async (on: boolean) => {
    await admin.goto("/admin/editions");
    const card = admin.locator("form#edition-default");
    await card.getByRole("checkbox", { name: "Forms and surveys" }).setChecked(on);
    await card.getByRole("button", { name: "Save" }).click();
    await expect(admin.locator("form#edition-default").getByRole("status")).toHaveText("Settings updated");
  };
  try {
    await setForms(false);
    await expect(formsLink).toHaveCount(0);
  } finally {
    await setForms(true);
  }
  await expect(formsLink).toBeVisible();
  await close();
});
