import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { inboundMailFromParsed } from "./parsed-mail";
import {
  classifyAuto,
  decideThreading,
  isForwardSubject,
  normalizeMessageId,
  parseMessageIdList,
  replyAddress,
  subjectWithTicketNumber,
  threadIndexFor,
  threadIndexRoot,
  ticketNumberFromSubject,
  tokenFromAddress,
  type InboundMail,
  type StoredMessage,
  type ThreadingLookup,
  type TicketRef,
} from "./threading";

const DIR = path.resolve("tests/fixtures/email-threading");

interface FixtureTicket {
  id: number;
  number: number;
  customer: string[];
  participants: string[];
  mailbox: string;
  closed?: boolean;
  replyToken?: string;
  threadIndex?: string;
  messages: { id: string; direction: "in" | "out"; recipientCount?: number; bulk?: boolean }[];
}

interface Scenario {
  note: string;
  source: string;
  tickets: FixtureTicket[];
  agents: string[];
  mailboxes: string[];
  mail?: Partial<InboundMail> & { from: InboundMail["from"] };
  eml?: string;
  mailExtra?: { authenticated: boolean; envelopeRecipients?: string[] };
  expect: Record<string, unknown> & { reasonIncludes?: string };
}

function lookupOver(tickets: FixtureTicket[], agents: string[]): ThreadingLookup {
  const ref = (t: FixtureTicket): TicketRef => ({
    id: t.id,
    number: t.number,
    customerAddresses: t.customer,
    participantAddresses: t.participants,
    closed: t.closed,
    mailboxAddress: t.mailbox,
  });
  return {
    ticketByReplyToken: async (token) => {
      const t = tickets.find((x) => x.replyToken === token);
      return t ? ref(t) : null;
    },
    ticketsByMessageIds: async (ids) =>
      tickets.flatMap((t) =>
        t.messages
          .filter((m) => ids.includes(normalizeMessageId(m.id)))
          .map((m): StoredMessage => ({ messageId: m.id, ticket: ref(t), direction: m.direction, recipientCount: m.recipientCount, bulk: m.bulk })),
      ),
    ticketByThreadIndex: async (root) => {
      const t = tickets.find((x) => x.threadIndex && threadIndexRoot(x.threadIndex) === root);
      return t ? ref(t) : null;
    },
    ticketByNumber: async (n) => {
      const t = tickets.find((x) => String(x.number) === n);
      return t ? ref(t) : null;
    },
    isAgentAddress: async (a) => agents.includes(a.toLowerCase()),
  };
}

async function mailOf(s: Scenario): Promise<InboundMail> {
  if (s.eml) return inboundMailFromParsed(await simpleParser(readFileSync(path.join(DIR, s.eml))), s.mailExtra ?? { authenticated: true });
  const m = s.mail!;
  return {
    messageId: normalizeMessageId(m.messageId ?? ""),
    inReplyTo: m.inReplyTo ? normalizeMessageId(m.inReplyTo) : null,
    references: (m.references ?? []).map(normalizeMessageId),
    threadIndex: m.threadIndex ?? null,
    subject: m.subject ?? "",
    from: m.from,
    to: m.to ?? [],
    cc: m.cc ?? [],
    replyTo: m.replyTo ?? [],
    deliveredTo: m.deliveredTo ?? [],
    autoSubmitted: m.autoSubmitted,
    precedence: m.precedence,
    contentType: m.contentType ?? "text/plain",
    xAutoResponseSuppress: m.xAutoResponseSuppress,
    xAutoreply: m.xAutoreply,
    xAutorespond: m.xAutorespond,
    listId: m.listId,
    returnPath: m.returnPath,
    authenticated: m.authenticated ?? true,
    reportedMessageId: m.reportedMessageId ? normalizeMessageId(m.reportedMessageId) : null,
  };
}

const scenarios = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => ({ name: f.replace(/\.json$/, ""), s: JSON.parse(readFileSync(path.join(DIR, f), "utf8")) as Scenario }));

describe("threading corpus", () => {
  it("has at least 30 scenarios, each with a note", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    for (const { s } of scenarios) expect(s.note.length).toBeGreaterThan(10);
  });

  it.each(scenarios)("$name", async ({ s }) => {
    const decision = await decideThreading(await mailOf(s), lookupOver(s.tickets, s.agents), { mailboxAddresses: s.mailboxes });
    const { reasonIncludes, ...expected } = s.expect;
    expect(decision).toMatchObject(expected);
    if (expected.action === "append") expect((decision as { addParticipants: string[] }).addParticipants).toEqual(expected.addParticipants ?? []);
    if (reasonIncludes) expect(decision.action === "new" && decision.reason).toContain(reasonIncludes);
  });
});

