// The catch-up and grouped-list JSON twins over HTTP (spec section 7): /ticket/load2, /ticket/data/sync,
// /event/{id}, /api/session/info and /api/ticket/user/list, each with a token, access-checked, and
// refusing bad input with {result, description}.
import { test, expect, type APIRequestContext } from "@playwright/test";
import { PASSWORD } from "./helpers";

async function token(request: APIRequestContext, client: string, type: "admin" | "agent") {
  const res = await request.post("/api/auth2", { data: { client, password: PASSWORD, type } });
  return (await res.json()).token as string;
}

/** A Sales ticket the agent (Support) does not take part in, as the admin sees it. */
async function salesTicketHiddenFromAgent(request: APIRequestContext, admin: string) {
  const sales = await (await request.get(`/api/ticket/load/${admin}/4/ticket/0?depFilter=1`)).json();
  for (const t of sales.data) {
    const info = await (await request.get(`/ticket/info/${admin}/${t.id}`)).json();
    if (!info.participants.includes("agent")) return t as { id: number; ticket_number: number };
  }
  throw new Error("no Sales ticket without the agent");
}

test("load2: a department's tickets 10 at a time on both spellings, every label group with extra 0", async ({ request }) => {
  const admin = await token(request, "admin", "admin");
  const first = await (await request.get(`/ticket/load2/department/4/ticket/0/2?_token=${admin}`)).json();
  expect(first).toMatchObject({ result: "success", group: { id: 2, name: "Support" } });
  expect(first.data).toHaveLength(10);
  const api = await (await request.get(`/api/ticket/load2/department/4/ticket/0/2?_token=${admin}`)).json();
  expect(api.data.map((d: { id: number }) => d.id)).toEqual(first.data.map((d: { id: number }) => d.id));
  const next = await (await request.get(`/ticket/load2/department/4/ticket/10/2?_token=${admin}`)).json();
  const firstIds = new Set(first.data.map((d: { id: number }) => d.id));
  expect(next.data.length).toBeGreaterThan(0);
  expect(next.data.some((d: { id: number }) => firstIds.has(d.id))).toBe(false);

  const labels = await (await request.get(`/ticket/load2/label/0/ticket/0/0?_token=${admin}`)).json();
  expect(labels.groups.length).toBeGreaterThan(1);
  for (const g of labels.groups) for (const d of g.data) expect(d.closed).toBe(0);

  const agent = await token(request, "agent", "agent");
  const hidden = await salesTicketHiddenFromAgent(request, admin);
  const agentSales = await (await request.get(`/ticket/load2/department/4/ticket/0/1?_token=${agent}`)).json();
  expect(agentSales.data.map((d: { id: number }) => d.id)).not.toContain(hidden.id);

  const bad = await request.get(`/ticket/load2/department/7/ticket/0/2?_token=${admin}`);
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toEqual({ result: "failed", description: "The status must be 0 to 4." });
  expect((await request.get(`/ticket/load2/department/4/ticket/0/2`)).status()).toBe(403);
});

test("sync and events: what changed since ts and the deleted messages since an event id, only where the caller may read", async ({ request }) => {
  const admin = await token(request, "admin", "admin");
  const agent = await token(request, "agent", "agent");
  const hidden = await salesTicketHiddenFromAgent(request, admin);
  const since = Date.now() - 1000;
  const check = await (await request.post("/api/auth/check", { data: { _token: admin } })).json();
  expect(check.event_id).toEqual(expect.any(Number));

  const sent = await (await request.post("/api/ticket/message/reply", { data: { _token: admin, ticket_id: hidden.id, message: "sync me" } })).json();
  const forAdmin = await (await request.get(`/ticket/data/sync?_token=${admin}&ts=${since}`)).json();
  expect(forAdmin.data.map((d: { id: number }) => d.id)).toContain(hidden.id);
  expect(forAdmin.messages).toContainEqual({ id: sent.id, ticket_id: hidden.id });
  expect(forAdmin.unread).toEqual({ ticket: expect.any(Number), livechat: expect.any(Number), chat: expect.any(Number) });
  const forAgent = await (await request.get(`/ticket/data/sync?_token=${agent}&ts=${since}`)).json();
  expect(forAgent.data.map((d: { id: number }) => d.id)).not.toContain(hidden.id);
  expect(forAgent.messages.map((m: { id: number }) => m.id)).not.toContain(sent.id);
  const bad = await request.get(`/ticket/data/sync?_token=${admin}&ts=soon`);
  expect(bad.status()).toBe(400);
  expect((await bad.json()).description).toBe("ts must be a time.");

  await request.post("/api/ticket/message/delete", { data: { _token: admin, ticket_id: hidden.id, message_id: sent.id } });
  const events = await (await request.get(`/event/${check.event_id}?_token=${admin}`)).json();
  expect(events.data).toContainEqual(expect.objectContaining({ action: "delete_message", ticket_id: hidden.id, ref_id: sent.id }));
  expect(events.event_id).toBeGreaterThan(check.event_id);
  const agentEvents = await (await request.get(`/event/${check.event_id}?_token=${agent}`)).json();
  expect(agentEvents.data.map((e: { ticket_id: number }) => e.ticket_id)).not.toContain(hidden.id);
  expect((await request.get(`/event/${check.event_id}`)).status()).toBe(403);
});

test("session info answers the caller's own sessions only; the user list pages 10 with experience", async ({ request }) => {
  const admin = await token(request, "admin", "admin");
  const agent = await token(request, "agent", "agent");
  const mine = await (await request.get(`/api/session/info?_token=${admin}`)).json();
  expect(mine).toMatchObject({ result: "success", current: true, user: { username: "admin", type: "admin" } });
  expect(mine.expires_at).toBeGreaterThan(Date.now());
  const again = await (await request.get(`/api/session/info?_token=${admin}&session_id=${mine.session_id}`)).json();
  expect(again.session_id).toBe(mine.session_id);
  const theirs = await request.get(`/api/session/info?_token=${agent}&session_id=${mine.session_id}`);
  expect(theirs.status()).toBe(404);
  expect(await theirs.json()).toEqual({ result: "failed", description: "Session not found." });

  const list = await (await request.get(`/api/ticket/user/list?_token=${admin}&type=ticket&username=agent`)).json();
  expect(list).toMatchObject({ result: "success", exp: expect.any(Number), expLevel: expect.any(Number) });
  expect(list.data.length).toBeLessThanOrEqual(10);
  expect(list.expLevel).toBeGreaterThanOrEqual(1);
  const bad = await request.get(`/api/ticket/user/list?_token=${admin}&type=sms&username=agent`);
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toEqual({ result: "failed", description: "The type must be ticket or livechat." });
});
