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
// Every value is matched literally (a substring, case-insensitive): full-text expressions quote
// it as one phrase, LIKE patterns escape % _ and \ under an explicit ESCAPE clause, and it is
// always a bound parameter.
//
// Indexes (migration 0014_search): SQLite FTS5 trigram tables ticket_search (title, contact
// name, email, phone) and message_search (bodies; not system or encrypted messages, not the
// quoted history), kept by triggers; PostgreSQL pg_trgm GIN indexes on the same columns plus a
// GIN index of non-ASCII character pairs for 2-character Chinese, Japanese and Korean words.
// Terms of 1-2 characters on SQLite are found through the index's vocabulary (every indexed text
// ends in two spaces, so each short substring starts some trigram); when that is too broad, or
// for short ASCII terms on PostgreSQL, a LIKE scan that stops at the count cap.
// PostgreSQL reads a common value's newest messages first instead (its GIN indexes collect every
// match before a LIMIT applies): span by span, checked one by one, or for Chinese, Japanese and
// Korean words through an index of character pairs keyed by id block (migration 0016_search_speed).
//
// Each list is the newest COUNT_CAP + 1 readable hits (the access check is in that query, before
// any limit), ranked: messages by BM25 (SQLite, over the candidates) or ts_rank (PostgreSQL), conversations by the
// terms their title holds, then newest first. The count and the page of 6 come from that set.
import { and, asc, desc, eq, exists, inArray, isNull, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb, rows } from "@db/client";
import { conversationPath } from "~/conversation/channels";
import { readableBy, type Reader } from "~/conversation/access.server";
import { ENCRYPTED_MESSAGE_TYPE } from "~/conversation/constants";
import { highlightHtml } from "./highlight";
import { searchHits, type SearchHitSection } from "~/search-hits.server";
import type { Viewer } from "~/permissions";
import { englishText } from "~/api.server";

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

/** Message types the index leaves out: system events (JSON) and encrypted messages. Migration 0014_search repeats the list. */
export const UNINDEXED_MESSAGE_TYPES = ["system", ENCRYPTED_MESSAGE_TYPE] as const;
// literal, so PostgreSQL sees the partial indexes' own predicate
const UNINDEXED = sql.raw(UNINDEXED_MESSAGE_TYPES.map((type) => `'${type}'`).join(", "));
/** A term found in at least this many messages is common: conversations are then checked one by one, newest first. */
const COMMON = 2000;
/** SQLite: a common value's fast variant reads this many of its newest index hits. */
const RECENT = 5_000;
/** A 1-2 character term starting more distinct trigrams than this is scanned instead. */
const SHORT_TERMS = 64;

const chars = (value: string) => [...value].length;
const phrase = (value: string) => `"${value.replace(/"/g, '""')}"`;
const ftsColumns = { title: "{title}", contact: "{contact_name contact_email contact_phone}", body: "" } as const;
type Target = keyof typeof ftsColumns;

