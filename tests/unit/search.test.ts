// Search: the query parser (pure), and the search model on SQLite and PostgreSQL, including that
// an agent never gets a hit from a conversation they may not read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, sql } from "drizzle-orm";
import { kindOf } from "~/conversation/channels";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import {
  COUNT_CAP,
  SEARCH_PAGE_SIZE,
  containsPattern,
  excerpt,
  formatSearch,
  pageIndex,
  parseSearch,
  search,
  suggestLabels,
  tokensFromApi,
  type SearchToken,
} from "@plugins/tickets/search.server";
import { findUserByUsername } from "~/accounts/users.server";

const NOW = Date.UTC(2026, 10, 21, 12);

describe("parseSearch", () => {
  const cases: [string, SearchToken[]][] = [
    ["", []],
    ["   ", []],
    ["invoice", [{ key: "text", value: "invoice" }]],
    [
      "refund  invoice",
      [
        { key: "text", value: "refund" },
        { key: "text", value: "invoice" },
      ],
    ],
    [
      '"two words" alone',
      [
        { key: "text", value: "two words" },
        { key: "text", value: "alone" },
      ],
    ],
    ["contact:aisha", [{ key: "contact", value: "aisha" }]],
    [
      'contact:"Aisha Lee" refund',
      [
        { key: "contact", value: "Aisha Lee" },
        { key: "text", value: "refund" },
      ],
    ],
    [
      "from:agent label:VIP number:100005 message:hello",
      [
        { key: "from", value: "agent" },
        { key: "label", value: "VIP" },
        { key: "number", value: "100005" },
        { key: "message", value: "hello" },
      ],
    ],
    [
      "LABEL:Urgent From:Alya",
      [
        { key: "label", value: "Urgent" },
        { key: "from", value: "Alya" },
      ],
    ],
    ["label:", [{ key: "label", value: "" }]],
    ['label:"', [{ key: "label", value: "" }]],
    ['message:"unclosed quote here', [{ key: "message", value: "unclosed quote here" }]],
    ['""', []],
    // unknown keys are text, keeping their key
    ["foo:bar", [{ key: "text", value: "foo:bar" }]],
    ["10:30", [{ key: "text", value: "10:30" }]],
    ['status:"on hold"', [{ key: "text", value: "status:on hold" }]],
    ["https://example.com/a?b=c", [{ key: "text", value: "https://example.com/a?b=c" }]],
    // a quoted key:value is text
    ['"label:VIP"', [{ key: "text", value: "label:VIP" }]],
    // SQL meta-characters are ordinary characters
    [
      "'; drop table tickets; --",
      [
        { key: "text", value: "';" },
        { key: "text", value: "drop" },
        { key: "text", value: "table" },
        { key: "text", value: "tickets;" },
        { key: "text", value: "--" },
      ],
    ],
    ['"\'; drop table tickets; --"', [{ key: "text", value: "'; drop table tickets; --" }]],
    [
      "100% a_b",
      [
        { key: "text", value: "100%" },
        { key: "text", value: "a_b" },
      ],
    ],
    ['message:"50% off_now"', [{ key: "message", value: "50% off_now" }]],
  ];
  it.each(cases)("%j", (input, expected) => {
    expect(parseSearch(input)).toEqual(expected);
  });

  it("caps the number of tokens and the length", () => {
    expect(parseSearch("a ".repeat(100)).length).toBeLessThanOrEqual(12);
    expect(parseSearch("x".repeat(5000))[0]!.value.length).toBe(500);
  });

  it("formats tokens back to text that parses the same", () => {
    const inputs = ['contact:"Aisha Lee" refund', "label:VIP number:1", '"label:VIP" foo:bar', '"two words" from:"Alya Agent"', "label:"];
    for (const input of inputs) {
      const tokens = parseSearch(input);
      expect(parseSearch(formatSearch(tokens))).toEqual(tokens);
    }
  });
});

