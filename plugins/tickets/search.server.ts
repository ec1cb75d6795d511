// Global search (spec sections 3, 5, 7, 9): a small query language, two paged hit lists
// (conversations and messages, 6 per page), contact hits and label suggestions.
//
// Query language: free text plus key:value tokens, keys contact, from, label, number, message;
// values may be quoted ("two words"). A key that is not one of these is plain text ("10:30").
//   text     ticket title, or the body of any of its messages (each term on its own)
//   contact  the ticket's contact name or email
//   from     a message sender: the user's username or name, or on customer messages the contact
//   label    the ticket carries a label whose name contains the value
//   number   the ticket number (exact; "#100005" works too)
//   message  the body of one of its messages
// Conversations must satisfy every token. Message hits are messages whose own body matches every
// text and message: token and whose sender matches every from: token, in a conversation matching
// every contact:, label: and number: token; a query with only conversation-level tokens lists no
// message hits (it would list every message of those conversations). A contact: token also
// lists the contacts (by email, 6 at most) of the conversations found, linking to /contacts/{uid}.
//
// Every value is matched literally: it is a bound parameter, and LIKE's wildcards % _ and the
// escape character \ are escaped under an explicit ESCAPE clause. Matching is case-insensitive
// (LIKE on SQLite, which folds ASCII only; ILIKE on PostgreSQL).
//
// Cost: LIKE '%x%' cannot use an index, so each search scans. It stays bounded: pages are
// LIMIT 7 (6 shown, one to know whether there is a next page), counts stop at COUNT_CAP hits
// ("1000+"), conversations are read in updated_at order (indexed) and messages in id order
// (the primary key), so a common word stops early. A full-text index (SQLite FTS5, PostgreSQL
// tsvector/pg_trgm) is the next step when the scans get slow.
import { and, asc, count, desc, eq, exists, inArray, isNull, ne, or, sql, type AnyColumn, type SQL, type Subquery } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { conversationPath } from "~/conversation/channels";
import { readableBy, type Reader } from "~/conversation/access.server";

export const SEARCH_KEYS = ["contact", "from", "label", "number", "message"] as const;
export type SearchKey = (typeof SEARCH_KEYS)[number];
export interface SearchToken {
  key: "text" | SearchKey;
  value: string;
}

export const SEARCH_PAGE_SIZE = 6;
export const COUNT_CAP = 1000;
export const MAX_QUERY_LENGTH = 500;
export const MAX_TOKENS = 12;
export const MAX_PAGE_INDEX = 9999;
const LABEL_SUGGESTIONS = 10;
const EXCERPT_LENGTH = 160;
const MAX_TICKET_NUMBER = 2_147_483_647; // integer column on PostgreSQL

const isKey = (k: string): k is SearchKey => (SEARCH_KEYS as readonly string[]).includes(k);

/**
 * Splits a search text into tokens. Pure: no database. Double quotes group words (an unclosed
 * quote runs to the end); key:value with a known key (any case) becomes that key; anything else,
 * unknown keys included, is text. Empty text tokens are dropped; a key with an empty value is kept
 * (a bare "label:" asks for label suggestions).
 */
export function parseSearch(input: string): SearchToken[] {
  const text = input.slice(0, MAX_QUERY_LENGTH);
  const tokens: SearchToken[] = [];
  let i = 0;
  while (i < text.length && tokens.length < MAX_TOKENS) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    let prefix = "";
    let key: SearchToken["key"] = "text";
    const keyMatch = /^([^\s:"]+):/.exec(text.slice(i));
    if (keyMatch) {
      const name = keyMatch[1]!.toLowerCase();
      if (isKey(name)) key = name;
      else prefix = keyMatch[0];
      i += keyMatch[0].length;
    }
    let value: string;
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      value = end < 0 ? text.slice(i + 1) : text.slice(i + 1, end);
      i = end < 0 ? text.length : end + 1;
    } else {
      let j = i;
      while (j < text.length && !/\s/.test(text[j]!)) j++;
      value = text.slice(i, j);
      i = j;
    }
    value = (prefix + value.trim()).trim();
    if (key === "text" && !value) continue;
    tokens.push({ key, value });
  }
  return tokens;
}

