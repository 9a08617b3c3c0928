-- One random secret per purpose, created on first start. md5 of random() and the clock, twice: 256 bits of text,
-- without needing pgcrypto (not available in every PGlite build).
INSERT INTO installation_secrets (name, value)
VALUES ('link_token', md5(random()::text || clock_timestamp()::text) || md5(random()::text || clock_timestamp()::text))
ON CONFLICT (name) DO NOTHING;