describe("search helpers", () => {
  it("escapes LIKE wildcards and the escape character", () => {
    expect(containsPattern("abc")).toBe("%abc%");
    expect(containsPattern("100%")).toBe("%100\\%%");
    expect(containsPattern("a_b")).toBe("%a\\_b%");
    expect(containsPattern("c:\\x")).toBe("%c:\\\\x%");
    expect(containsPattern("'; --")).toBe("%'; --%");
  });

  it("reads page indexes leniently", () => {
    expect(pageIndex(null)).toBe(0);
    expect(pageIndex("2")).toBe(2);
    expect(pageIndex("-1")).toBe(0);
    expect(pageIndex("abc")).toBe(0);
    expect(pageIndex("1.5")).toBe(0);
    expect(pageIndex("99999999")).toBe(0);
  });

  it("maps the API twin's parameters onto tokens", () => {
    const params = new URLSearchParams({
      entity: 'invoice contact:"Aisha"',
      ticket: "100005",
      label: "VIP",
      username: "agent",
      message: "hello there",
      _token: "x",
    });
    expect(tokensFromApi(params)).toEqual([
      { key: "text", value: "invoice" },
      { key: "contact", value: "Aisha" },
      { key: "number", value: "100005" },
      { key: "label", value: "VIP" },
      { key: "from", value: "agent" },
      { key: "message", value: "hello there" },
    ]);
    expect(tokensFromApi(new URLSearchParams("_token=x&label="))).toEqual([]);
  });

  it("cuts excerpts around the first match and strips html", () => {
    const long = `${"a".repeat(300)} needle ${"b".repeat(300)}`;
    const cut = excerpt(long, "text", ["NEEDLE"]);
    expect(cut).toContain("needle");
    expect(cut.startsWith("…") && cut.endsWith("…")).toBe(true);
    expect(excerpt("<p>Hello <b>there</b> &amp; you</p><script>x()</script>", "text/html", [])).toBe("Hello there & you");
    expect(excerpt("short", "text", ["x"])).toBe("short");
  });
});