const quote = (value: string) => {
  const clean = value.replace(/"/g, "");
  return /[\s:]/.test(clean) || clean === "" ? `"${clean}"` : clean;
};

/** Tokens back to a search text that parses to the same tokens (double quotes inside values are dropped). */
export function formatSearch(tokens: SearchToken[]): string {
  return tokens.map((t) => (t.key === "text" ? quote(t.value) : `${t.key}:${quote(t.value)}`)).join(" ");
}

/**
 * GET /api/search/data parameters as tokens. `entity` is the search text itself (free text and
 * key:value tokens, parsed like the search box); the other parameters add one literal token each:
 * ticket -> number:, label -> label:, username -> from:, message -> message:.
 */
export function tokensFromApi(params: URLSearchParams): SearchToken[] {
  const tokens = parseSearch(params.get("entity") ?? "");
  const extra: [string, SearchKey][] = [
    ["ticket", "number"],
    ["label", "label"],
    ["username", "from"],
    ["message", "message"],
  ];
  for (const [param, key] of extra) {
    const value = (params.get(param) ?? "").trim().slice(0, MAX_QUERY_LENGTH);
    if (value) tokens.push({ key, value });
  }
  return tokens;
}

/** A 0-based page index from the query string; anything odd is page 0. */
export const pageIndex = (raw: string | null) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_PAGE_INDEX)
    .catch(0)
    .parse(raw ?? 0);

