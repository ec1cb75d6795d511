// The search index on SQLite (FTS5 trigram) and PostgreSQL (pg_trgm): Chinese, Japanese and Korean
// words, the index kept in step by the write path, encrypted messages and quoted history never
// indexed, access checked before the page is cut, ranking, and highlighting that escapes the text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { kindOf } from "~/conversation/channels";
import { ENCRYPTED_MESSAGE_TYPE } from "~/conversation/constants";
import * as conversation from "~/conversation/model.server";
import { findUserByUsername } from "~/accounts/users.server";
import { parseSearch, search, SEARCH_PAGE_SIZE } from "@plugins/tickets/search.server";
import { highlightHtml, highlightSegments } from "@plugins/tickets/highlight";

const NOW = Date.UTC(2026, 10, 21, 12);

describe("highlight", () => {
  it("marks every term, case-insensitively and literally", () => {
    expect(highlightSegments("Refund the REFUND, a.b", ["refund", "a.b"])).toEqual([
      { text: "Refund", mark: true },
      { text: " the ", mark: false },
      { text: "REFUND", mark: true },
      { text: ", ", mark: false },
      { text: "a.b", mark: true },
    ]);
    expect(highlightSegments("axb", ["a.b"])).toEqual([{ text: "axb", mark: false }]);
    expect(highlightSegments("我们需要申请退款，谢谢", ["退款"]).filter((s) => s.mark)).toEqual([{ text: "退款", mark: true }]);
  });

  it("escapes everything but its own <mark>", () => {
    expect(highlightHtml(`<script>alert("x")</script> & zebra's`, ["zebra"])).toBe(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; <mark>zebra</mark>&#39;s",
    );
    expect(highlightHtml("<b>mark</b>", ["<b>"])).toBe("<mark>&lt;b&gt;</mark>mark&lt;/b&gt;");
  });
});

