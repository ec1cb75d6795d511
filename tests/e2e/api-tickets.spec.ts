// The ticket JSON twins: the same rules as the pages, with tokens.
import { test, expect, type APIRequestContext } from "@playwright/test";
import http from "node:http";
import { PASSWORD } from "./helpers";

async function token(request: APIRequestContext, client: string, type: "admin" | "agent") {
  const res = await request.post("/api/auth2", { data: { client, password: PASSWORD, type } });
  return (await res.json()).token as string;
}

test("list, info, messages, reply, upload, priority, delete, unread", async ({ request }) => {
  const admin = await token(request, "admin", "admin");
  const list = await (await request.get(`/api/ticket/load/${admin}/4/ticket/0?channelFilter=EMAIL`)).json();
  expect(list.count).toBeGreaterThan(0);
  expect(list.data.length).toBeLessThanOrEqual(30);
  expect(list.data.every((t: { channel: string }) => t.channel === "EMAIL")).toBe(true);
  const short = await (await request.get(`/ticket/load/${admin}/4/ticket/0?channelFilter=EMAIL`)).json();
  expect(short.count).toBe(list.count);
  const page2 = await (await request.get(`/api/ticket/load/${admin}/4/ticket/30?channelFilter=EMAIL`)).json();
  if (list.count > 30) expect(page2.data[0].id).not.toBe(list.data[0].id);

  const ticket = list.data[0];
  const info = await (await request.get(`/ticket/info/${admin}/${ticket.id}`)).json();
  expect(info).toMatchObject({ result: "success", id: ticket.id, ticket_number: ticket.ticket_number, channel: "EMAIL" });

  const sent = await (await request.post("/api/ticket/message/reply", { data: { _token: admin, ticket_id: ticket.id, message: "from the API" } })).json();
  expect(sent.result).toBe("success");
  const badCc = await request.post("/api/ticket/message/reply", { data: { _token: admin, ticket_id: ticket.id, message: "x", cc: "nope" } });
  expect((await badCc.json()).description).toBe("Please check the email address. nope");

  const upload = await request.post("/api/upload", {
    multipart: { _token: admin, ticket_id: String(ticket.id), attachment: { name: "a.txt", mimeType: "text/plain", buffer: Buffer.from("hello") } },
  });
  const uploaded = await upload.json();
  expect(uploaded).toMatchObject({ result: "success", fileName: "a.txt", fileType: "text/plain" });
  expect(await (await request.get(`${uploaded.file}?_token=${admin}`)).text()).toBe("hello");

  const data = await (await request.get(`/ticket/data/${ticket.id}/0?_token=${admin}`)).json();
  const texts = data.data.map((m: { message: string }) => m.message);
  expect(texts).toContain("from the API");
  expect(texts).toContain("a.txt");

  expect(await (await request.post("/api/ticket/priority", { data: { _token: admin, id: ticket.id, priority: "H", type: "ticket" } })).json()).toEqual({
    result: "success",
  });
  expect((await (await request.get(`/ticket/info/${admin}/${ticket.id}`)).json()).severity).toBe("H");

  const deleted = await request.post("/api/ticket/message/delete", { data: { _token: admin, ticket_id: ticket.id, message_id: sent.id } });
  expect(await deleted.json()).toEqual({ result: "success" });
  const after = await (await request.get(`/ticket/data/${ticket.id}/0?_token=${admin}`)).json();
  expect(after.data.map((m: { id: number }) => m.id)).not.toContain(sent.id);

  const unread = await (await request.get(`/api/unread?_token=${admin}`)).json();
  expect(unread).toEqual({ ticket: expect.any(Number), livechat: expect.any(Number), chat: expect.any(Number) });
  const departments = await (await request.get(`/department/3?_token=${admin}`)).json();
  expect(departments.data.find((d: { selected: boolean }) => d.selected).name).toBe("Sales");
});

test("an agent gets 403 on tickets outside their reach, and nothing is written", async ({ request }) => {
  const admin = await token(request, "admin", "admin");
  const agent = await token(request, "agent", "agent");
  // a Sales (department 1) ticket without agent (Support) as participant
  const sales = await (await request.get(`/api/ticket/load/${admin}/4/ticket/0?depFilter=1`)).json();
  let target: { id: number } | undefined;
  for (const t of sales.data) {
    const info = await (await request.get(`/ticket/info/${admin}/${t.id}`)).json();
    if (!info.participants.includes("agent")) {
      target = t;
      break;
    }
  }
  expect(target).toBeDefined();
  const info = await request.get(`/ticket/info/${agent}/${target!.id}`);
  expect(info.status()).toBe(403);
  expect((await info.json()).description).toBe("Access denied");
  expect((await request.get(`/ticket/data/${target!.id}/0?_token=${agent}`)).status()).toBe(403);
  const before = (await (await request.get(`/ticket/data/${target!.id}/0?_token=${admin}`)).json()).data.length;
  const post = await request.post("/api/ticket/message/reply", { data: { _token: agent, ticket_id: target!.id, message: "sneaky" } });
  expect(post.status()).toBe(403);
  const afterData = (await (await request.get(`/ticket/data/${target!.id}/0?_token=${admin}`)).json()).data;
  expect(afterData.length).toBe(before);
  // the agent's own list never holds it
  const mine = await (await request.get(`/api/ticket/load/${agent}/4/ticket/0?depFilter=1`)).json();
  expect(mine.data.map((t: { id: number }) => t.id)).not.toContain(target!.id);
  expect((await request.get(`/ticket/info/${admin}/99999999`)).status()).toBe(404);
  expect((await request.get(`/api/unread`)).status()).toBe(403);
});

test("an upload over the size limit is answered 413 at once, without waiting for its body", async ({ baseURL }) => {
  // headers only: the server must answer from the declared length, before any byte of the body
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${baseURL}/api/upload`, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(60 * 1024 * 1024) },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => {
        resolve({ status: res.statusCode!, body });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.setTimeout(5000, () => reject(new Error("no answer before the body")));
    req.flushHeaders();
  });
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body)).toEqual({ result: "failed", description: "The request is too large: at most 51 MB in all." });
});