describe("helpers", () => {
  it("normalises Message-IDs: brackets, spaces, host case (local part kept)", () => {
    expect(normalizeMessageId("  <AbC.123@Mail.Example.COM> ")).toBe("AbC.123@mail.example.com");
    expect(parseMessageIdList("<a@B.com>\r\n <c@d.com>")).toEqual(["a@b.com", "c@d.com"]);
    expect(parseMessageIdList(["<a@b>", "<c@d>"])).toEqual(["a@b", "c@d"]);
    expect(parseMessageIdList(undefined)).toEqual([]);
  });

  it("builds and reads reply addresses", () => {
    const a = replyAddress("Support <support@OmniDesk.localhost>", "Tok3n_abc");
    expect(a).toBe("reply+tok3n_abc@omnidesk.localhost");
    expect(tokenFromAddress(a)).toBe("tok3n_abc");
    expect(tokenFromAddress("<REPLY+TOK3N_ABC@omnidesk.localhost>")).toBe("tok3n_abc");
    expect(tokenFromAddress("support@omnidesk.localhost")).toBeNull();
    expect(tokenFromAddress("replyx+abcdefgh@omnidesk.localhost")).toBeNull();
    expect(tokenFromAddress("reply+ab@omnidesk.localhost")).toBeNull();
    expect(() => replyAddress("support@omnidesk.localhost", "bad token!")).toThrow();
  });

  it("tags subjects with the ticket number exactly once", () => {
    expect(subjectWithTicketNumber("My order", 100042)).toBe("[#100042] My order");
    expect(subjectWithTicketNumber("Re: [#100042] My order", 100042)).toBe("[#100042] My order");
    expect(subjectWithTicketNumber("AW: WG: Re: [#100042] Re: My order", 100042)).toBe("[#100042] My order");
    expect(subjectWithTicketNumber("RE: My order [#100042]", 100042, { reply: true })).toBe("Re: [#100042] My order");
    expect(subjectWithTicketNumber("SV: Ticket #100042 Faktura", 100042)).toBe("[#100042] Faktura");
    expect(subjectWithTicketNumber("Rif: TR: RV: Odp: 回复: Pedido", 7)).toBe("[#7] Pedido");
    expect(subjectWithTicketNumber("Re[2]: Fwd: x", 7)).toBe("[#7] x");
    expect(subjectWithTicketNumber("", 7)).toBe("[#7] (no subject)");
    // another ticket's number is kept: it is part of what the customer wrote
    expect(subjectWithTicketNumber("Re: same as [#100043]", 100042)).toBe("[#100042] same as [#100043]");
    // a word that merely starts like a prefix stays
    expect(subjectWithTicketNumber("Return policy", 1)).toBe("[#1] Return policy");
  });

  it("reads ticket numbers and forward prefixes", () => {
    expect(ticketNumberFromSubject("Re: [#100042] x")).toBe("100042");
    expect(ticketNumberFromSubject("Question about Ticket #100043")).toBe("100043");
    expect(ticketNumberFromSubject("order #12 arrived")).toBeNull();
    expect(isForwardSubject("Fwd: x")).toBe(true);
    expect(isForwardSubject("WG: AW: x")).toBe(true);
    expect(isForwardSubject("TR: x")).toBe(true);
    expect(isForwardSubject("RV: x")).toBe(true);
    expect(isForwardSubject("Re: Fwd: x")).toBe(false);
    expect(isForwardSubject("I: love it")).toBe(false);
    expect(isForwardSubject("ПЕРЕСЛ: x")).toBe(true);
    expect(isForwardSubject("Doorst: x")).toBe(true);
    expect(isForwardSubject("Forwarding address")).toBe(false);
  });

  it("recognises auto mail by each signal, and not a normal mail", () => {
    const base: InboundMail = {
      messageId: "a@b",
      references: [],
      subject: "Hello",
      from: { address: "c@example.com" },
      to: [],
      cc: [],
      replyTo: [],
      deliveredTo: [],
      authenticated: true,
    };
    expect(classifyAuto(base)).toMatchObject({ auto: false, noAutoReply: false });
    expect(classifyAuto({ ...base, autoSubmitted: "no" }).auto).toBe(false);
    expect(classifyAuto({ ...base, autoSubmitted: "auto-generated" }).auto).toBe(true);
    expect(classifyAuto({ ...base, precedence: "junk" }).auto).toBe(true);
    expect(classifyAuto({ ...base, precedence: "first-class" }).auto).toBe(false);
    expect(classifyAuto({ ...base, precedence: "list" })).toMatchObject({ auto: false, noAutoReply: true });
    expect(classifyAuto({ ...base, xAutoResponseSuppress: "DR, RN, NRN, OOF, AutoReply" }).auto).toBe(true);
    expect(classifyAuto({ ...base, xAutoResponseSuppress: "DR" }).auto).toBe(false);
    expect(classifyAuto({ ...base, contentType: "multipart/report" }).auto).toBe(true);
    expect(classifyAuto({ ...base, returnPath: "<>" }).auto).toBe(true);
    expect(classifyAuto({ ...base, returnPath: "<c@example.com>" }).auto).toBe(false);
    for (const s of [
      "Out of Office: Hello",
      "Automatische Antwort: x",
      "Respuesta automática: x",
      "Risposta automatica: x",
      "Automatisch antwoord: x",
      "Автоматический ответ: x",
      "自动回复: x",
      "Undeliverable: x",
    ])
      expect(classifyAuto({ ...base, subject: s }).auto, s).toBe(true);
    expect(classifyAuto({ ...base, subject: "Office move next week" }).auto).toBe(false);
    expect(classifyAuto({ ...base, listId: "users.lists.example.org" })).toMatchObject({ auto: false, noAutoReply: true });
  });

  it("makes Thread-Index headers Outlook accepts: 22 bytes, then 5-byte children keeping the root", () => {
    const now = new Date("2026-11-23T10:00:00Z");
    const root = threadIndexFor(undefined, now);
    const bytes = Buffer.from(root, "base64");
    expect(bytes.length).toBe(22);
    expect(bytes[0]).toBe(0x01); // FILETIME's top byte in this century
    // the 6 time bytes are the top 48 bits of the FILETIME
    const ft = (BigInt(now.getTime()) + 11644473600000n) * 10000n;
    expect(BigInt(bytes.readUIntBE(0, 6))).toBe(ft >> 16n);
    expect(threadIndexRoot(root)).toBe(root);
    const child = threadIndexFor(root, new Date(now.getTime() + 60_000));
    expect(Buffer.from(child, "base64").length).toBe(27);
    expect(threadIndexRoot(child)).toBe(root);
    const grandchild = threadIndexFor(child, new Date(now.getTime() + 120_000));
    expect(Buffer.from(grandchild, "base64").length).toBe(32);
    expect(threadIndexRoot(grandchild)).toBe(root);
    // one minute later: code bit 0 and delta >> 18
    const block = Buffer.from(child, "base64").readUInt32BE(22);
    expect(block >>> 31).toBe(0);
    expect(block).toBe(Number((60_000n * 10000n) >> 18n));
    // two new conversations differ in their GUID
    expect(threadIndexFor(undefined, now)).not.toBe(root);
    // an invalid parent starts a new conversation
    expect(Buffer.from(threadIndexFor("junk", now), "base64").length).toBe(22);
    expect(threadIndexRoot("AQ==")).toBeNull();
    expect(threadIndexRoot(Buffer.alloc(25).toString("base64"))).toBeNull();
  });
});

