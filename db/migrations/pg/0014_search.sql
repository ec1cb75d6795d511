-- Full-text search (plugins/tickets/search.server.ts). pg_trgm GIN indexes serve ILIKE '%term%'
-- for terms of 3+ characters in any script (Chinese, Japanese and Korean included); messages
-- are ranked with ts_rank over to_tsvector('simple', body) on the bounded candidate set. Terms
-- of 2 characters outside ASCII (most Chinese words) are served by a GIN index over the text's
-- non-ASCII character pairs (search_bigrams). PostgreSQL keeps the indexes in the writer's
-- transaction. Not indexed: system messages (event JSON) and encrypted messages
-- (ENCRYPTED_MESSAGE_TYPE in app/conversation/constants.ts); the queries repeat the predicate.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- COST: evaluating it row by row (a regular expression per text) is far dearer than its index
CREATE OR REPLACE FUNCTION search_bigrams(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 10000 AS $$
	SELECT coalesce(array_agg(DISTINCT substr(run, i, 2)), '{}')
	FROM (SELECT lower(r[1]) AS run FROM regexp_matches(value, '[^\x01-\x7f]{2,}', 'g') AS r) AS runs, generate_series(1, length(run) - 1) AS i
$$;
--> statement-breakpoint
CREATE INDEX "tickets_title_trgm_idx" ON "tickets" USING gin ("title" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "tickets_title_bigram_idx" ON "tickets" USING gin (search_bigrams("title"));
--> statement-breakpoint
CREATE INDEX "tickets_contact_name_trgm_idx" ON "tickets" USING gin ("contact_name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "tickets_contact_email_trgm_idx" ON "tickets" USING gin ("contact_email" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "tickets_contact_phone_trgm_idx" ON "tickets" USING gin ("contact_phone" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "messages_body_trgm_idx" ON "messages" USING gin ("body" gin_trgm_ops) WHERE "type" NOT IN ('system', 'encrypted');
--> statement-breakpoint
CREATE INDEX "messages_body_bigram_idx" ON "messages" USING gin (search_bigrams("body")) WHERE "type" NOT IN ('system', 'encrypted');
