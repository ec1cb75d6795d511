// Access rules and conversation changes, on both dialects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { kindOf } from "~/conversation/channels";
import { canRead } from "~/conversation/access.server";
import * as conversation from "~/conversation/model.server";
import { listTickets, parseListQuery } from "@plugins/tickets/ticket-list.server";
import { unreadCounts } from "~/conversation/unread.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";

const NOW = Date.UTC(2026, 10, 21, 12);

describe.each(DIALECTS)("conversations on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow, agent2: UserRow;
  const insertTicket = async (values: { channel: string; departmentId: number | null; number: number }) => {
    const { db, schema } = t.handle;
    const [row] = await db
      .insert(schema.tickets)
      .values({
        ticketNumber: values.number,
        title: `T${values.number}`,
        channel: values.channel,
        kind: kindOf(values.channel),
        departmentId: values.departmentId,
        createdAt: NOW,
        updatedAt: NOW,
      })
      .returning();
    return row;
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: NOW });
    [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
  });
  afterAll(async () => t?.cleanup());

  it("lets admins read all, agents their department's tickets and their own conversations", async () => {
    const support = await insertTicket({ channel: "EMAIL", departmentId: 2, number: 1 }); // agent is in Support (2)
    const sales = await insertTicket({ channel: "EMAIL", departmentId: 1, number: 2 });
    const chat = await insertTicket({ channel: "chat", departmentId: 2, number: 3 });
    expect(await canRead(admin, sales.id)).toBe(true);
    expect(await canRead(agent, support.id)).toBe(true);
    expect(await canRead(agent, sales.id)).toBe(false);
    // a workspace chat is for its participants only, even within the department
    expect(await canRead(agent, chat.id)).toBe(false);
    await conversation.addParticipant(admin, chat, "agent", false);
    expect(await canRead(agent, chat.id)).toBe(true);
    await conversation.addParticipant(admin, sales, "agent", true);
    expect(await canRead(agent, sales.id)).toBe(true);
    await conversation.removeParticipant(admin, sales, agent.id);
    expect(await canRead(agent, sales.id)).toBe(false);
  });

  it("refuses to open a conversation the reader may not read, and unknown numbers", async () => {
    await expect(conversation.findConversation(agent, 2, "ticket")).rejects.toBeInstanceOf(Error);
    await expect(conversation.findConversation(agent, 2, "ticket")).rejects.toThrow("You cannot read this conversation.");
    await expect(conversation.findConversation(admin, 999999, "ticket")).rejects.toBeInstanceOf(conversation.NotFound);
    // a chat number is not a ticket
    await expect(conversation.findConversation(admin, 3, "ticket")).rejects.toBeInstanceOf(conversation.NotFound);
    expect((await conversation.findConversation(admin, 3, "chat")).ticketNumber).toBe(3);
  });

  it("lists only what the reader may read", async () => {
    const q = parseListQuery(new URLSearchParams("status=4"));
    const forAgent = await listTickets(agent, "ticket", q, { now: NOW, timeZone: "UTC" });
    expect(forAgent.items.map((i) => i.ticketNumber)).toEqual([1]);
    const forAdmin = await listTickets(admin, "ticket", q, { now: NOW, timeZone: "UTC" });
    expect(forAdmin.items.map((i) => i.ticketNumber).sort()).toEqual([1, 2]);
    expect((await listTickets(agent2, "ticket", q, { now: NOW, timeZone: "UTC" })).items.map((i) => i.ticketNumber)).toEqual([2]);
  });

  it("replies, records status changes as system messages and pages messages", async () => {
    const ticket = await conversation.findConversation(agent, 1, "ticket");
    for (let i = 0; i < 35; i++) await conversation.reply(agent, ticket, { body: `line ${i}`, files: [] });
    expect(await conversation.setStatus(agent, ticket, 2)).toBe(true);
    expect(await conversation.setStatus(agent, { ...ticket, status: 2 }, 2)).toBe(false);
    const page = await conversation.loadMessages(ticket);
    expect(page.messages).toHaveLength(30);
    expect(page.hasOlder).toBe(true);
    const last = page.messages.at(-1)!;
    expect(last.type).toBe("system");
    expect(JSON.parse(last.body)).toEqual({ event: "status", by: "Alya Agent", status: 2 });
    const older = await conversation.loadMessages(ticket, { before: page.messages[0].id });
    expect(older.messages).toHaveLength(6);
    expect(older.hasOlder).toBe(false);
    const [row] = await t.handle.db.select().from(t.handle.schema.tickets).where(eq(t.handle.schema.tickets.id, ticket.id));
    expect(row.status).toBe(2);
    expect(row.lastMessage).toBe("line 34");
    expect(row.responded).toBe(true);
  });

  it("keeps notes, reactions and pins on messages of the same ticket only", async () => {
    const ticket = await conversation.findConversation(agent, 1, "ticket");
    const other = await conversation.findConversation(admin, 2, "ticket");
    const [message] = await conversation.reply(agent, ticket, { body: "react to me", files: [] });
    await conversation.addNote(agent, ticket, message.id, "private");
    await conversation.toggleReaction(agent, ticket, message.id, "👍");
    await conversation.toggleReaction(admin, ticket, message.id, "👍");
    await conversation.toggleReaction(admin, ticket, message.id, "👍"); // toggled off again
    await conversation.toggleReaction(agent, ticket, message.id, "<script>"); // not a reaction: ignored
    await conversation.togglePin(ticket, message.id);
    const view = (await conversation.loadMessages(ticket)).messages.find((m) => m.id === message.id)!;
    expect(view.notes.map((n) => n.body)).toEqual(["private"]);
    expect(view.reactions).toEqual([{ reaction: "👍", usernames: ["agent"] }]);
    expect(view.pinned).toBe(true);
    // a message id from another ticket is not reachable through this one
    await expect(conversation.togglePin(other, message.id)).rejects.toBeInstanceOf(conversation.NotFound);
    // only the author or an admin deletes
    await expect(conversation.deleteMessage(agent2, ticket, message.id)).rejects.toThrow();
    await conversation.deleteMessage(agent, ticket, message.id);
    const gone = await t.handle.db.select().from(t.handle.schema.messageNotes).where(eq(t.handle.schema.messageNotes.messageId, message.id));
    expect(gone).toHaveLength(0);
  });

  it("refuses a reply to a message of another ticket, and pins safely twice at once", async () => {
    const ticket = await conversation.findConversation(agent, 1, "ticket");
    const other = await conversation.findConversation(admin, 2, "ticket");
    const [foreign] = await conversation.reply(admin, other, { body: "elsewhere", files: [] });
    await expect(conversation.reply(agent, ticket, { body: "re", replyToId: foreign.id, files: [] })).rejects.toBeInstanceOf(conversation.NotFound);
    const [mine] = await conversation.reply(agent, ticket, { body: "pin me", files: [] });
    await Promise.all([conversation.togglePin(ticket, mine.id), conversation.togglePin(ticket, mine.id)]);
    const view = (await conversation.loadMessages(ticket)).messages.find((m) => m.id === mine.id)!;
    expect(view.pinned).toBe(false);
    await Promise.all([conversation.toggleReaction(agent, ticket, mine.id, "👍"), conversation.toggleReaction(agent, ticket, mine.id, "👍")]);
  });

  it("numbers new conversations after the highest one", async () => {
    const chat = await conversation.createConversation(agent, { channel: "chat", title: "Lunch?", body: "12:30", usernames: ["agent2"] });
    expect(chat.kind).toBe("chat");
    expect(chat.ticketNumber).toBe(100001);
    expect(await canRead(agent2, chat.id)).toBe(true);
    expect(await canRead(admin, chat.id)).toBe(true);
    const second = await conversation.createConversation(admin, { channel: "EMAIL", title: "By hand", body: "", departmentId: 1 });
    expect(second.ticketNumber).toBe(100002);
    expect(second.kind).toBe("ticket");
  });

  it("writes nothing when a reply fails midway", async () => {
    const ticket = await conversation.findConversation(agent, 1, "ticket");
    const { db, schema } = t.handle;
    const before = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticket.id));
    // a reply to a ticket that no longer exists fails on the foreign key inside the transaction
    await expect(conversation.reply(agent, { ...ticket, id: 987654 }, { body: "lost", files: [] })).rejects.toThrow();
    const after = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticket.id));
    expect(after).toHaveLength(before.length);
    const orphan = await db
      .select()
      .from(schema.messages)
      .where(and(eq(schema.messages.ticketId, 987654)));
    expect(orphan).toHaveLength(0);
  });

  it("keeps each user's unread counts equal to their unread conversations through every change", async () => {
    const { db, schema } = t.handle;
    const p = schema.participants;
    const counted = async (user: UserRow) => {
      const rows = await db
        .select({ kind: p.kind, n: sql<number>`count(*)` })
        .from(p)
        .where(and(eq(p.userId, user.id), eq(p.unread, true)))
        .groupBy(p.kind);
      const n = (k: string) => Number(rows.find((r) => r.kind === k)?.n ?? 0);
      return { ticket: n("ticket"), livechat: n("livechat"), chat: n("chat") };
    };
    const check = async () => {
      for (const user of [admin, agent, agent2]) expect(await unreadCounts(user.id)).toEqual(await counted(user));
    };
    const before = await unreadCounts(agent2.id);
    // a new chat with two others: unread for them, not for its author
    const chat = await conversation.createConversation(agent, { channel: "chat", title: "Counts", body: "hello", usernames: ["agent2", "admin"] });
    expect((await unreadCounts(agent2.id)).chat).toBe(before.chat + 1);
    await check();
    // a second message while still unread changes nothing; reading clears it; a reply marks it again
    const row = await conversation.findConversation(agent, chat.ticketNumber, "chat");
    await conversation.reply(agent, row, { body: "again", files: [] });
    expect((await unreadCounts(agent2.id)).chat).toBe(before.chat + 1);
    await conversation.markConversationRead(agent2, row);
    expect((await unreadCounts(agent2.id)).chat).toBe(before.chat);
    // replying reads the conversation for its author and marks it unread for the others again
    const adminBefore = (await unreadCounts(admin.id)).chat;
    await conversation.reply(admin, row, { body: "from admin", files: [] });
    expect((await unreadCounts(admin.id)).chat).toBe(adminBefore - 1);
    expect((await unreadCounts(agent2.id)).chat).toBe(before.chat + 1);
    await check();
    // a kind change (a live chat converted to a ticket) moves the count between kinds
    const live = await insertTicket({ channel: "LIVECHAT", departmentId: 2, number: 70001 });
    await db.insert(p).values({ ticketId: live.id, userId: agent2.id, kind: "livechat", unread: true, addedAt: NOW });
    await check();
    await db.update(p).set({ kind: "ticket" }).where(eq(p.ticketId, live.id));
    await check();
    // a removed participant and a deleted conversation take their unread with them
    await conversation.removeParticipant(agent, row, agent2.id);
    await check();
    await db.delete(schema.tickets).where(eq(schema.tickets.id, live.id));
    await check();
    expect(await unreadCounts(agent2.id)).toEqual(before);
  });

  it("marks a conversation read for its participants", async () => {
    const ticket = await conversation.findConversation(admin, 2, "ticket");
    await conversation.addParticipant(admin, ticket, "agent2", true);
    const q = parseListQuery(new URLSearchParams("status=4"));
    await conversation.reply(admin, ticket, { body: "ping", files: [] });
    const fresh = await conversation.findConversation(agent2, 2, "ticket");
    expect((await listTickets(agent2, "ticket", q, { timeZone: "UTC" })).items[0].unread).toBe(true);
    await conversation.markConversationRead(agent2, fresh);
    expect((await listTickets(agent2, "ticket", q, { timeZone: "UTC" })).items[0].unread).toBe(false);
  });

  it("gives conversations created at the same moment each its own number, none refused", async () => {
    // twelve channels' customers writing at once: each in its own transaction, none retried
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.handle.transaction((tx) => conversation.insertTicket(tx, { channel: "WHATSAPP", title: `At once ${i}`, departmentId: 2 }, "hello", NOW)),
      ),
    );
    const numbers = created.map((c) => c.ticketNumber);
    expect(new Set(numbers).size).toBe(12);
    expect(Math.max(...numbers) - Math.min(...numbers)).toBe(11);
  });
});
