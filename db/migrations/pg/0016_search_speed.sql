-- Newest-first search for Chinese, Japanese and Korean words (plugins/tickets/search.server.ts).
-- A common word's matches are wanted newest first, but a GIN index hands over every match before
-- any LIMIT applies (about 170,000 messages for 退款 in 10 million). This index keys each
-- non-ASCII character pair by the message's id block of 65,536 ("152:退款"), so a search reads
-- only the posting lists of the newest blocks. Same rows as messages_body_bigram_idx (0014).
CREATE OR REPLACE FUNCTION search_bigrams_at(id bigint, value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000 AS $$
	SELECT coalesce(array_agg((id / 65536)::text || ':' || b), '{}') FROM unnest(search_bigrams(value)) AS b
$$;
--> statement-breakpoint
CREATE INDEX "messages_body_bigram_at_idx" ON "messages" USING gin (search_bigrams_at("id", "body")) WHERE "type" NOT IN ('system', 'encrypted');
