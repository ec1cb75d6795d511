// Idempotent writes on both dialects (ADR 045): a reply, a reaction or a public ticket sent again
// with its key, one after the other or at the same moment, is stored once and answers the first
// result; the key with other content is refused; a key is forgotten after a day.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { action as replyAction } from "~/conversation/routes/api.reply";
import { conversationById, toggleReaction } from "~/conversation/model.server";
import { KeyReused, once, REQUEST_KEY_TTL_MS, requestKeyOf, sweepRequestKeys } from "~/request-keys.server";
import { csrfToken } from "~/csrf.server";
import { action as newTicketAction } from "@plugins/tickets/routes/new-ticket";

describe.each(DIALECTS)("idempotent writes on %s", (dialect) => {
  let t: TestDb;
  let agent: UserRow;
  let token: string;
  let ticketId: number;

  beforeAll(async () => {
    process.env.DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-keys-"));
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 5, now: Date.now() });
    agent = (await findUserByUsername("admin"))!;
    token = (await createSession(agent.id)).token;
    const { db, schema } = t.handle;
    [{ id: ticketId }] = await db.select({ id: schema.tickets.id }).from(schema.tickets).limit(1);
  });
  afterAll(async () => t?.cleanup());

  const messagesOf = async (id: number) => {
    const { db, schema } = t.handle;
    const [{ n }] = await db.select({ n: count() }).from(schema.messages).where(eq(schema.messages.ticketId, id));
    return Number(n);
  };

  /** POST /api/ticket/message/reply as JSON, with an Idempotency-Key when given. */
  async function sendReply(message: string, key?: string) {
    const request = new Request("http://localhost/api/ticket/message/reply", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(key ? { "Idempotency-Key": key } : {}) },
      body: JSON.stringify({ ticket_id: ticketId, message, _token: token }),
    });
    const res = (await replyAction({ request, params: {}, context: { cspNonce: "", clientIp: "127.0.0.1" } })) as Response;
    return { status: res.status, body: (await res.json()) as { result: string; id?: number; ids?: number[]; description?: string } };
  }

  it("stores a reply sent twice with one key once, and answers the retry with the first message", async () => {
    const before = await messagesOf(ticketId);
    const first = await sendReply("Your refund is on its way", "retry 1");
    const again = await sendReply("Your refund is on its way", "retry 1");
    expect(first).toMatchObject({ status: 200, body: { result: "success" } });
    expect(again).toEqual(first);
    expect(await messagesOf(ticketId)).toBe(before + 1);
    // without a key, a resend is a second message (what the key prevents)
    await sendReply("No key", undefined);
    await sendReply("No key", undefined);
    expect(await messagesOf(ticketId)).toBe(before + 3);
  });

  it("stores one of five twins sent at the same moment, and all five get its id", async () => {
    const before = await messagesOf(ticketId);
    const answers = await Promise.all(Array.from({ length: 5 }, () => sendReply("Sent five times at once", `twins-${"é".repeat(300)}`)));
    expect(answers.every((a) => a.status === 200 && a.body.result === "success")).toBe(true);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await messagesOf(ticketId)).toBe(before + 1);
  });

  it("refuses the key with other content (422) and stores nothing", async () => {
    await sendReply("First text", "reused-1");
    const before = await messagesOf(ticketId);
    const other = await sendReply("Another text", "reused-1");
    expect(other.status).toBe(422);
    expect(await messagesOf(ticketId)).toBe(before);
  });

  it("toggles a reaction once when its form is sent twice", async () => {
    const ticket = await conversationById(agent, ticketId);
    const { db, schema } = t.handle;
    const [message] = await db.select({ id: schema.messages.id }).from(schema.messages).where(eq(schema.messages.ticketId, ticketId)).limit(1);
    const r = schema.messageReactions;
    const liked = async () =>
      (
        await db
          .select()
          .from(r)
          .where(and(eq(r.messageId, message.id), eq(r.userId, agent.id), eq(r.reaction, "👍")))
      ).length;
    const before = await liked();
    const key = requestKeyOf(`user:${agent.id}`, "react", "react-1", { message_id: message.id, reaction: "👍" });
    for (let i = 0; i < 2; i++)
      await once(
        key,
        () => toggleReaction(agent, ticket, message.id, "👍"),
        () => undefined,
      );
    // toggled once: liked if it was not, not liked if it was
    expect(await liked()).toBe(1 - before);
    // the same key for another write is the client's bug: refused
    const other = requestKeyOf(`user:${agent.id}`, "pin", "react-1", { message_id: message.id });
    await expect(
      once(
        other,
        async () => "written",
        () => "replayed",
      ),
    ).rejects.toBeInstanceOf(KeyReused);
  });

  it("makes one ticket of the public new-ticket form sent twice with its key", async () => {
    const made = await csrfToken(new Request("http://localhost/new_ticket/demo"));
    const cookie = made.setCookie!.split(";")[0];
    const send = () => {
      const body = new URLSearchParams({
        _token: made.token,
        request_key: "form-1",
        name: "Ann",
        email: "ann@example.com",
        subject: "Kettle",
        message: "Broken",
      });
      const request = new Request("http://localhost/new_ticket/demo", {
        method: "POST",
        body,
        headers: { Host: "localhost", Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      });
      return newTicketAction({ request, params: { token: "demo" }, context: { cspNonce: "", clientIp: "127.0.0.1" } }).catch(
        (thrown: unknown) => thrown as Response,
      );
    };
    const { db, schema } = t.handle;
    const kettles = async () => (await db.select().from(schema.tickets).where(eq(schema.tickets.title, "Kettle"))).length;
    const [a, b] = [await send(), await send()];
    expect([a.status, b.status]).toEqual([302, 302]);
    expect(b.headers.get("Location")).toBe(a.headers.get("Location"));
    expect(await kettles()).toBe(1);
  });

  it("forgets keys after a day", async () => {
    await sendReply("Kept a day", "old-1");
    const { db, schema } = t.handle;
    await sweepRequestKeys(Date.now() + REQUEST_KEY_TTL_MS + 1000);
    expect(await db.select().from(schema.requestKeys)).toHaveLength(0);
  });
});