/** LIKE pattern for "contains value", with % _ and \ matched literally (ESCAPE '\'). */
export function containsPattern(value: string) {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive "column contains value"; the value is always a bound parameter. */
function contains(column: AnyColumn | SQL, value: string): SQL {
  const op = getDb().dialect === "pg" ? sql.raw("ILIKE") : sql.raw("LIKE");
  return sql`${column} ${op} ${containsPattern(value)} ESCAPE '\\'`;
}

const never = () => sql`1 = 0`;

function ticketNumberOf(value: string): number | undefined {
  const digits = value.replace(/^#/, "");
  if (!/^\d{1,10}$/.test(digits)) return undefined;
  const n = Number(digits);
  return n <= MAX_TICKET_NUMBER ? n : undefined;
}

/** Conditions on `messages` saying its sender matches `value`. */
function senderMatches(value: string): SQL {
  const { db, schema } = getDb();
  const m = schema.messages;
  const u = schema.users;
  const t = schema.tickets;
  return or(
    inArray(
      m.senderUserId,
      db
        .select({ id: u.id })
        .from(u)
        .where(or(contains(u.username, value), contains(u.name, value))),
    ),
    and(isNull(m.senderUserId), or(contains(m.senderName, value), and(eq(m.senderName, ""), contains(t.contactName, value)))),
  )!;
}

interface Plan {
  /** Conditions on `tickets` for the conversation list. */
  ticket: SQL[];
  /** Conditions on the joined `tickets` for the message list. */
  messageTicket: SQL[];
  /** Conditions on `messages` for the message list (none: no message hits). */
  message: SQL[];
  /** Whether a contact: token asks for contact hits (the contacts of the conversations found). */
  contact: boolean;
  /** Free-text and message: values, for excerpts and highlighting. */
  terms: string[];
}

function plan(tokens: SearchToken[]): Plan {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const m = schema.messages;
  const out: Plan = { ticket: [], messageTicket: [], message: [], contact: false, terms: [] };
  // system messages hold JSON describing an event, not words anyone wrote
  const anyMessage = (condition: SQL) =>
    exists(
      db
        .select({ one: sql`1` })
        .from(m)
        .where(and(eq(m.ticketId, t.id), ne(m.type, "system"), condition)),
    );
  for (const { key, value } of tokens) {
    if (!value) continue;
    switch (key) {
      case "text":
        out.terms.push(value);
        out.ticket.push(or(contains(t.title, value), anyMessage(contains(m.body, value)))!);
        out.message.push(contains(m.body, value));
        break;
      case "message":
        out.terms.push(value);
        out.ticket.push(anyMessage(contains(m.body, value)));
        out.message.push(contains(m.body, value));
        break;
      case "from":
        out.ticket.push(anyMessage(senderMatches(value)));
        out.message.push(senderMatches(value));
        break;
      case "contact": {
        const c = or(contains(t.contactName, value), contains(t.contactEmail, value))!;
        out.contact = true;
        out.ticket.push(c);
        out.messageTicket.push(c);
        break;
      }
      case "label": {
        const tl = schema.ticketLabels;
        const l = schema.labels;
        const c = exists(
          db
            .select({ one: sql`1` })
            .from(tl)
            .innerJoin(l, eq(l.id, tl.labelId))
            .where(and(eq(tl.ticketId, t.id), contains(l.name, value))),
        );
        out.ticket.push(c);
        out.messageTicket.push(c);
        break;
      }
      case "number": {
        const n = ticketNumberOf(value);
        const c = n === undefined ? never() : eq(t.ticketNumber, n);
        out.ticket.push(c);
        out.messageTicket.push(c);
        break;
      }
    }
  }
  return out;
}

export interface PostHit {
  id: number;
  channel: string;
  ticket_number: number;
  title: string;
  /** The conversation's last message (a search hit carries a message, spec section 3). */
  message: string;
  contact_name: string;
  contact_email: string;
  status: number;
  updated_at: number;
  link: string;
}

export interface MessageHit {
  id: number;
  ticket_id: number;
  channel: string;
  ticket_number: number;
  title: string;
  message: string;
  sender: string;
  ts: number;
  link: string;
}

export interface ContactHit {
  uid: string;
  name: string;
  email: string;
  link: string;
}

export interface LabelSuggestion {
  id: number;
  name: string;
  color: string;
  /** The search text with the label: token set to this label. */
  query: string;
}

export interface SearchResult {
  post: PostHit[];
  message: MessageHit[];
  contact: ContactHit[];
  labels: LabelSuggestion[];
  postCount: number;
  postCountCapped: boolean;
  messageCount: number;
  messageCountCapped: boolean;
  postMore: boolean;
  messageMore: boolean;
  search_index: number;
  search_message_index: number;
  terms: string[];
}

/** The contact page of an email: /contacts/{uid}, uid the URL-encoded email. */
export const contactPath = (email: string) => `/contacts/${encodeURIComponent(email)}`;

/** A short plain-text window of a message body around the first matching term. */
export function excerpt(body: string, type: string, terms: string[], length = EXCERPT_LENGTH): string {
  let text = body;
  if (type === "text/html")
    text = text
      .replace(/<(script|style)[^]*?<\/\1>/gi, " ")
      .replace(/<[^>]*>/g, " ")
      .replace(/&nbsp;/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, "&");
  text = text.replace(/\s+/g, " ").trim();
  if (text.length <= length) return text;
  const lower = text.toLowerCase();
  const at =
    terms
      .map((term) => lower.indexOf(term.toLowerCase()))
      .filter((i) => i >= 0)
      .sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, Math.min(at - Math.floor(length / 3), text.length - length));
  const end = Math.min(text.length, start + length);
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}

/** Counts the rows of `hits` (a query limited to cap + 1 rows): more than cap reads as cap, capped. */
async function cappedCount(hits: Subquery, cap: number) {
  const { db } = getDb();
  const [{ n }] = await db.select({ n: count() }).from(hits);
  const total = Number(n);
  return { count: Math.min(total, cap), capped: total > cap };
}

export interface SearchOptions {
  postIndex?: number;
  messageIndex?: number;
  /** Counts stop here (tests lower it). */
  countCap?: number;
}

const EMPTY: Omit<SearchResult, "labels" | "search_index" | "search_message_index"> = {
  post: [],
  message: [],
  contact: [],
  postCount: 0,
  postCountCapped: false,
  messageCount: 0,
  messageCountCapped: false,
  postMore: false,
  messageMore: false,
  terms: [],
};

/** Runs a search for `reader`: only conversations they may read (readableBy) ever appear. */
export async function search(reader: Reader, tokens: SearchToken[], opts: SearchOptions = {}): Promise<SearchResult> {
  const postIndex = Math.min(Math.max(0, Math.floor(opts.postIndex ?? 0)), MAX_PAGE_INDEX);
  const messageIndex = Math.min(Math.max(0, Math.floor(opts.messageIndex ?? 0)), MAX_PAGE_INDEX);
  const cap = opts.countCap ?? COUNT_CAP;
  const labels = await suggestLabels(tokens);
  const p = plan(tokens);
  const base = { labels, search_index: postIndex, search_message_index: messageIndex };
  if (p.ticket.length === 0) return { ...EMPTY, ...base };

  const { db, schema } = getDb();
  const t = schema.tickets;
  const m = schema.messages;
  const readable = readableBy(reader);
  const ticketWhere = and(readable, ...p.ticket);
  const messageWhere = p.message.length ? and(readable, ne(m.type, "system"), ...p.messageTicket, ...p.message) : undefined;

  const postRows = db
    .select({
      id: t.id,
      channel: t.channel,
      kind: t.kind,
      ticketNumber: t.ticketNumber,
      title: t.title,
      lastMessage: t.lastMessage,
      contactName: t.contactName,
      contactEmail: t.contactEmail,
      status: t.status,
      updatedAt: t.updatedAt,
    })
    .from(t)
    .where(ticketWhere)
    .orderBy(desc(t.updatedAt), desc(t.id))
    .limit(SEARCH_PAGE_SIZE + 1)
    .offset(postIndex * SEARCH_PAGE_SIZE);
  const postTotal = cappedCount(
    db
      .select({ one: sql<number>`1`.as("one") })
      .from(t)
      .where(ticketWhere)
      .limit(cap + 1)
      .as("hits"),
    cap,
  );

  const messageRows = messageWhere
    ? db
        .select({
          id: m.id,
          ticketId: m.ticketId,
          type: m.type,
          body: m.body,
          senderName: m.senderName,
          senderUser: schema.users.name,
          createdAt: m.createdAt,
          channel: t.channel,
          kind: t.kind,
          ticketNumber: t.ticketNumber,
          title: t.title,
          contactName: t.contactName,
        })
        .from(m)
        .innerJoin(t, eq(t.id, m.ticketId))
        .leftJoin(schema.users, eq(schema.users.id, m.senderUserId))
        .where(messageWhere)
        .orderBy(desc(m.id))
        .limit(SEARCH_PAGE_SIZE + 1)
        .offset(messageIndex * SEARCH_PAGE_SIZE)
    : Promise.resolve([]);
  const messageTotal = messageWhere
    ? cappedCount(
        db
          .select({ one: sql<number>`1`.as("one") })
          .from(m)
          .innerJoin(t, eq(t.id, m.ticketId))
          .where(messageWhere)
          .limit(cap + 1)
          .as("hits"),
        cap,
      )
    : Promise.resolve({ count: 0, capped: false });

  const contactRows = p.contact
    ? db
        .select({ email: t.contactEmail, name: sql<string>`min(${t.contactName})` })
        .from(t)
        .where(and(ticketWhere, sql`${t.contactEmail} <> ''`))
        .groupBy(t.contactEmail)
        .orderBy(asc(t.contactEmail))
        .limit(SEARCH_PAGE_SIZE)
    : Promise.resolve([]);

  const [posts, postCount, messages, messageCount, contacts] = await Promise.all([postRows, postTotal, messageRows, messageTotal, contactRows]);
  return {
    ...base,
    post: posts.slice(0, SEARCH_PAGE_SIZE).map((r) => ({
      id: r.id,
      channel: r.channel,
      ticket_number: r.ticketNumber,
      title: r.title,
      message: r.lastMessage,
      contact_name: r.contactName,
      contact_email: r.contactEmail,
      status: r.status,
      updated_at: Number(r.updatedAt),
      link: conversationPath(r.kind, r.ticketNumber),
    })),
    message: messages.slice(0, SEARCH_PAGE_SIZE).map((r) => ({
      id: r.id,
      ticket_id: r.ticketId,
      channel: r.channel,
      ticket_number: r.ticketNumber,
      title: r.title,
      message: excerpt(r.body, r.type, p.terms),
      sender: r.senderUser ?? (r.senderName || r.contactName),
      ts: Number(r.createdAt),
      link: `${conversationPath(r.kind, r.ticketNumber)}?message_id=${r.id}`,
    })),
    contact: contacts.map((c) => ({ uid: encodeURIComponent(c.email), name: c.name, email: c.email, link: contactPath(c.email) })),
    postCount: postCount.count,
    postCountCapped: postCount.capped,
    messageCount: messageCount.count,
    messageCountCapped: messageCount.capped,
    postMore: posts.length > SEARCH_PAGE_SIZE,
    messageMore: messages.length > SEARCH_PAGE_SIZE,
    terms: p.terms,
  };
}

/**
 * When the last token is label:, labels whose names contain its value but are not equal to it
 * (case-insensitive), each with the search text that runs it.
 */
export async function suggestLabels(tokens: SearchToken[]): Promise<LabelSuggestion[]> {
  const last = tokens[tokens.length - 1];
  if (!last || last.key !== "label") return [];
  const { db, schema } = getDb();
  const l = schema.labels;
  const rows = await db
    .select({ id: l.id, name: l.name, color: l.color })
    .from(l)
    .where(last.value ? contains(l.name, last.value) : undefined)
    .orderBy(asc(l.name), asc(l.id))
    .limit(LABEL_SUGGESTIONS + 1);
  const wanted = last.value.toLowerCase();
  return rows
    .filter((r) => r.name.toLowerCase() !== wanted && r.name.toLowerCase().includes(wanted))
    .slice(0, LABEL_SUGGESTIONS)
    .map((r) => ({ ...r, query: formatSearch([...tokens.slice(0, -1), { key: "label", value: r.name }]) }));
}
