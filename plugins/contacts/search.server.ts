// The contacts list's search (/contacts, GET /api/contacts/list): contacts whose name, one of
// their emails or one of their phones contains what was typed (any case; "Rahman" finds
// "Zulkifli Rahman"), or, for a phone number, its digits (leading zeros dropped) or its E.164
// form; merged contacts never. Newest first (created_at, id), a page at a time.
//
// Indexes (migration contact_search): one text per contact (name, emails, phones on lines of their
// own), kept by triggers in the writer's transaction. SQLite: the FTS5 trigram table
// contact_search (rowid = contact id); 1-2 character terms through its vocabulary (every text
// ends in two spaces, so each short substring starts some trigram). PostgreSQL: the table
// contact_search with a pg_trgm GIN index, and for 1-2 characters a GIN index of each text's
// characters and character pairs (contact_short_terms, migration contact_short_terms).
//
// Rare terms read their index once and sort the hits; common ones walk the contacts newest first
// checking each one against its text, which stops at the page (the index would first collect
// every hit). SQLite tells them apart by counting index hits up to COMMON; PostgreSQL, whose GIN
// index cannot stop early, by the share of the newest PROBE contacts that match. On SQLite a 1-2
// character term with too many trigrams has no index lookup: it walks when common and reads every
// text once when rare: correct, if not fast.
import { sql, type SQL } from "drizzle-orm";
import { getDb, rows } from "@db/client";
import { normalisePhone } from "./identities";

/** SQLite: a term with at least this many index hits is common: the contacts are walked newest first. */
const COMMON = 5_000;
/** SQLite: a 1-2 character term starting more distinct trigrams than this is not looked up in the index. */
const SHORT_TERMS = 256;
/** PostgreSQL: the newest contacts read to tell a common term from a rare one. */
const PROBE = 1_000;
/** PostgreSQL: a term matching at least this share of the newest contacts is common. */
const COMMON_SHARE = 0.005;
/** The most contacts a walk is expected to read; a deeper page reads the index's hits instead. */
const WALK_MAX = 200_000;

const chars = (value: string) => [...value].length;
const phrase = (value: string) => `"${value.replace(/"/g, '""')}"`;

/**
 * What a search looks for: texts a contact's name, email or phone contains (as typed; for a
 * number, its digits without leading zeros), and a phone number that is one of its phones exactly.
 */
export function searchVariants(input: string): { contains: string[]; phone?: string } {
  // a text never holds a line break (the index's fields are lines of their own)
  const text = input.replace(/[\r\n]+/g, " ").trim();
  if (!text) return { contains: [] };
  const phone = normalisePhone(text);
  const digits = text.replace(/[\s().+-]/g, "").replace(/^0+/, "");
  const contains = [text];
  if (!phone && /^\d{4,}$/.test(text.replace(/[\s().+-]/g, "")) && digits && digits !== text) contains.push(digits);
  return phone ? { contains, phone } : { contains };
}

/** The contact ids of one page of the search, newest first (`limit` of them from `offset`). */
export async function searchContactIds(q: string, offset: number, limit: number): Promise<number[]> {
  const variants = searchVariants(q);
  if (!variants.contains.length) return [];
  return getDb().dialect === "pg" ? pgSearch(variants, offset, limit) : sqliteSearch(variants, offset, limit);
}

type Variants = ReturnType<typeof searchVariants>;

/** The contact whose phone is exactly `phone` (the identities' primary key), as a set of ids. */
function phoneOwner(phone: string): SQL {
  const ci = getDb().schema.contactIdentities;
  return sql`SELECT ${ci.contactId} FROM ${ci} WHERE ${ci.kind} = 'phone' AND ${ci.value} = ${phone}`;
}

const ids = (found: { id: number | string }[]) => found.map((r) => Number(r.id));

/**
 * SQLite: the FTS5 expression finding any of the variants (quoted phrases; a 1-2 character one as
 * the indexed trigrams it starts). null: nothing can match; undefined: too broad for the index.
 */
async function ftsExpression(variants: string[]): Promise<string | null | undefined> {
  const parts: string[] = [];
  for (const value of variants) {
    if (chars(value) >= 3) {
      parts.push(phrase(value));
      continue;
    }
    const v = value.toLowerCase();
    const terms = await rows<{ term: string }>(
      sql`SELECT term FROM contact_search_vocab WHERE term >= ${v} AND term < ${`${v}\u{10FFFF}`} LIMIT ${SHORT_TERMS + 1}`,
    );
    if (terms.length > SHORT_TERMS) return undefined;
    parts.push(...terms.map((t) => phrase(t.term)));
  }
  return parts.length ? parts.join(" OR ") : null;
}

/** The contacts, newest first, that are not merged and meet `check` (read row by row). */
function walk(check: SQL, offset: number, limit: number): SQL {
  const c = getDb().schema.contacts;
  return sql`SELECT ${c.id} AS id FROM ${c} WHERE ${c.mergedInto} IS NULL AND ${check} ORDER BY ${c.createdAt} DESC, ${c.id} DESC LIMIT ${limit} OFFSET ${offset}`;
}

/**
 * SQLite: the contact's name or one of its emails or phones contains a variant (LIKE: ASCII letters
 * in any case), read row by row on a walk. (Looking the contact up in its index entry would be
 * the same test, but FTS5 reads the term's whole hit list for each row.)
 */
