-- pg_dump's restore runs with an empty search_path, so the index over search_bigrams_at (0016)
-- could not be rebuilt: its body calls search_bigrams unqualified. The function now carries the
-- search_path it was created under. (Not inlinable either way: no planning change.)
ALTER FUNCTION search_bigrams_at(bigint, text) SET search_path FROM CURRENT;