describe.each(DIALECTS)("search on %s", (dialect) => {
  let t: TestDb;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 300, now: NOW });
    const { db, schema } = t.handle;
    // Fixture conversations with a word found nowhere else ("zebracorn"), one per access case.
    // The agent (id 2) is in department 2 (Support).
    const fixtures = [
      { key: "support", departmentId: 2, channel: "EMAIL", participant: false, title: "Zebracorn in support" },
      { key: "billing", departmentId: 3, channel: "EMAIL", participant: false, title: "Zebracorn in billing" },
      { key: "billingJoined", departmentId: 3, channel: "WHATSAPP", participant: true, title: "Zebracorn billing, agent joined" },
      { key: "supportChat", departmentId: 2, channel: "chat", participant: false, title: "Zebracorn workspace chat" },
      { key: "noDepartment", departmentId: null, channel: "EMAIL", participant: false, title: "Zebracorn without department" },
      { key: "meta", departmentId: 3, channel: "EMAIL", participant: false, title: "Discount 100% off_now for O'Brien; --" },
      { key: "plain", departmentId: 3, channel: "EMAIL", participant: false, title: "Discount 1000 offXnow" },
    ];
    let number = 900_000;
    for (const f of fixtures) {
      const [row] = await db
        .insert(schema.tickets)
        .values({
          ticketNumber: ++number,
          title: f.title,
          channel: f.channel,
          kind: kindOf(f.channel),
          departmentId: f.departmentId,
          contactName: "Zed Quux",
          contactEmail: "zed+quux@example.org",
          createdAt: NOW,
          updatedAt: NOW + number,
        })
        .returning({ id: schema.tickets.id });
      ids[f.key] = row!.id;
      const word = f.title.startsWith("Zebracorn") ? "zebracorn" : "discount";
      await db.insert(schema.messages).values([
        { ticketId: row!.id, body: `Customer says ${word} (${f.key})`, senderName: "Zed Quux", createdAt: NOW },
        { ticketId: row!.id, body: `Agent answers about the ${word} (${f.key})`, senderUserId: 3, createdAt: NOW + 1 },
      ]);
      if (f.participant) await db.insert(schema.participants).values({ ticketId: row!.id, userId: 2, addedAt: NOW });
    }
    await db.insert(schema.ticketLabels).values({ ticketId: ids.support!, labelId: 1 }); // Urgent
  });
  afterAll(async () => t?.cleanup());

  const admin = async () => (await findUserByUsername("admin"))!;
  const agent = async () => (await findUserByUsername("agent"))!;
  const numbers = (hits: { ticket_number: number }[]) => hits.map((h) => h.ticket_number).sort();
  const numberOf = async (key: string) => {
    const { db, schema } = t.handle;
    const [row] = await db.select({ n: schema.tickets.ticketNumber }).from(schema.tickets).where(eq(schema.tickets.id, ids[key]!));
    return row!.n;
  };

  it("finds titles and message bodies, with links and excerpts", async () => {
    const result = await search(await admin(), parseSearch("zebracorn"));
    expect(result.postCount).toBe(5);
    expect(result.postCountCapped).toBe(false);
    expect(result.post).toHaveLength(5);
    const hit = result.post.find((p) => p.id === ids.support)!;
    expect(hit).toMatchObject({ channel: "EMAIL", title: "Zebracorn in support", link: `/ticket/${hit.ticket_number}` });
    expect(result.post.find((p) => p.id === ids.supportChat)!.link).toMatch(/^\/chat\/\d+$/);
    expect(result.messageCount).toBe(10);
    expect(result.message).toHaveLength(SEARCH_PAGE_SIZE);
    const m = result.message[0]!;
    expect(m.message.toLowerCase()).toContain("zebracorn");
    expect(m.link).toBe(`${m.link.split("?")[0]}?message_id=${m.id}`);
  });

  it("matches case-insensitively", async () => {
    expect((await search(await admin(), parseSearch("ZEBRACORN"))).postCount).toBe(5);
  });

  it("pages 6 at a time with separate pagers", async () => {
    const a = await admin();
    const first = await search(a, parseSearch("zebracorn"), { messageIndex: 0 });
    const second = await search(a, parseSearch("zebracorn"), { messageIndex: 1, postIndex: 1 });
    expect(first.messageMore).toBe(true);
    expect(second.message).toHaveLength(4);
    expect(second.messageMore).toBe(false);
    expect(second.post).toHaveLength(0);
    expect(second.search_message_index).toBe(1);
    const seen = new Set([...first.message, ...second.message].map((m) => m.id));
    expect(seen.size).toBe(10);
  });

  it("caps counts", async () => {
    const result = await search(await admin(), parseSearch("zebracorn"), { countCap: 3 });
    expect(result).toMatchObject({ postCount: 3, postCountCapped: true, messageCount: 3, messageCountCapped: true });
    expect(COUNT_CAP).toBe(1000);
  });

  it("number: finds that ticket, and only that one", async () => {
    const n = await numberOf("billing");
    const result = await search(await admin(), parseSearch(`number:${n}`));
    expect(numbers(result.post)).toEqual([n]);
    expect(result.message).toEqual([]); // no message-level token
    expect((await search(await admin(), parseSearch(`number:#${n}`))).postCount).toBe(1);
    expect((await search(await admin(), parseSearch("number:abc"))).postCount).toBe(0);
    expect((await search(await admin(), parseSearch("number:99999999999"))).postCount).toBe(0);
    // with text, the message list holds that ticket's matching messages
    const both = await search(await admin(), parseSearch(`number:${n} zebracorn`));
    expect(both.message.map((m) => m.ticket_number)).toEqual([n, n]);
  });

  it("contact: matches the contact name or email, and lists the contact", async () => {
    const byEmail = await search(await admin(), parseSearch("contact:zed+quux@"));
    expect(byEmail.postCount).toBe(7);
    expect(byEmail.contact).toEqual([
      { uid: "zed%2Bquux%40example.org", name: "Zed Quux", email: "zed+quux@example.org", link: "/contacts/zed%2Bquux%40example.org" },
    ]);
    expect((await search(await admin(), parseSearch('contact:"zed quux" zebracorn'))).postCount).toBe(5);
    // the contacts listed are those of the conversations found
    expect((await search(await admin(), parseSearch("contact:example zebracorn"))).contact.map((c) => c.email)).toEqual(["zed+quux@example.org"]);
    expect((await search(await admin(), parseSearch("contact:aisha zebracorn"))).contact).toEqual([]);
    expect((await search(await admin(), parseSearch("zebracorn"))).contact).toEqual([]); // only with a contact: token
  });

  it("from: matches user names, usernames and the contact on customer messages", async () => {
    const byUser = await search(await admin(), parseSearch("from:brian zebracorn"));
    expect(byUser.messageCount).toBe(5);
    expect(byUser.message.every((m) => m.sender === "Brian Agent")).toBe(true);
    const byUsername = await search(await admin(), parseSearch("from:agent2 zebracorn"));
    expect(byUsername.messageCount).toBe(5);
    const byContact = await search(await admin(), parseSearch('from:"Zed Quux" zebracorn'));
    expect(byContact.messageCount).toBe(5);
    expect(byContact.message.every((m) => m.message.startsWith("Customer says"))).toBe(true);
  });

  it("label: finds tickets carrying a matching label and suggests other labels", async () => {
    const result = await search(await admin(), parseSearch("zebracorn label:urgent"));
    expect(result.post.map((p) => p.id)).toEqual([ids.support]);
    expect(result.labels).toEqual([]); // "Urgent" equals the text
    const suggestions = await suggestLabels(parseSearch("zebracorn label:ur"));
    expect(suggestions.map((s) => s.name)).toEqual(["Urgent"]);
    expect(suggestions[0]!.query).toBe("zebracorn label:Urgent");
    expect((await suggestLabels(parseSearch("label:"))).length).toBe(6);
    expect(await suggestLabels(parseSearch("label:ur zebracorn"))).toEqual([]); // not the last token
  });

  it("message: matches message bodies only", async () => {
    const result = await search(await admin(), parseSearch('message:"answers about the zebracorn"'));
    expect(result.postCount).toBe(5);
    expect(result.messageCount).toBe(5);
    expect((await search(await admin(), parseSearch("message:Zebracorn message:workspace"))).postCount).toBe(0); // titles are not bodies
    expect((await search(await admin(), parseSearch("message:(billing"))).postCount).toBe(2); // bodies name their fixture key
  });

  it("matches SQL meta-characters literally, and survives injection attempts", async () => {
    const a = await admin();
    expect(numbers((await search(a, parseSearch("100%"))).post)).toEqual([await numberOf("meta")]);
    expect(numbers((await search(a, parseSearch("off_now"))).post)).toEqual([await numberOf("meta")]);
    expect((await search(a, parseSearch('"0% o"'))).postCount).toBe(1);
    expect((await search(a, parseSearch("O'Brien;"))).postCount).toBe(1);
    expect((await search(a, parseSearch('"; --"'))).postCount).toBe(1);
    expect((await search(a, parseSearch("%"))).post.map((p) => p.id)).toEqual([ids.meta]);
    expect((await search(a, parseSearch("_"))).post.map((p) => p.id)).toEqual([ids.meta]);
    expect((await search(a, parseSearch("\\"))).postCount).toBe(0);
    const attack = await search(a, parseSearch("'; drop table tickets; --"));
    expect(attack.postCount).toBe(0);
    for (const q of ['" OR 1=1 --', "label:'; delete from labels; --", "contact:%' OR '1'='1", "from:\\' --", "number:1;drop"])
      await expect(search(a, parseSearch(q))).resolves.toMatchObject({ postCount: 0 });
    const { db, schema } = t.handle;
    const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(schema.tickets);
    expect(Number(n)).toBe(307);
    expect((await db.select().from(schema.labels)).length).toBe(6);
  });

  it("returns nothing for an empty query", async () => {
    const result = await search(await admin(), parseSearch("   "));
    expect(result).toMatchObject({ post: [], message: [], postCount: 0, messageCount: 0 });
  });

  it("never shows an agent a hit from a conversation they may not read", async () => {
    const a = await agent();
    const result = await search(a, parseSearch("zebracorn"));
    // own department (not a workspace chat), or a participant: not billing, not the chat, not no-department
    expect(result.post.map((p) => p.id).sort((x, y) => x - y)).toEqual([ids.support, ids.billingJoined].sort((x, y) => x - y));
    expect(result.postCount).toBe(2);
    expect(new Set(result.message.map((m) => m.ticket_id))).toEqual(new Set([ids.support, ids.billingJoined]));
    expect(result.messageCount).toBe(4);
    expect((await search(a, parseSearch(`number:${await numberOf("billing")}`))).postCount).toBe(0);
    expect((await search(a, parseSearch("contact:zed"))).contact).toHaveLength(1);
    expect((await search(a, parseSearch("100%"))).postCount).toBe(0);
  });

  it("keeps every agent hit of a broad search inside what the agent may read", async () => {
    const a = await agent();
    const { db, schema } = t.handle;
    for (const q of ["invoice", "you", "from:agent", "label:u", "contact:example.com"]) {
      const hits = new Set<number>();
      for (let page = 0; page < 4; page++) {
        const r = await search(a, parseSearch(q), { postIndex: page, messageIndex: page });
        r.post.forEach((p) => hits.add(p.id));
        r.message.forEach((m) => hits.add(m.ticket_id));
      }
      expect(hits.size, q).toBeGreaterThan(0);
      const rows = await db
        .select()
        .from(schema.tickets)
        .where(inArray(schema.tickets.id, [...hits]));
      const joined = await db
        .select({ ticketId: schema.participants.ticketId })
        .from(schema.participants)
        .where(and(eq(schema.participants.userId, a.id), inArray(schema.participants.ticketId, [...hits])));
      const participates = new Set(joined.map((j) => j.ticketId));
      for (const row of rows)
        expect(participates.has(row.id) || (row.departmentId === 2 && row.channel !== "chat"), `${q}: ticket ${row.ticketNumber}`).toBe(true);
      // and the admin, who reads everything, finds at least as many
      const all = await search(await admin(), parseSearch(q));
      expect(all.postCount).toBeGreaterThanOrEqual((await search(a, parseSearch(q))).postCount);
    }
  });
});
