-- The contacts search's 1 and 2 character terms in any script (plugins/contacts/search.server.ts):
-- pg_trgm needs 3 characters, and the character-pair index of 0041 served only pairs outside
-- ASCII, so a rare letter ("z") read every contact's text (seconds at a million). This index holds
-- each text's distinct characters and character pairs, lower-cased, none spanning a line (a search
-- holds no line break); it replaces the pair index. COST 100, not search_bigrams' 10000: at that
-- cost the planner took the few index hits' recheck for dear work and started parallel workers
-- (150 ms instead of 0.1 ms for a rare letter at a million contacts).
CREATE OR REPLACE FUNCTION contact_short_terms(value text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 100 AS $$
	SELECT coalesce(array_agg(DISTINCT term), '{}')
	FROM (SELECT lower(value) AS v) AS text,
		LATERAL (SELECT substr(v, i, 1) AS term FROM generate_series(1, length(v)) AS i
			UNION ALL SELECT substr(v, i, 2) FROM generate_series(1, length(v) - 1) AS i) AS terms
	WHERE strpos(term, E'\n') = 0
$$;
--> statement-breakpoint
CREATE INDEX "contact_search_short_terms_idx" ON "contact_search" USING gin (contact_short_terms("body"));
--> statement-breakpoint
DROP INDEX IF EXISTS "contact_search_body_bigram_idx";
