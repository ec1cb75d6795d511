-- Numbered alike with PostgreSQL's 0015_search_speed (an id-blocked bigram index for newest-first
-- CJK search there). SQLite needs nothing: its FTS5 index already streams hits newest first.
SELECT 1;
