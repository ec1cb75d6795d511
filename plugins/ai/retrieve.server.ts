// Retrieval for reply recommendations, offline: a MiniSearch index (BM25 with prefix and fuzzy
// matching) over the knowledge base's articles and the workspace's own agent answers on tickets
// that were resolved. Past answers come only from tickets the agent may read (the same rule as
// the pages), so a source link never leads to a 403, and they are scrubbed (recommend.ts) before
// they are indexed. An index lives a minute per reader (a new article or a newly resolved ticket
// is found within a minute); at most MAX_ANSWERS past answers and MAX_ARTICLES articles are read.
import { and, desc, eq, gte, inArray, isNotNull, ne } from "drizzle-orm";
import MiniSearch from "minisearch";
import { getDb } from "@db/client";
import { readableBy, type Reader } from "~/conversation/access.server";
import { RESOLVED } from "~/conversation/constants";
import { publicPath } from "@plugins/kb/limits";
import { plainText as articleText } from "@plugins/kb/render.server";
import { scrub, type Source } from "./recommend";
import { plainText } from "./analysis.server";

const MAX_ARTICLES = 2_000;
const MAX_ANSWERS = 3_000;
const TTL_MS = 60_000;
const MAX_INDEXES = 50;
/** Answers shorter than this are thanks and greetings, not solutions. */
const MIN_ANSWER = 40;

type Doc = Omit<Source, "score"> & { key: string };

const indexes = new Map<string, { at: number; search: MiniSearch<Doc> }>();

export function forgetIndexes() {
  indexes.clear();
}

const readerKey = (r: Reader) => (r.type === "admin" ? "admin" : `${r.id}:${r.departmentId ?? ""}`);

async function documents(reader: Reader, excludeTicketId: number | null): Promise<Doc[]> {
  const { db, schema } = getDb();
  const a = schema.kbArticles;
  const articles = await db
    .select({ id: a.id, type: a.type, lang: a.lang, title: a.title, body: a.body, visibility: a.visibility, category: a.category })
    .from(a)
    .orderBy(desc(a.updatedAt))
    .limit(MAX_ARTICLES);
  const docs: Doc[] = articles.map((row) => ({
    key: `kb:${row.id}`,
    type: "kb",
    id: row.id,
    title: row.title,
    text: articleText(row.body),
    href: row.visibility === "public" ? publicPath(row) : `/kb/${row.id}`,
  }));

  const m = schema.messages;
  const t = schema.tickets;
  const answers = await db
    .select({ id: m.id, type: m.type, body: m.body, ticketId: t.id, ticketNumber: t.ticketNumber, title: t.title, contactName: t.contactName })
    .from(m)
    .innerJoin(t, eq(t.id, m.ticketId))
    .where(
      and(
        isNotNull(m.senderUserId),
        inArray(m.type, ["text", "text/html"]),
        gte(t.status, RESOLVED),
        ne(t.channel, "chat"),
        excludeTicketId ? ne(t.id, excludeTicketId) : undefined,
        readableBy(reader),
      ),
    )
    .orderBy(desc(m.id))
    .limit(MAX_ANSWERS);
  for (const row of answers) {
    const text = scrub(plainText(row), [row.contactName]);
    if (text.length < MIN_ANSWER) continue;
    docs.push({ key: `answer:${row.id}`, type: "answer", id: row.ticketNumber, title: row.title, text, href: `/ticket/${row.ticketNumber}` });
  }
  return docs;
}

async function indexFor(reader: Reader, excludeTicketId: number | null) {
  const key = `${readerKey(reader)}:${excludeTicketId ?? ""}`;
  const now = Date.now();
  const hit = indexes.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.search;
  const search = new MiniSearch<Doc>({
    idField: "key",
    fields: ["title", "text"],
    storeFields: ["type", "id", "title", "text", "href"],
    searchOptions: { boost: { title: 2 }, prefix: (term) => term.length >= 4, fuzzy: (term) => (term.length >= 6 ? 0.2 : false) },
  });
  search.addAll(await documents(reader, excludeTicketId));
  if (indexes.size >= MAX_INDEXES) indexes.delete(indexes.keys().next().value!);
  indexes.set(key, { at: now, search });
  return search;
}

/** Words that say nothing about what the customer needs. */
const STOP = new Set(
  "the,a,an,and,or,but,is,are,was,were,be,been,it,its,this,that,to,of,in,on,for,with,my,me,i,you,your,we,our,they,have,has,had,do,does,did,not,no,so,at,by,from,as,can,could,would,will,still,just,what,how,why,when,where,please,thanks,thank,hi,hello,saya,anda,yang,dan,ini,itu,untuk,dengan,tidak,tak,nak,ke,di".split(
    ",",
  ),
);

/** The customer's words as a query: content words, at most 30. */
export function queryOf(text: string) {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w) && (w.length > 2 || /[\u3400-\u9fff]/.test(w)));
  return [...new Set(words)].slice(0, 30).join(" ");
}

/** The best sources for a customer's message, best first, with scores relative to the best (1). */
export async function findSources(text: string, reader: Reader, options: { excludeTicketId?: number | null; limit?: number } = {}): Promise<Source[]> {
  const query = queryOf(text);
  if (!query) return [];
  const search = await indexFor(reader, options.excludeTicketId ?? null);
  const terms = query.split(" ").length;
  const found = search.search(query, { combineWith: "OR" }).slice(0, options.limit ?? 5);
  const top = found[0]?.score ?? 1;
  // a source that shares one word of a long question is a weak one, however it ranks
  const coverage = (matched: number) => Math.min(1, matched / Math.min(3, terms));
  return found.map((r) => ({
    type: r.type as Source["type"],
    id: r.id as number,
    title: r.title as string,
    text: r.text as string,
    href: r.href as string,
    score: Math.round((r.score / top) * coverage(r.terms.length) * 100) / 100,
  }));
}
