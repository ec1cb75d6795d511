// New messages reach an open conversation as they are (no reload of the page's data), and those
// written while its socket was cut come back once it reconnects, each once, in order.
import { test, expect, type APIRequest, type Page, type WebSocketRoute } from "@playwright/test";
import { PASSWORD, chooseLanguage, login } from "./helpers";

const PASS = PASSWORD;

/** An admin's API session: replies written as another agent would. */
async function adminApi(playwright: { request: APIRequest }, baseURL: string) {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  const token = (await (await api.post("/api/auth2", { data: { client: "admin", password: PASS, type: "admin" } })).json()).token as string;
  const reply = async (ticketId: number, message: string) => {
    const answer = await (await api.post("/api/ticket/message/reply", { data: { _token: token, ticket_id: ticketId, message } })).json();
    expect(answer.result).toBe("success");
    return answer.id as number;
  };
  return { api, token, reply };
}

/** The agent's page on the first Support ticket of its list; the ticket's id. */
async function openSupportTicket(page: Page, token: string, api: Awaited<ReturnType<typeof adminApi>>["api"]) {
  await page.goto("/?department=2&status=4");
  const number = Number(await page.locator(".ticket-item").first().getAttribute("data-ticket"));
  // that ticket, wherever news has moved it meanwhile
  await page.locator(`.ticket-item[data-ticket="${number}"]`).click();
  await expect(page).toHaveURL(new RegExp(`/ticket/${number}`));
  await expect(page.locator('.conversation[data-live="on"]')).toBeVisible();
  const list = await (await api.get(`/api/ticket/load/${token}/4/ticket/0?depFilter=2`)).json();
  const ticket = (list.data as { id: number; ticket_number: number }[]).find((t) => t.ticket_number === number);
  expect(ticket).toBeDefined();
  return ticket!.id;
}

test("a new message shows in the open conversation without reloading the page's data", async ({ browser, baseURL, playwright }) => {
  const { api, token, reply } = await adminApi(playwright, baseURL!);
  const context = await browser.newContext({ baseURL });
  await chooseLanguage(context, baseURL!);
  const page = await context.newPage();
  await login(page, "agent", "agent");
  const ticketId = await openSupportTicket(page, token, api);

  const dataRequests: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("_data=")) dataRequests.push(r.url());
  });
  const text = `pushed ${Date.now()}`;
  await reply(ticketId, text);
  await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1);
  // the list's item follows too (its last message), from the same event's delta
  await expect(page.locator(".ticket-item[aria-current=page] .last")).toHaveText(text);
  const second = `${text} again`;
  await reply(ticketId, second);
  await expect(page.locator(".text-body", { hasText: second })).toHaveCount(1);
  // the messages came with the events: no loader was asked
  expect(dataRequests).toEqual([]);
  await context.close();
  await api.dispose();
});

test("messages written while the socket was cut are all shown once after it reconnects", async ({ browser, baseURL, playwright }) => {
  test.setTimeout(60_000);
  const { api, token, reply } = await adminApi(playwright, baseURL!);
  const context = await browser.newContext({ baseURL });
  await chooseLanguage(context, baseURL!);
  const page = await context.newPage();
  // the page's socket goes through this route, so the test can cut it and refuse reconnects
  let offline = false;
  const sockets: WebSocketRoute[] = [];
  await page.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (offline) return void ws.close();
    ws.connectToServer();
    sockets.push(ws);
  });
  await login(page, "agent", "agent");
  const ticketId = await openSupportTicket(page, token, api);
  const before = `before the cut ${Date.now()}`;
  await reply(ticketId, before);
  await expect(page.locator(".text-body", { hasText: before })).toHaveCount(1);

  offline = true;
  for (const ws of sockets) await ws.close();
  await expect(page.getByText("No connection")).toBeVisible();
  const missed = [1, 2, 3].map((n) => `missed ${n} ${Date.now()}`);
  for (const text of missed) await reply(ticketId, text);
  // nothing arrives while cut
  await expect(page.locator(".text-body", { hasText: missed[0] })).toHaveCount(0);

  // the rejoin itself brings what was missed: no request of its own (a storm of pages costs no HTTP round)
  const checks: string[] = [];
  page.on("request", (request) => void (request.url().includes("/api/ticket/data/check/") && checks.push(request.url())));
  offline = false;
  await expect(page.getByText("No connection")).toHaveCount(0, { timeout: 20_000 });
  for (const text of missed) await expect(page.locator(".text-body", { hasText: text })).toHaveCount(1);
  expect(checks).toEqual([]);
  await expect(page.locator(".text-body", { hasText: before })).toHaveCount(1);
  // in the order they were written
  const bodies = await page.locator(".text-body").allTextContents();
  expect(bodies.slice(-3)).toEqual(missed);
  await context.close();
  await api.dispose();
});

test("the missed-message check answers only for conversations the caller may read", async ({ baseURL, playwright }) => {
  const admin = await adminApi(playwright, baseURL!);
  const agent = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  const token = (await (await agent.post("/api/auth2", { data: { client: "agent", password: PASS, type: "agent" } })).json()).token as string;
  // a Sales ticket without the agent: forbidden; an id nobody has: not found
  const sales = await (await admin.api.get(`/api/ticket/load/${admin.token}/4/ticket/0?depFilter=1`)).json();
  let forbidden: number | undefined;
  for (const t of sales.data) {
    const info = await (await admin.api.get(`/ticket/info/${admin.token}/${t.id}`)).json();
    if (!info.participants.includes("agent")) {
      forbidden = t.id;
      break;
    }
  }
  expect(forbidden, "a Sales ticket without the agent among the first 30").toBeDefined();
  const check = (ticketId: number, after: number, body: Record<string, unknown> = { _token: token, ts: 0 }) =>
    agent.post(`/api/ticket/data/check/${ticketId}/${after}`, { data: body });
  const denied = await check(forbidden!, 0);
  expect(denied.status()).toBe(403);
  expect((await denied.json()).result).toBe("failed");
  expect((await check(2 ** 40, 0)).status()).toBe(404);
  // without a session: refused
  expect((await check(forbidden!, 0, { ts: 0 })).status()).toBe(403);

  // a Support ticket the agent reads: exactly the messages after the one given, in order
  const own = await (await admin.api.get(`/api/ticket/load/${admin.token}/4/ticket/0?depFilter=2`)).json();
  const ticketId = own.data[0].id as number;
  const first = await admin.reply(ticketId, `check one ${Date.now()}`);
  const second = await admin.reply(ticketId, `check two ${Date.now()}`);
  const answer = await (await check(ticketId, first)).json();
  expect(answer.result).toBe("success");
  expect(answer.data.map((m: { id: number }) => m.id)).toEqual([second]);
  expect((await (await check(ticketId, first - 1)).json()).data.map((m: { id: number }) => m.id)).toEqual([first, second]);
  await agent.dispose();
  await admin.api.dispose();
});