function sqliteRowCheck(variants: Variants): SQL {
  const { schema } = getDb();
  const c = schema.contacts;
  const ci = schema.contactIdentities;
  const like = (value: string) => sql`${`%${value.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`}`;
  const checks = variants.contains.map(
    (v) =>
      sql`(${c.name} LIKE ${like(v)} ESCAPE '\\' OR EXISTS (SELECT 1 FROM ${ci} WHERE ${ci.contactId} = ${c.id} AND ${ci.kind} IN ('email', 'phone') AND ${ci.value} LIKE ${like(v)} ESCAPE '\\'))`,
  );
  if (variants.phone) checks.push(sql`${c.id} IN (${phoneOwner(variants.phone)})`);
  return sql`(${sql.join(checks, sql` OR `)})`;
}

async function sqliteSearch(variants: Variants, offset: number, limit: number): Promise<number[]> {
  const c = getDb().schema.contacts;
  const expression = await ftsExpression(variants.contains);
  if (expression === undefined || (expression === null && variants.phone))
    return ids(await rows<{ id: number }>(walk(sqliteRowCheck(variants), offset, limit)));
  if (expression === null) return [];
  const [count] = await rows<{ n: number }>(
    sql`SELECT count(*) AS n FROM (SELECT rowid FROM contact_search WHERE contact_search MATCH ${expression} LIMIT ${COMMON})`,
  );
  const hits = Number(count?.n ?? 0);
  const [total] = hits >= COMMON ? await rows<{ n: number }>(sql`SELECT max(${c.id}) AS n FROM ${c}`) : [];
  // a common term walks unless the page is so deep that the walk would read more than the hits
  const expectedWalk = hits >= COMMON ? ((offset + limit) * Number(total?.n ?? 0)) / hits : 0;
  if (hits >= COMMON && expectedWalk <= WALK_MAX) return ids(await rows<{ id: number }>(walk(sqliteRowCheck(variants), offset, limit)));
  // CROSS JOIN keeps the hits first: the planner would otherwise walk the newest contacts probing them
  const hitIds = sql`SELECT rowid AS id FROM contact_search WHERE contact_search MATCH ${expression}${variants.phone ? sql` UNION ${phoneOwner(variants.phone)}` : sql``}`;
  return ids(
    await rows<{ id: number }>(sql`SELECT ${c.id} AS id FROM (${hitIds}) AS hits CROSS JOIN ${c} ON ${c.id} = hits.id
      WHERE ${c.mergedInto} IS NULL ORDER BY ${c.createdAt} DESC, ${c.id} DESC LIMIT ${limit} OFFSET ${offset}`),
  );
}

/** PostgreSQL: a text without letter case (Chinese, Japanese, Korean, digits) needs no lower(). */
const caseless = (value: string) => value === value.toLowerCase() && value === value.toUpperCase() && !/\p{M}/u.test(value);

/** PostgreSQL: the body contains `value` as ILIKE would say, in a form no index serves (checked row by row). */
function pgPlain(value: string): SQL {
  return caseless(value) ? sql`strpos(s.body, ${value}) > 0` : sql`strpos(lower(s.body), lower(${value})) > 0`;
}

/** PostgreSQL: the body contains `value`, through an index (trigrams from 3 characters, the short-terms index below). */
function pgIndexed(value: string): SQL {
  if (chars(value) >= 3) return sql`s.body ILIKE ${`%${value.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`} ESCAPE '\\'`;
  // 1-2 characters: the text's characters and pairs (migration contact_short_terms), then the term's
  // own check in a form no index serves (with ILIKE the planner may pick the trigram index, which
  // holds no entry this short)
  return sql`(contact_short_terms(s.body) @> ARRAY[lower(${value})]::text[] AND ${pgPlain(value)})`;
}

async function pgSearch(variants: Variants, offset: number, limit: number): Promise<number[]> {
  const c = getDb().schema.contacts;
  const phone = variants.phone ? sql` OR s.contact_id IN (${phoneOwner(variants.phone)})` : sql``;
  const plain = sql`(${sql.join(variants.contains.map(pgPlain), sql` OR `)}${phone})`;
  const indexed = variants.contains.map(pgIndexed);
  const [probe] = await rows<{ n: string | number; of: string | number }>(
    sql`SELECT count(*) FILTER (WHERE ${plain}) AS n, count(*) AS of
      FROM (SELECT ${c.id} AS id FROM ${c} WHERE ${c.mergedInto} IS NULL ORDER BY ${c.createdAt} DESC, ${c.id} DESC LIMIT ${PROBE}) AS newest
      JOIN contact_search s ON s.contact_id = newest.id`,
  );
  const share = Number(probe?.n ?? 0) / Math.max(1, Number(probe?.of ?? 0));
  const common = share >= COMMON_SHARE && (offset + limit) / share <= WALK_MAX;
  if (common)
    return ids(await rows<{ id: number }>(walk(sql`EXISTS (SELECT 1 FROM contact_search s WHERE s.contact_id = ${c.id} AND (${plain}))`, offset, limit)));
  // rare: the hits first (materialised, so the planner cannot turn it into a walk), then sorted
  // the exact phone as its own set: OR-ed into the text's condition it would keep the index from serving it
  const byText = sql`SELECT s.contact_id FROM contact_search s WHERE ${sql.join(indexed, sql` OR `)}`;
  const found = variants.phone ? sql`${byText} UNION ${phoneOwner(variants.phone)}` : byText;
  return ids(
    await rows<{ id: number }>(sql`WITH hits AS MATERIALIZED (${found})
      SELECT ${c.id} AS id FROM hits JOIN ${c} ON ${c.id} = hits.contact_id WHERE ${c.mergedInto} IS NULL
      ORDER BY ${c.createdAt} DESC, ${c.id} DESC LIMIT ${limit} OFFSET ${offset}`),
  );
}
