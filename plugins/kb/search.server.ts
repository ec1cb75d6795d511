// Full-text search of articles, the way ticket search does it (plugins/tickets/search.server.ts):
// SQLite: the FTS5 trigram table kb_search (migration of plugins/kb), each word of 3+ characters a
// quoted phrase, ranked by bm25; words of 1-2 characters are matched with LIKE on the candidates.
// PostgreSQL: words of letters and digits in ASCII go through to_tsvector('simple', ...) @@
// to_tsquery (prefix match, GIN index), others (Chinese, Japanese, Korean, punctuation) through
// ILIKE, served by the pg_trgm GIN indexes; ranked by ts_rank. Every word must match.
import { sql, type SQL } from "drizzle-orm";
import { getDb, rows } from "@db/client";
import { QUERY_MAX } from "./limits";

/** The search's words: split on spaces, at most 8, each at most 50 characters. */
export function words(q: string): string[] {
  return q
    .slice(0, QUERY_MAX)
    .split(/\s+/)
    .map((w) => w.replace(/["*^:()]/g, "").trim())
    .filter(Boolean)
    .slice(0, 8)
    .map((w) => w.slice(0, 50));
}

const likePattern = (value: string) => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Ids of the articles matching every word, best first (at most `limit`). */
export async function searchIds(q: string, limit = 100): Promise<number[]> {
  const list = words(q);
  if (!list.length) return [];
  const handle = getDb();
  if (handle.dialect === "sqlite") {
    const long = list.filter((w) => [...w].length >= 3);
    const short = list.filter((w) => [...w].length < 3);
    const likes = short.map((w) => sql`(a.title || ' ' || a.category || ' ' || a.body) LIKE ${likePattern(w)} ESCAPE '\\'`);
    if (long.length) {
      const match = long.map((w) => `"${w}"`).join(" AND ");
      const found = await rows<{ id: number }>(
        sql`SELECT a.id AS id FROM kb_search JOIN kb_articles a ON a.id = kb_search.rowid
            WHERE kb_search MATCH ${match} ${likes.length ? sql`AND ${sql.join(likes, sql` AND `)}` : sql``}
            ORDER BY bm25(kb_search, 10.0, 3.0, 1.0), a.id DESC LIMIT ${limit}`,
      );
      return found.map((r) => Number(r.id));
    }
    const found = await rows<{ id: number }>(
      sql`SELECT a.id AS id FROM kb_articles a WHERE ${sql.join(likes, sql` AND `)} ORDER BY a.updated_at DESC LIMIT ${limit}`,
    );
    return found.map((r) => Number(r.id));
  }
  const doc = sql`to_tsvector('simple', a.title || ' ' || a.category || ' ' || a.body)`;
  const plain = list.filter((w) => /^[a-z0-9]+$/i.test(w)).map((w) => `${w.toLowerCase()}:*`);
  const other = list.filter((w) => !/^[a-z0-9]+$/i.test(w));
  const conditions: SQL[] = [];
  const query = plain.length ? sql`to_tsquery('simple', ${plain.join(" & ")})` : null;
  if (query) conditions.push(sql`${doc} @@ ${query}`);
  for (const w of other) conditions.push(sql`(a.title ILIKE ${likePattern(w)} OR a.body ILIKE ${likePattern(w)} OR a.category ILIKE ${likePattern(w)})`);
  const rank = query ? sql`ts_rank(${doc}, ${query}) DESC, ` : sql``;
  const found = await rows<{ id: number }>(
    sql`SELECT a.id AS id FROM kb_articles a WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${rank}a.updated_at DESC LIMIT ${limit}`,
  );
  return found.map((r) => Number(r.id));
}
