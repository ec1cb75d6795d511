// socket.io shares the HTTP server and the session cookie: no session, no socket; logout
// disconnects the sockets of that session.
import { test, expect } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import { PASSWORD, chooseLanguage } from "./helpers";

function connect(baseURL: string, cookie?: string): Promise<{ socket: Socket; error?: Error }> {
  const socket = io(baseURL, { transports: ["websocket"], extraHeaders: cookie ? { cookie } : {}, reconnection: false, timeout: 5000 });
  return new Promise((resolve) => {
    socket.on("connect", () => resolve({ socket }));
    socket.on("connect_error", (error) => resolve({ socket, error }));
  });
}

test("a socket without a session is refused", async ({ baseURL }) => {
  const { socket, error } = await connect(baseURL!);
  expect(error?.message).toBe("unauthorized");
  expect(socket.connected).toBe(false);
  const forged = await connect(baseURL!, "sid=forged-value");
  expect(forged.error?.message).toBe("unauthorized");
});

test("a signed-in session connects, and logout disconnects it", async ({ baseURL, playwright }) => {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  const login = await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  expect(login.status()).toBe(302);
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid");
  expect(sid).toBeDefined();
  const { socket, error } = await connect(baseURL!, `sid=${sid!.value}`);
  expect(error).toBeUndefined();
  expect(socket.connected).toBe(true);

  const disconnected = new Promise<string>((resolve) => socket.on("disconnect", (reason) => resolve(reason)));
  await api.post("/logout", { headers: { Origin: baseURL! } });
  expect(await disconnected).toBe("io server disconnect");
  const again = await connect(baseURL!, `sid=${sid!.value}`);
  expect(again.error?.message).toBe("unauthorized");
  await api.dispose();
});

test("a socket from another origin is refused", async ({ baseURL, playwright }) => {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const socket = io(baseURL!, { transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}`, origin: "http://evil.example" }, reconnection: false });
  const error = await new Promise<Error>((resolve) => socket.on("connect_error", resolve));
  expect(error).toBeDefined();
  expect(socket.connected).toBe(false);
  socket.close();
  await api.dispose();
});

test("refreshTicketUnreadCount answers unreadCount2 with the counts of /api/unread", async ({ baseURL, playwright }) => {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  await api.post("/?index", { form: { intent: "login", username: "admin", password: PASSWORD, type: "admin" } });
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const token = (await (await api.post("/api/auth2", { data: { client: "admin", password: PASSWORD, type: "admin" } })).json()).token;
  const { socket, error } = await connect(baseURL!, `sid=${sid.value}`);
  expect(error).toBeUndefined();
  const counts = new Promise((resolve) => socket.on("unreadCount2", resolve));
  socket.emit("refreshTicketUnreadCount");
  expect(await counts).toEqual(await (await api.get(`/api/unread?_token=${token}`)).json());
  socket.close();
  await api.dispose();
});

test("readMessage marks a conversation read and tells every tab the new unread counts", async ({ baseURL, playwright, browser }) => {
  // a customer's new ticket to which the admin adds the agent: unread for the agent whatever other specs have read meanwhile
  const subject = `Still unread ${Date.now()}`;
  const visitorContext = await browser.newContext({ baseURL });
  await chooseLanguage(visitorContext, baseURL!);
  const visitor = await visitorContext.newPage();
  await visitor.goto("/new_ticket/demo");
  await visitor.getByLabel("Name").fill("Unread Una");
  await visitor.getByLabel("Email").fill(`una.${Date.now()}@example.com`);
  await visitor.getByLabel("Subject").fill(subject);
  await visitor.getByLabel("Message").fill("Has anyone seen this?");
  await visitor.getByRole("button", { name: "Submit" }).click();
  await expect(visitor.getByRole("heading", { name: "Message sent" })).toBeVisible();
  await visitorContext.close();
  const admin = await playwright.request.newContext({ baseURL, maxRedirects: 0, extraHTTPHeaders: { Origin: baseURL! } });
  await admin.post("/?index", { form: { intent: "login", username: "admin", password: PASSWORD, type: "admin" } });
  const adminToken = (await (await admin.post("/api/auth2", { data: { client: "admin", password: PASSWORD, type: "admin" } })).json()).token;
  const newest = await (await admin.get(`/api/ticket/load/${adminToken}/4/ticket/0`)).json();
  const ticket = (newest.data as { id: number; ticket_number: number; title: string }[]).find((t) => t.title === subject);
  expect(ticket, "the visitor's ticket among the admin's newest").toBeDefined();
  expect((await admin.post(`/ticket/${ticket!.ticket_number}`, { form: { intent: "add_participant", username: "agent" } })).status()).toBe(302);
  await admin.dispose();

  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const token = (await (await api.post("/api/auth2", { data: { client: "agent", password: PASSWORD, type: "agent" } })).json()).token;
  const list = await (await api.get(`/api/ticket/load/${token}/4/ticket/0`)).json();
  const unread = (list.data as { id: number; read: boolean }[]).find((t) => t.id === ticket!.id);
  expect(unread?.read).toBe(false);
  const before = await (await api.get(`/api/unread?_token=${token}`)).json();
  const [tab1, tab2] = [await connect(baseURL!, `sid=${sid.value}`), await connect(baseURL!, `sid=${sid.value}`)];
  const told = new Promise<{ ticket: number }>((resolve) => tab2.socket.on("unreadCount2", resolve));
  tab1.socket.emit("readMessage", { ticketId: unread!.id });
  expect((await told).ticket).toBe(before.ticket - 1);
  const after = await (await api.get(`/api/ticket/load/${token}/4/ticket/0`)).json();
  expect((after.data as { id: number; read: boolean }[]).find((t) => t.id === unread!.id)?.read).toBe(true);
  tab1.socket.close();
  tab2.socket.close();
  await api.dispose();
});

test("a new socket is told the server's version", async ({ baseURL, playwright }) => {
  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const socket = io(baseURL!, { transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  const version = await new Promise<{ id: number; description: string }>((resolve) => socket.on("newVersion", resolve));
  expect(version.id).toBe(11010);
  expect(version.description).toEqual(expect.any(String));
  socket.close();
  await api.dispose();
});
