-- Substring search on subscribers' e-mail (GET /subscribers?find_column=email, the console's search box) is
-- `email ILIKE '%…%'`, which no B-tree can serve: at a million subscribers a rare substring meant reading every row.
-- A trigram GIN index answers a pattern of three or more characters from the index (PostgreSQL's pg_trgm; PGlite
-- loads the same extension in src/db/client.ts). Built once on the first start with this file; idempotent after.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS subscribers_email_trgm_idx ON subscribers USING gin (email gin_trgm_ops);