describe("bad input", () => {
  const ticket: TicketRef = {
    id: 1,
    number: 100001,
    customerAddresses: ["c@example.com"],
    participantAddresses: [],
    mailboxAddress: "support@omnidesk.localhost",
  };
  const mail = (over: Partial<InboundMail>): InboundMail => ({
    messageId: "m@example.com",
    references: [],
    subject: "Re: x",
    from: { address: "c@example.com" },
    to: [{ address: "support@omnidesk.localhost" }],
    cc: [],
    replyTo: [],
    deliveredTo: [],
    authenticated: true,
    ...over,
  });

  it("bounds the lookups of a mail with 10,000 references and 10,000 reply+ recipients", async () => {
    const calls = { ids: 0, tokens: 0, agents: 0 };
    const lookup: ThreadingLookup = {
      ticketByReplyToken: async () => (calls.tokens++, null),
      ticketsByMessageIds: async (ids) => {
        calls.ids = Math.max(calls.ids, ids.length);
        return ids.includes("ref-9999@example.com") ? [{ messageId: "ref-9999@example.com", ticket, direction: "out", recipientCount: 1 }] : [];
      },
      ticketByThreadIndex: async () => null,
      ticketByNumber: async () => null,
      isAgentAddress: async () => (calls.agents++, false),
    };
    const references = Array.from({ length: 10_000 }, (_, i) => `ref-${i}@example.com`);
    const to = Array.from({ length: 10_000 }, (_, i) => ({ address: `reply+token${String(i).padStart(5, "0")}@omnidesk.localhost` }));
    const cc = Array.from({ length: 10_000 }, (_, i) => ({ address: `cc${i}@example.com` }));
    const d = await decideThreading(mail({ references, to, cc }), lookup, { mailboxAddresses: ["support@omnidesk.localhost"] });
    expect(d).toMatchObject({ action: "append", ticketId: 1, matchedBy: "message-id" });
    expect(d.action === "append" && d.addParticipants.length).toBe(20);
    expect(calls.tokens).toBeLessThanOrEqual(5);
    expect(calls.ids).toBeLessThanOrEqual(200);
    expect(calls.agents).toBeLessThanOrEqual(201);
  });

  it("survives empty and odd headers", async () => {
    const lookup: ThreadingLookup = {
      ticketByReplyToken: async () => null,
      ticketsByMessageIds: async () => [],
      ticketByThreadIndex: async () => null,
      ticketByNumber: async () => null,
      isAgentAddress: async () => false,
    };
    const d = await decideThreading(mail({ messageId: "", from: { address: "" }, subject: "", to: [], inReplyTo: "<>", threadIndex: "====" }), lookup, {
      mailboxAddresses: [],
    });
    expect(d.action).toBe("new");
  });
});