function ticketNumberOf(value: string): number | undefined {
  const digits = value.replace(/^#/, "");
  if (!/^\d{1,10}$/.test(digits)) return undefined;
  const n = Number(digits);
  return n <= MAX_TICKET_NUMBER ? n : undefined;
}

/**
 * SQLite: the FTS5 expression finding `value` in the index (a quoted phrase; for 1-2 characters,
 * the indexed trigrams it starts). null: nothing can match; undefined: too broad, scan instead.
 */
async function ftsExpression(target: Target, value: string): Promise<string | null | undefined> {
  let expression: string;
  if (chars(value) >= 3) expression = phrase(value);
  else {
    const vocab = sql.identifier(target === "body" ? "message_search_vocab" : "ticket_search_vocab");
    const v = value.toLowerCase();
    const terms = await rows<{ term: string }>(sql`SELECT term FROM ${vocab} WHERE term >= ${v} AND term < ${`${v}\u{10FFFF}`} LIMIT ${SHORT_TERMS + 1}`);
    if (terms.length > SHORT_TERMS) return undefined;
    if (terms.length === 0) return null;
    expression = `(${terms.map((t) => phrase(t.term)).join(" OR ")})`;
  }
  return ftsColumns[target] ? `${ftsColumns[target]} : ${expression}` : expression;
}

/** PostgreSQL: the newest rows read to tell a common value from a rare one (1% of them is 40 hits: a steady enough share). */
const PG_PROBE = 4_000;
/** PostgreSQL: a value found in at least this share of the newest rows is common: walked newest first, not read through its index. */
const PG_COMMON_SHARE = 0.01;
/** PostgreSQL: the most messages a newest-first walk reads one by one; older ones are found through the index. */
const PG_WALK = 300_000;
/** PostgreSQL: messages per id block of the search_bigrams_at index (migration 0016_search_speed). */
const PG_BLOCK = 65_536;

/** PostgreSQL: the first non-ASCII character pair of `value`, as search_bigrams indexes it; a caseless value only (JavaScript's and PostgreSQL's lower() agree there). */
function firstBigram(value: string): string | undefined {
  const run = caseless(value) ? /[^\x01-\x7f]{2,}/u.exec(value)?.[0] : undefined;
  return run ? [...run].slice(0, 2).join("") : undefined;
}

/** PostgreSQL: id above `lo`, as a filter: with the block keys, the primary key's range would only add work. */
const idAbove = (lo: number) => sql`${getDb().schema.messages.id} + 0 > ${lo}`;

/**
 * PostgreSQL: messages with id in (lo, hi] holding `bigram`, through the id-blocked index: only the
 * posting lists of those blocks are read.
 */
function inBlocks(bigram: string, lo: number, hi: number): SQL {
  const m = getDb().schema.messages;
  const keys: SQL[] = [];
  for (let b = Math.floor((lo + 1) / PG_BLOCK); b <= Math.floor(hi / PG_BLOCK); b++) keys.push(sql`${`${b}:${bigram}`}`);
  return sql`search_bigrams_at(${m.id}, ${m.body}) && ARRAY[${sql.join(keys, sql`, `)}]::text[]`;
}

/** PostgreSQL: a value without letter case (Chinese, Japanese, Korean, digits) is found case-sensitively, without lowering every text. */
const caseless = (value: string) => value === value.toLowerCase() && value === value.toUpperCase() && !/\p{M}/u.test(value);

/**
 * PostgreSQL: `column` contains `value` as ILIKE '%value%' would say (ILIKE compares lower() of
 * both), in a form no index serves: for checking rows one by one on a newest-first walk, where
 * the trigram index would first collect every match of a common value.
 */
function pgPlain(column: AnyColumn, value: string): SQL {
  return caseless(value) ? sql`strpos(${column}, ${value}) > 0` : sql`strpos(lower(${column}), lower(${value})) > 0`;
}

/** PostgreSQL: the newest id of tickets or messages and the share of the newest (up to PG_PROBE) rows meeting `condition`. */
async function pgProbe(table: "tickets" | "messages", condition: SQL): Promise<{ max: number; share: number }> {
  const { schema } = getDb();
  const tb = table === "tickets" ? schema.tickets : schema.messages;
  const [top] = await rows<{ max: number | string | null }>(sql`SELECT max(${tb.id}) AS max FROM ${tb}`);
  const max = Number(top?.max ?? 0);
  // a bounded range: the primary key reads just these rows
  const [row] = await rows<{ n: number | string; of: number | string }>(
    sql`SELECT count(*) FILTER (WHERE ${condition}) AS n, count(*) AS of FROM ${tb} WHERE ${tb.id} > ${max - PG_PROBE}`,
  );
  return { max, share: Number(row?.n ?? 0) / Math.max(1, Number(row?.of ?? 0)) };
}

/** PostgreSQL: a 2-character term outside ASCII, served by the search_bigrams index. */
const isBigram = (value: string) => /^[^\x01-\x7f]{2}$/u.test(value);

/** PostgreSQL: `column` contains `value`, through its trigram index (or, for 2 non-ASCII characters, its bigram index). */
function pgContains(column: AnyColumn, value: string): SQL {
  // the pair's own check in a form no index serves: with ILIKE the planner may pick the trigram
  // index, which for 2 characters holds no trigram to look up and so returns every row
  if (isBigram(value)) return sql`(search_bigrams(${column}) @> ARRAY[${value.toLowerCase()}]::text[] AND ${pgPlain(column, value)})`;
  return contains(column, value);
}

/**
 * How conversations holding `value` in some field are found: `set` selects their ids through an
 * index and `probe` reads at most COMMON index entries; `row` checks one conversation.
 */
interface Finder {
  set?: SQL;
  probe?: SQL;
  row: SQL;
  none?: boolean;
  /** The conversations of the newest hits (SQLite: RECENT index hits; PostgreSQL: a walk of the newest messages), see anyOf. */
  recent?: SQL;
  /** PostgreSQL: whether the value is common, from pgProbe (instead of probing the index). */
  common?: boolean;
  /** PostgreSQL: a common value's row check, cheap enough for the fast variant (a ticket's own fields). */
  fastRow?: SQL;
}

/** Conversations whose title, or contact (name, email, phone), contains `value`. */
async function fieldFinder(target: "title" | "contact", value: string): Promise<Finder> {
  const t = getDb().schema.tickets;
  const columns = target === "title" ? [t.title] : [t.contactName, t.contactEmail, t.contactPhone];
  const row = or(...columns.map((c) => contains(c, value)))!;
  if (getDb().dialect === "pg") {
    const set = sql`SELECT ${t.id} FROM ${t} WHERE ${or(...columns.map((c) => pgContains(c, value)))}`;
    const plain = or(...columns.map((c) => pgPlain(c, value)))!;
    const { share } = await pgProbe("tickets", plain);
    return share >= PG_COMMON_SHARE ? { row, fastRow: plain, common: true } : { set, row, common: false };
  }
  const expression = await ftsExpression(target, value);
  if (expression === null) return { row, none: true };
  if (expression === undefined) return { row };
  const set = sql`SELECT rowid FROM ticket_search WHERE ticket_search MATCH ${expression}`;
  // wrapped: a UNION member cannot have its own ORDER BY
  const recent = sql`SELECT id FROM (SELECT rowid AS id FROM ticket_search WHERE ticket_search MATCH ${expression} ORDER BY rowid DESC LIMIT ${RECENT})`;
  return { set, probe: set, row, recent };
}

/** PostgreSQL: a common body value, checked message by message on a walk of the newest ones. */
interface PgWalk {
  /** The newest message id and the value's share of the newest PG_PROBE messages. */
  max: number;
  share: number;
  plain: SQL;
  /** The value's first non-ASCII pair: its newest matches come from the id-blocked index (inBlocks). */
  bigram?: string;
}

/**
 * A message body condition for `value`: the FTS expression (SQLite, when the index serves it) or
 * a condition on `messages` (PostgreSQL: through the index, and `walk` when the value is common).
 */
async function bodyMatch(value: string): Promise<{ fts?: string; condition?: SQL; none?: boolean; walk?: PgWalk }> {
  const m = getDb().schema.messages;
  if (getDb().dialect === "pg") {
    const plain = pgPlain(m.body, value);
    const { max, share } = await pgProbe("messages", sql`${m.type} NOT IN (${UNINDEXED}) AND ${plain}`);
    return { condition: pgContains(m.body, value), walk: share >= PG_COMMON_SHARE ? { max, share, plain, bigram: firstBigram(value) } : undefined };
  }
  const expression = await ftsExpression("body", value);
  if (expression === null) return { none: true };
  if (expression === undefined) return { condition: contains(m.body, value) };
  return { fts: expression };
}

/** Conversations with an indexed message containing `value`. */
async function messageFinder(value: string, body: ReturnType<typeof bodyMatch>): Promise<Finder> {
  const { schema } = getDb();
  const t = schema.tickets;
  const m = schema.messages;
  const indexed = sql`${m.type} NOT IN (${UNINDEXED})`;
  // a scalar subquery, not EXISTS: PostgreSQL would turn EXISTS into one hashed set of every match
  const row = sql`(SELECT 1 FROM ${m} WHERE ${m.ticketId} = ${t.id} AND ${indexed} AND ${contains(m.body, value)} LIMIT 1) = 1`;
  const match = await body;
  if (match.none) return { row, none: true };
  if (match.fts) {
    const inIndex = sql`SELECT rowid FROM message_search WHERE message_search MATCH ${match.fts}`;
    const newest = sql`SELECT rowid FROM message_search WHERE message_search MATCH ${match.fts} ORDER BY rowid DESC LIMIT ${RECENT}`;
    return {
      set: sql`SELECT ${m.ticketId} FROM ${m} WHERE ${m.id} IN (${inIndex})`,
      probe: inIndex,
      row,
      recent: sql`SELECT ${m.ticketId} FROM ${m} WHERE ${m.id} IN (${newest})`,
    };
  }
  if (getDb().dialect === "pg") {
    if (!match.walk) return { set: sql`SELECT ${m.ticketId} FROM ${m} WHERE ${indexed} AND ${match.condition}`, row, common: false };
    // the newest messages expected to hold the capped list when a quarter of their conversations are readable
    const { max, share, plain, bigram } = match.walk;
    const lo = max - Math.min(PG_WALK, Math.ceil((4 * (COUNT_CAP + 1)) / share));
    const recent = bigram
      ? sql`SELECT ${m.ticketId} FROM ${m} WHERE ${idAbove(lo)} AND ${indexed} AND ${plain} AND ${inBlocks(bigram, lo, max)}`
      : sql`SELECT ${m.ticketId} FROM ${m} WHERE ${m.id} > ${lo} AND ${indexed} AND ${plain}`;
    return { row, common: true, recent };
  }
  return { row };
}

/** Whether the probe finds at least COMMON entries. */
async function isCommon(probe: SQL) {
  const [row] = await rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM (${probe} LIMIT ${COMMON}) AS probe`);
  return Number(row?.n ?? 0) >= COMMON;
}

/**
 * Conditions on `tickets`: some finder matches. Rare values read their indexes once (one set of
 * conversations); common ones are checked conversation by conversation, newest first, which
 * stops at the page's limit. A common value also gets a fast variant: the conversations of its
 * newest hits (SQLite: RECENT index hits; PostgreSQL: the messages of a newest-first span sized
 * by the value's share), as the newest conversations hold the newest messages; search() uses it
 * when it fills the capped list, else the exact conditions. PostgreSQL decides common or rare by
 * the newest rows (pgProbe): its trigram index collects every match before any LIMIT applies.
 */
async function anyOf(finders: Finder[]): Promise<{ exact: SQL; fast?: SQL; fastest?: SQL }> {
  const t = getDb().schema.tickets;
  const sets: SQL[] = [];
  const rowChecks: SQL[] = [];
  const recent: SQL[] = [];
  const fastRows: SQL[] = [];
  const common = await Promise.all(finders.map((f) => f.common ?? (f.set && !f.none ? isCommon(f.probe!) : true)));
  finders.forEach((f, i) => {
    if (f.none) return;
    if (f.set && !common[i]) sets.push(f.set);
    else {
      rowChecks.push(f.row);
      if (f.recent) recent.push(f.recent);
      else if (f.fastRow) fastRows.push(f.fastRow);
    }
  });
  const parts = [...rowChecks];
  if (sets.length) parts.push(sql`${t.id} IN (${sql.join(sets, sql` UNION `)})`);
  const exact = parts.length ? or(...parts)! : never();
  if (recent.length === 0 || recent.length + fastRows.length < rowChecks.length) return { exact };
  const fast = or(...fastRows, sql`${t.id} IN (${sql.join([...sets, ...recent], sql` UNION `)})`)!;
  // PostgreSQL: a common title or contact alone often fills the list, without collecting the recent messages' hits
  return { exact, fast, fastest: fastRows.length ? or(...fastRows) : undefined };
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
  /** The same with the fast variants of common values (anyOf), when there are any. */
  ticketFast?: SQL[];
  /** PostgreSQL: the same with only the ticket's own fields of common values, tried first. */
  ticketFastest?: SQL[];
  /** Conditions on the joined `tickets` for the message list. */
  messageTicket: SQL[];
  /** Conditions on `messages` for the message list besides the body terms. */
  message: SQL[];
  /** Body terms of the message list: FTS expressions (SQLite) and other conditions. */
  fts: string[];
  body: SQL[];
  /** PostgreSQL, when every body term is common: messages above `lo` are checked one by one, newest first (messageCandidates). */
  walk?: { max: number; share: number; plain: SQL[]; bigram?: string };
  /** Whether the message list applies (some text, message: or from: token). */
  messages: boolean;
  /** Whether a contact: token asks for contact hits (the contacts of the conversations found). */
  contact: boolean;
  /** Free-text and message: values, for ranking, excerpts and highlighting. */
  terms: string[];
  /** Free-text values: a title holding them ranks higher. */
  titleTerms: string[];
}

async function plan(tokens: SearchToken[]): Promise<Plan> {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const m = schema.messages;
  const out: Plan = { ticket: [], messageTicket: [], message: [], fts: [], body: [], messages: false, contact: false, terms: [], titleTerms: [] };
  const anyMessage = (condition: SQL) =>
    exists(
      db
        .select({ one: sql`1` })
        .from(m)
        .where(and(eq(m.ticketId, t.id), sql`${m.type} NOT IN (${UNINDEXED})`, condition)),
    );
  // the index look-ups of every token at once (each may probe how common its value is)
  const found = await Promise.all(
    tokens.map(async ({ key, value }) => {
      if (!value) return {};
      // one index look-up of the value's body match, shared by both lists
      const bodyP = key === "text" || key === "message" ? bodyMatch(value) : undefined;
      const finders = key === "text" ? [fieldFinder("title", value), messageFinder(value, bodyP!)] : key === "message" ? [messageFinder(value, bodyP!)] : [];
      if (key === "contact") finders.push(fieldFinder("contact", value));
      const [ticket, body] = await Promise.all([finders.length ? anyOf(await Promise.all(finders)) : undefined, bodyP]);
      return { ticket, body };
    }),
  );
  const fastFor = new Map<SQL, SQL>();
  const fastestFor = new Map<SQL, SQL>();
  const walks: (PgWalk | undefined)[] = [];
  tokens.forEach(({ key, value }, i) => {
    if (!value) return;
    const { ticket: finding, body } = found[i]!;
    const ticket = finding?.exact;
    if (finding?.fast) fastFor.set(finding.exact, finding.fast);
    if (finding?.fastest) fastestFor.set(finding.exact, finding.fastest);
    if (body) {
      out.terms.push(value);
      out.messages = true;
      if (body.none) out.body.push(never());
      else if (body.fts) out.fts.push(body.fts);
      else out.body.push(body.condition!);
      walks.push(body.walk);
    }
    switch (key) {
      case "text":
        out.titleTerms.push(value);
        out.ticket.push(ticket!);
        break;
      case "message":
        out.ticket.push(ticket!);
        break;
      case "from":
        out.messages = true;
        out.ticket.push(anyMessage(senderMatches(value)));
        out.message.push(senderMatches(value));
        break;
      case "contact":
        out.contact = true;
        out.ticket.push(ticket!);
        out.messageTicket.push(ticket!);
        break;
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
  });
  if (fastFor.size) out.ticketFast = out.ticket.map((c) => fastFor.get(c) ?? c);
  if (fastestFor.size) out.ticketFastest = out.ticket.map((c) => fastestFor.get(c) ?? fastFor.get(c) ?? c);
  const walked = walks.filter((w): w is PgWalk => !!w);
  if (walked.length && walked.length === walks.length)
    out.walk = {
      max: Math.min(...walked.map((w) => w.max)),
      share: Math.min(...walked.map((w) => w.share)),
      plain: walked.map((w) => w.plain),
      bigram: walked.find((w) => w.bigram)?.bigram,
    };
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
  /** A plain-text excerpt around the first match. */
  message: string;
  /** The same excerpt as HTML: escaped, with each match in <mark>. */
  message_html: string;
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
  colorDark: string;
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

interface Candidate {
  id: number;
  score: number;
  /** Tie-break: newest first. */
  at: number;
}

/** Best first: higher score, then newer, then higher id. */
const ranked = (list: Candidate[]) => [...list].sort((a, b) => b.score - a.score || b.at - a.at || b.id - a.id);

/**
 * BM25's term-frequency saturation and length normalisation, over the candidate set. (FTS5's
 * bm25() first counts every row holding each term for its IDF: over a second for a common word
 * in 10 million messages; and every candidate holds every term, so IDF barely reorders them.)
 */
export function bm25Scores(bodies: string[], terms: string[], k1 = 1.2, b = 0.75): number[] {
  const avg = bodies.reduce((sum, body) => sum + body.length, 0) / Math.max(1, bodies.length) || 1;
  const wanted = terms.map((term) => term.toLowerCase()).filter(Boolean);
  return bodies.map((body) => {
    const lower = body.toLowerCase();
    let score = 0;
    for (const term of wanted) {
      let tf = 0;
      for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + term.length)) tf++;
      score += (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * body.length) / avg));
    }
    return score;
  });
}

/** The newest cap + 1 readable messages matching the plan, each with its relevance. */
async function messageCandidates(p: Plan, where: SQL | undefined, limit: number): Promise<Candidate[]> {
  const { dialect, schema } = getDb();
  const m = schema.messages;
  const t = schema.tickets;
  const indexed = sql`${m.type} NOT IN (${UNINDEXED})`;
  const filter = and(indexed, where, ...p.body) ?? indexed;
  if (dialect === "pg") {
    // ranked on the bounded set only: ts_rank over the words of the terms
    const words = p.terms.map((term) => term.replace(/["()]/g, " ")).join(" or ");
    const newest = async (condition: SQL, n: number) =>
      (
        await rows<{
          id: number | string;
          score: number | string | null;
        }>(sql`SELECT hit.id, ts_rank(to_tsvector('simple', hit.body), websearch_to_tsquery('simple', ${words})) AS score FROM (
      SELECT ${m.id} AS id, ${m.body} AS body FROM ${m} JOIN ${t} ON ${t.id} = ${m.ticketId} WHERE ${condition} ORDER BY ${m.id} DESC LIMIT ${n}) AS hit`)
      ).map((r) => ({ id: Number(r.id), score: Number(r.score ?? 0), at: Number(r.id) }));
    if (!p.walk) return newest(filter, limit);
    // common terms: the newest messages span by span, checked one by one (the trigram index would
    // first collect every match), up to PG_WALK messages, then the older ones through the index;
    // with a non-ASCII pair, each span's matches come from the id-blocked index, to the oldest.
    // The first span holds the list if a quarter of the hits are readable (a one-by-one walk stops
    // at the list's end anyway); each next span is 4x.
    const { max, plain, bigram } = p.walk;
    const found: Candidate[] = [];
    let hi = max;
    for (let span = Math.ceil((4 * limit) / p.walk.share); found.length < limit && hi > 0 && (bigram || max - hi < PG_WALK); span *= 4) {
      const lo = Math.max(0, bigram ? hi - span : Math.max(max - PG_WALK, hi - span));
      const range = bigram ? and(idAbove(lo), sql`${m.id} + 0 <= ${hi}`, inBlocks(bigram, lo, hi)) : and(sql`${m.id} > ${lo}`, sql`${m.id} <= ${hi}`);
      found.push(...(await newest(and(indexed, where, range, ...plain)!, limit - found.length)));
      hi = lo;
    }
    if (found.length >= limit || hi <= 0) return found;
    return [...found, ...(await newest(and(filter, sql`${m.id} <= ${hi}`)!, limit - found.length))];
  }
  // SQLite: the index streams its hits newest first (rowid order)
  const found = p.fts.length
    ? await rows<{ id: number; body: string }>(sql`SELECT message_search.rowid AS id, ${m.body} AS body
        FROM message_search JOIN ${m} ON ${m.id} = message_search.rowid JOIN ${t} ON ${t.id} = ${m.ticketId}
        WHERE message_search MATCH ${p.fts.map((e) => `(${e})`).join(" AND ")} AND ${filter}
        ORDER BY message_search.rowid DESC LIMIT ${limit}`)
    : await rows<{ id: number; body: string }>(
        sql`SELECT ${m.id} AS id, ${m.body} AS body FROM ${m} JOIN ${t} ON ${t.id} = ${m.ticketId} WHERE ${filter} ORDER BY ${m.id} DESC LIMIT ${limit}`,
      );
  const scores = bm25Scores(
    found.map((r) => r.body),
    p.terms,
  );
  return found.map((r, i) => ({ id: Number(r.id), score: scores[i]!, at: Number(r.id) }));
}

/** Runs a search for `reader`: only conversations they may read (readableBy) ever appear. */
export async function search(reader: Reader, tokens: SearchToken[], opts: SearchOptions = {}): Promise<SearchResult> {
  const postIndex = Math.min(Math.max(0, Math.floor(opts.postIndex ?? 0)), MAX_PAGE_INDEX);
  const messageIndex = Math.min(Math.max(0, Math.floor(opts.messageIndex ?? 0)), MAX_PAGE_INDEX);
  const cap = opts.countCap ?? COUNT_CAP;
  const labels = await suggestLabels(tokens);
  const base = { labels, search_index: postIndex, search_message_index: messageIndex };
  const p = await plan(tokens);
  if (p.ticket.length === 0) return { ...EMPTY, ...base };

  const { db, schema } = getDb();
  const t = schema.tickets;
  const m = schema.messages;
  const readable = readableBy(reader);

  // conversations: the newest cap + 1 readable hits, ranked by the free-text terms in their title
  const postCandidates = (conditions: SQL[]) =>
    db
      .select({ id: t.id, title: t.title, updatedAt: t.updatedAt })
      .from(t)
      .where(and(readable, ...conditions))
      .orderBy(desc(t.id))
      .limit(cap + 1);
  // a common value's fast variant, when it fills the capped list (else the exact conditions)
  const postsOf = async () => {
    for (const conditions of [p.ticketFastest, p.ticketFast]) {
      const fast = conditions ? await postCandidates(conditions) : [];
      if (fast.length > cap) return fast;
    }
    return postCandidates(p.ticket);
  };
  const [posts, messages] = await Promise.all([postsOf(), p.messages ? messageCandidates(p, and(readable, ...p.messageTicket, ...p.message), cap + 1) : []]);
  const titleScore = (title: string) => p.titleTerms.filter((term) => title.toLowerCase().includes(term.toLowerCase())).length;
  const postRanked = ranked(posts.slice(0, cap).map((r) => ({ id: r.id, score: titleScore(r.title), at: Number(r.updatedAt) })));
  const postPage = postRanked.slice(postIndex * SEARCH_PAGE_SIZE, (postIndex + 1) * SEARCH_PAGE_SIZE).map((c) => c.id);

  const messageRanked = ranked(messages.slice(0, cap));
  const messagePage = messageRanked.slice(messageIndex * SEARCH_PAGE_SIZE, (messageIndex + 1) * SEARCH_PAGE_SIZE).map((c) => c.id);

  const [postRows, messageRows, contacts] = await Promise.all([
    postPage.length
      ? db
          .select({
            id: t.id,
            channel: t.channel,
            kind: t.kind,
            ticketNumber: t.ticketNumber,
            title: t.title,
            lastMessage: t.lastMessage,
            encryption: t.encryption,
            contactName: t.contactName,
            contactEmail: t.contactEmail,
            status: t.status,
            updatedAt: t.updatedAt,
          })
          .from(t)
          .where(inArray(t.id, postPage))
      : [],
    messagePage.length
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
          .where(inArray(m.id, messagePage))
      : [],
    // the contacts of the conversations found
    p.contact && posts.length
      ? db
          .select({ email: t.contactEmail, name: sql<string>`min(${t.contactName})` })
          .from(t)
          .where(
            and(
              inArray(
                t.id,
                posts.slice(0, cap).map((r) => r.id),
              ),
              sql`${t.contactEmail} <> ''`,
            ),
          )
          .groupBy(t.contactEmail)
          .orderBy(asc(t.contactEmail))
          .limit(SEARCH_PAGE_SIZE)
      : [],
  ]);
  const inOrder = <R extends { id: number }>(page: number[], list: R[]) => page.map((id) => list.find((r) => r.id === id)).filter((r): r is R => !!r);
  return {
    ...base,
    post: inOrder(postPage, postRows).map((r) => ({
      id: r.id,
      channel: r.channel,
      ticket_number: r.ticketNumber,
      title: r.title,
      message: r.encryption ? englishText("conversation.encryption.message") : r.lastMessage,
      contact_name: r.contactName,
      contact_email: r.contactEmail,
      status: r.status,
      updated_at: Number(r.updatedAt),
      link: conversationPath(r.kind, r.ticketNumber),
    })),
    message: inOrder(messagePage, messageRows).map((r) => {
      const text = excerpt(r.body, r.type, p.terms);
      return {
        id: r.id,
        ticket_id: r.ticketId,
        channel: r.channel,
        ticket_number: r.ticketNumber,
        title: r.title,
        message: text,
        message_html: highlightHtml(text, p.terms),
        sender: r.senderUser ?? (r.senderName || r.contactName),
        ts: Number(r.createdAt),
        link: `${conversationPath(r.kind, r.ticketNumber)}?message_id=${r.id}`,
      };
    }),
    contact: contacts.map((c) => ({ uid: encodeURIComponent(c.email), name: c.name, email: c.email, link: contactPath(c.email) })),
    postCount: Math.min(posts.length, cap),
    postCountCapped: posts.length > cap,
    messageCount: Math.min(messages.length, cap),
    messageCountCapped: messages.length > cap,
    postMore: postRanked.length > (postIndex + 1) * SEARCH_PAGE_SIZE,
    messageMore: messageRanked.length > (messageIndex + 1) * SEARCH_PAGE_SIZE,
    terms: p.terms,
  };
}

export type RecordSection = SearchHitSection & { plugin: string };

/**
 * The records other plugins find for these tokens (contacts, cases, products; the manifest's
 * `searchHits`): by the free text, and contacts by `contact:` values too. Each plugin checks the
 * reader's access itself.
 */
export function recordHits(tokens: SearchToken[], reader: Reader, viewer: Viewer, enabled: readonly string[], trial = false): Promise<RecordSection[]> {
  const text = tokens
    .filter((t) => t.key === "text")
    .map((t) => t.value)
    .join(" ")
    .trim();
  const contact = tokens.filter((t) => t.key === "contact" && t.value).map((t) => t.value);
  return searchHits({ reader, viewer, text, contact }, enabled, trial);
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
    .select({ id: l.id, name: l.name, color: l.color, colorDark: l.colorDark })
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