describe.each(DIALECTS)("search index on %s", (dialect) => {
  let t: TestDb;
  let nextNumber = 500; // below the seeded numbers: createConversation numbers after the highest

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 50, now: NOW });
  });
  afterAll(async () => t?.cleanup());

  const admin = async () => (await findUserByUsername("admin"))!;
  const agent = async () => (await findUserByUsername("agent"))!;

  /** A ticket with messages, written straight to the tables (the index triggers/indexes see every write). */
  async function ticket(f: {
    title: string;
    departmentId?: number | null;
    messages?: { body: string; type?: string; quoted?: string }[];
    contactPhone?: string;
  }) {
    const { db, schema } = t.handle;
    const number = ++nextNumber;
    const [row] = await db
      .insert(schema.tickets)
      .values({
        ticketNumber: number,
        title: f.title,
        channel: "EMAIL",
        kind: kindOf("EMAIL"),
        departmentId: f.departmentId === undefined ? 2 : f.departmentId,
        contactName: "Mei Tan",
        contactEmail: `mei${number}@example.net`,
        contactPhone: f.contactPhone ?? "",
        createdAt: NOW,
        updatedAt: NOW + number,
      })
      .returning();
    const ids: number[] = [];
    for (const [i, m] of (f.messages ?? []).entries()) {
      const [msg] = await db
        .insert(schema.messages)
        .values({ ticketId: row!.id, body: m.body, type: m.type ?? "text", quoted: m.quoted ?? null, senderName: "Mei Tan", createdAt: NOW + i })
        .returning({ id: schema.messages.id });
      ids.push(msg!.id);
    }
    return { ...row!, messageIds: ids };
  }

  it("finds Chinese, Japanese and Korean words inside longer text, titles included", async () => {
    const zh = await ticket({ title: "Order 5512", messages: [{ body: "您好，我们需要申请退款，订单已经取消了，请尽快处理" }] });
    const ja = await ticket({ title: "注文について", messages: [{ body: "注文した商品の払い戻しをお願いします。" }] });
    const ko = await ticket({ title: "Order 5513", messages: [{ body: "주문한 상품의 환불 요청합니다" }] });
    const a = await admin();
    for (const [word, id] of [
      ["退款", zh.id], // a 2-character word in a sentence without spaces
      ["申请退款", zh.id],
      ["払い戻し", ja.id],
      ["注文", ja.id], // in the title and the message
      ["환불", ko.id],
      ["환불 요청", ko.id],
    ] as const) {
      const r = await search(a, parseSearch(`"${word}"`));
      expect(
        r.post.map((p) => p.id),
        word,
      ).toEqual([id]);
    }
    const hit = (await search(a, parseSearch("退款"))).message[0]!;
    expect(hit.message_html).toContain("<mark>退款</mark>");
    expect((await search(a, parseSearch("款，订"))).postCount).toBe(1);
    expect((await search(a, parseSearch("退货"))).postCount).toBe(0);
  });

  it("finds 1-2 character terms, and contacts by phone", async () => {
    const x = await ticket({ title: "Zq", messages: [{ body: "see attached: Qz" }], contactPhone: "+60 12-345 6789" });
    const a = await admin();
    expect((await search(a, parseSearch("zq"))).post.map((p) => p.id)).toEqual([x.id]);
    expect((await search(a, parseSearch("message:qz"))).post.map((p) => p.id)).toEqual([x.id]);
    expect((await search(a, parseSearch(`contact:"345 6789"`))).post.map((p) => p.id)).toEqual([x.id]);
    expect((await search(a, parseSearch('contact:"12-345"'))).post.map((p) => p.id)).toEqual([x.id]);
    // a very broad short term still answers, capped
    expect((await search(a, parseSearch("e"), { countCap: 20 })).postCountCapped).toBe(true);
  });

  it("keeps the index in step with the write path", async () => {
    const a = await admin();
    const created = await conversation.createConversation(a, {
      channel: "EMAIL",
      title: "Printer jammed",
      body: "The quokkaprinter is jammed",
      departmentId: 2,
    });
    expect((await search(a, parseSearch("quokkaprinter"))).post.map((p) => p.id)).toEqual([created.id]);
    const row = (await t.handle.db.select().from(t.handle.schema.tickets).where(eq(t.handle.schema.tickets.id, created.id)))[0]!;

    // a reply is found right after its commit
    const [reply] = await conversation.reply(a, row, { body: "Sent a wombatroller to fix it", files: [] });
    const found = await search(a, parseSearch("wombatroller"));
    expect(found.message.map((m) => m.id)).toEqual([reply!.id]);
    expect(found.post.map((p) => p.id)).toEqual([created.id]);

    // an edited title and contact are found by their new text, not the old
    const { db, schema } = t.handle;
    await t.handle.transaction(async (tx) => {
      await tx
        .update(schema.tickets)
        .set({ title: "Scanner offline", contactName: "Nurul Platypus", contactEmail: "nurul@platypus.example", contactPhone: "+62 811 222" })
        .where(eq(schema.tickets.id, created.id));
    });
    expect((await search(a, parseSearch("scanner offline"))).post.map((p) => p.id)).toEqual([created.id]);
    expect((await search(a, parseSearch("jammed"))).post.map((p) => p.id)).toEqual([created.id]); // still in its first message
    expect((await search(a, parseSearch("printer jammed"))).postCount).toBe(1); // message body
    expect((await search(a, parseSearch('"Printer jammed"'))).post.filter((p) => p.title === "Printer jammed")).toEqual([]);
    expect((await search(a, parseSearch("contact:platypus"))).post.map((p) => p.id)).toEqual([created.id]);
    expect((await search(a, parseSearch(`contact:"811 222"`))).post.map((p) => p.id)).toEqual([created.id]);
    expect((await search(a, parseSearch("contact:mei"))).post.map((p) => p.id)).not.toContain(created.id);

    // a deleted message is no longer found
    await conversation.deleteMessage(a, row, reply!.id);
    expect(await search(a, parseSearch("wombatroller"))).toMatchObject({ postCount: 0, messageCount: 0 });

    // nor is anything of a deleted ticket
    await db.delete(schema.tickets).where(eq(schema.tickets.id, created.id));
    expect(await search(a, parseSearch("quokkaprinter"))).toMatchObject({ postCount: 0, messageCount: 0 });
    expect((await search(a, parseSearch("contact:platypus"))).postCount).toBe(0);
  });

  it("never indexes encrypted messages or a mail's quoted history", async () => {
    const a = await admin();
    const x = await ticket({
      title: "Private matter",
      messages: [
        { body: "ciphertext narwhalsecret", type: ENCRYPTED_MESSAGE_TYPE },
        { body: "Thanks, see below", quoted: "> earlier: narwhalquoted history" },
        { body: "plain narwhalvisible" },
      ],
    });
    expect((await search(a, parseSearch("narwhalvisible"))).post.map((p) => p.id)).toEqual([x.id]);
    expect(await search(a, parseSearch("narwhalsecret"))).toMatchObject({ postCount: 0, messageCount: 0 });
    expect(await search(a, parseSearch("narwhalquoted"))).toMatchObject({ postCount: 0, messageCount: 0 });
    if (dialect === "sqlite") {
      const rows = t.handle.db.all<{ n: number }>(`SELECT count(*) AS n FROM message_search WHERE message_search MATCH '"narwhalsecret"'` as never);
      expect(rows[0]!.n).toBe(0);
    }
    // a message that becomes encrypted leaves the index
    const { db, schema } = t.handle;
    await db.update(schema.messages).set({ type: ENCRYPTED_MESSAGE_TYPE }).where(eq(schema.messages.id, x.messageIds[2]!));
    expect(await search(a, parseSearch("narwhalvisible"))).toMatchObject({ postCount: 0, messageCount: 0 });
  });

  it("checks access before cutting the page: counts and pages are the agent's own", async () => {
    // the agent (department 2) reads 8; the 5 newest are another department's
    const readable: number[] = [];
    for (let i = 0; i < 8; i++)
      readable.push((await ticket({ title: `Pagination kiwifruit ${i}`, departmentId: 2, messages: [{ body: `kiwifruit note ${i}` }] })).id);
    const hidden: number[] = [];
    for (let i = 0; i < 5; i++)
      hidden.push((await ticket({ title: `Hidden kiwifruit ${i}`, departmentId: 3, messages: [{ body: `kiwifruit secret ${i}` }] })).id);
    const ag = await agent();
    const cap = 8; // as many as the agent may read: hidden rows counted first would cap it early
    const first = await search(ag, parseSearch("kiwifruit"), { countCap: cap });
    expect(first).toMatchObject({ postCount: 8, postCountCapped: false, messageCount: 8, messageCountCapped: false, postMore: true, messageMore: true });
    expect(first.post).toHaveLength(SEARCH_PAGE_SIZE);
    const second = await search(ag, parseSearch("kiwifruit"), { postIndex: 1, messageIndex: 1, countCap: cap });
    expect(second.post).toHaveLength(2);
    expect(second.message).toHaveLength(2);
    expect(second.postMore).toBe(false);
    const seen = [...first.post, ...second.post].map((p) => p.id);
    expect(new Set(seen)).toEqual(new Set(readable));
    expect([...first.message, ...second.message].every((m) => readable.includes(m.ticket_id))).toBe(true);
    expect((await search(await admin(), parseSearch("kiwifruit"))).postCount).toBe(13);
    for (const id of hidden) expect(seen).not.toContain(id);
  });

  it("lists the newest readable hits of a common Chinese word when the newest are hidden", async () => {
    // common enough that PostgreSQL walks the newest messages (span by span) instead of collecting every match
    const readable: number[] = [];
    for (let i = 0; i < 30; i++)
      readable.push(...(await ticket({ title: `Case ${i}`, departmentId: 2, messages: [{ body: `客户要求赔偿 ${i}` }] })).messageIds);
    for (let i = 0; i < 10; i++) await ticket({ title: `Hidden ${i}`, departmentId: 3, messages: [{ body: `内部赔偿记录 ${i}` }] });
    const ag = await agent();
    const capped = await search(ag, parseSearch("赔偿"), { countCap: 5 });
    expect(capped).toMatchObject({ messageCount: 5, messageCountCapped: true });
    expect(capped.message.map((m) => m.id)).toEqual(readable.slice(-5).reverse());
    const all = await search(ag, parseSearch("要求赔偿"));
    expect(all).toMatchObject({ messageCount: 30, messageCountCapped: false, postCount: 30 });
  });

  it("ranks by relevance, then newest first, and escapes what it highlights", async () => {
    const a = await admin();
    // older, but the word three times in a short message: ranks above a newer, longer one
    const strong = await ticket({ title: "Old", messages: [{ body: "lemurcase lemurcase lemurcase" }] });
    const weak = await ticket({ title: "New", messages: [{ body: `${"filler words about nothing in particular ".repeat(6)} lemurcase once` }] });
    const r = await search(a, parseSearch("lemurcase"));
    expect(r.message.map((m) => m.ticket_id)).toEqual([strong.id, weak.id]);
    // a conversation with the word in its title ranks above a newer one with it in a message only
    const titled = await ticket({ title: "Lemurcase title", messages: [{ body: "nothing" }] });
    const newest = await ticket({ title: "Other", messages: [{ body: "a lemurcase too" }] });
    const posts = (await search(a, parseSearch("lemurcase"))).post.map((p) => p.id);
    expect(posts[0]).toBe(titled.id);
    expect(posts.indexOf(newest.id)).toBeLessThan(posts.indexOf(weak.id));

    const x = await ticket({ title: "Markup", messages: [{ body: `<script>alert("gotcha")</script> tapirword <img src=x onerror=alert(1)>` }] });
    const hit = (await search(a, parseSearch("tapirword"))).message.find((m) => m.ticket_id === x.id)!;
    expect(hit.message_html).toBe("&lt;script&gt;alert(&quot;gotcha&quot;)&lt;/script&gt; <mark>tapirword</mark> &lt;img src=x onerror=alert(1)&gt;");
  });
});