describe("inboundMailFromParsed", () => {
  const parse = async (raw: string | Buffer, authenticated = true) =>
    inboundMailFromParsed(await simpleParser(raw), { authenticated, envelopeRecipients: ["Env@Omnidesk.localhost"] });

  it("reads the DSN's original Message-ID, Return-Path <> and multipart/report", async () => {
    const m = await parse(readFileSync(path.join(DIR, "bounce-dsn.eml")));
    expect(m).toMatchObject({
      returnPath: "<>",
      contentType: "multipart/report",
      reportedMessageId: "out-42-1@omnidesk.localhost",
      autoSubmitted: "auto-replied",
    });
    expect(m.from.address).toBe("mailer-daemon@mx.example.com");
  });

  it("reads List-Id, Precedence and every Delivered-To plus the envelope", async () => {
    const m = await parse(readFileSync(path.join(DIR, "mailing-list-copy.eml")));
    expect(m).toMatchObject({ listId: "users.lists.example.org", precedence: "list", returnPath: null });
    expect(m.deliveredTo).toEqual(["support@omnidesk.localhost", "env@omnidesk.localhost"]);
    const two = await parse(
      "Delivered-To: a@x.com\r\nDelivered-To: reply+abcdefgh@x.com\r\nX-Original-To: b@x.com\r\nFrom: x@y.z\r\nSubject: s\r\n\r\nbody\r\n",
    );
    expect(two.deliveredTo).toEqual(["a@x.com", "reply+abcdefgh@x.com", "b@x.com", "env@omnidesk.localhost"]);
  });

  it("normalises ids, decodes encoded subjects and keeps the Thread-Index", async () => {
    const m = await parse(readFileSync(path.join(DIR, "outlook-rewrote-in-reply-to.eml")));
    expect(m.messageId).toBe("AM0PR10MB1234ABCD@am0pr10mb1234.eurprd10.prod.outlook.com");
    expect(m.references).toEqual(["cust-original-42@mail.example.com", "out-42-1@omnidesk.localhost", "DB9PR01MB5555@db9pr01mb5555.eurprd01.prod.outlook.com"]);
    expect((await parse(readFileSync(path.join(DIR, "german-aw-encoded-subject.eml")))).subject).toBe("AW: [#100042] Bestellung überfällig");
    expect(threadIndexRoot((await parse(readFileSync(path.join(DIR, "thread-index-only.eml")))).threadIndex)).not.toBeNull();
  });

  it("does not throw on malformed headers", async () => {
    const m = await parse("From: <<<\r\nTo: ,,,\r\nMessage-ID: not an id\r\nReferences: <a@b> garbage <c@D>\r\nSubject: =?x-unknown?Q?abc?=\r\n\r\n");
    expect(m.references).toEqual(expect.arrayContaining(["a@b", "c@d"]));
    expect(m.messageId).toBe("not an id");
    expect(m.from.address).toBeTypeOf("string");
  });
});
