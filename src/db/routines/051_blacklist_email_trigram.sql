-- Substring search on the blacklist (GET /blacklist?email=, the console's Blacklist view) is `email ILIKE '%…%'`,
-- which no B-tree serves; the table can hold many addresses (bounces and imports add to it), so it gets the same
-- trigram GIN index as subscribers.email (routine 050). Idempotent.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS blacklist_email_trgm_idx ON blacklist USING gin (email gin_trgm_ops);