describe.each(DIALECTS)("search of a common word on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: NOW });
    // 2,400 messages (over the "common" threshold) in 800 conversations over three departments
    const { db, schema } = t.handle;
    const tickets = Array.from({ length: 800 }, (_, i) => ({
      id: i + 1,
      ticketNumber: 300_000 + i,
      title: i % 5 === 0 ? `Capybara question ${i}` : `Other ${i}`,
      channel: "EMAIL",
      kind: "ticket",
      departmentId: 1 + (i % 3),
      createdAt: NOW + i,
      updatedAt: NOW + i,
    }));
    for (let i = 0; i < tickets.length; i += 200) await db.insert(schema.tickets).values(tickets.slice(i, i + 200));
    const messages = Array.from({ length: 2400 }, (_, i) => ({ ticketId: 1 + (i % 800), body: `capybara note ${i}`, senderName: "X", createdAt: NOW + i }));
    for (let i = 0; i < messages.length; i += 200) await db.insert(schema.messages).values(messages.slice(i, i + 200));
  });
  afterAll(async () => t?.cleanup());

  it("lists the newest readable conversations first, with exact capped counts", async () => {
    const agent = (await findUserByUsername("agent"))!; // department 2: tickets with i % 3 === 1
    const readable = Array.from({ length: 800 }, (_, i) => i + 1).filter((id) => (id - 1) % 3 === 1);
    const r = await search(agent, parseSearch("capybara"), { countCap: 100 });
    expect(r).toMatchObject({ postCount: 100, postCountCapped: true, messageCount: 100, messageCountCapped: true });
    // titles holding the word rank first, then newest first
    const newest = readable.slice(-100).reverse();
    const titled = newest.filter((id) => (id - 1) % 5 === 0);
    expect(r.post.map((p) => p.id)).toEqual([...titled, ...newest.filter((id) => !titled.includes(id))].slice(0, SEARCH_PAGE_SIZE));
    const all = await search(agent, parseSearch("capybara"));
    expect(all).toMatchObject({ postCount: readable.length, postCountCapped: false, messageCount: readable.length * 3 });
    expect((await search(agent, parseSearch("capybara note 2399"))).message.map((m) => m.message)).toEqual(["capybara note 2399"]);
  });
});
