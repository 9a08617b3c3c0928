-- Substring search on subscribers' e-mail (GET /subscribers?find_column=email, the console's search box, segments'
-- "contains" and "domain is") is `email ILIKE '%…%'`, which no B-tree can serve: at a million subscribers a rare
-- substring meant reading every row. A trigram GIN index answers a pattern of three or more characters from the index
-- (PostgreSQL's pg_trgm; PGlite loads the same extension in src/db/pglite-thread.worker.ts). Idempotent.
-- It indexes subscriber_email_search, the copy folded in the background (015_subscriber_email_search.sql), not
-- subscribers: there it made every write of an address extract its trigrams (issue 24).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
DROP INDEX IF EXISTS subscribers_email_trgm_idx;
CREATE INDEX IF NOT EXISTS subscriber_email_search_trgm_idx ON subscriber_email_search USING gin (email gin_trgm_ops);
