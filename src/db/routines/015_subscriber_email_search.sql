-- What the e-mail search's copy (subscriber_email_search, where its trigram index lives) has yet to take in: a range of
-- ids per statement that adds subscribers, an id per changed address (from 013's update trigger, which already reads
-- the statement's changed rows). Only this is written on the write path; subscription/email-search.ts folds the ids
-- into the copy in the background (issue 24: the trigram index on subscribers was a sixth of an import's cost).
-- A range may take in ids of other statements' rows (ids interleave): folding a row twice writes the same copy.

CREATE OR REPLACE FUNCTION subscriber_email_search_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_email_search_pending (lo, hi) SELECT min(id), max(id) FROM new_subscribers HAVING count(*) > 0;
  RETURN NULL;
END
$$;

-- Called by subscriber_rollups_change (013) with the ids whose address an update changed.
CREATE OR REPLACE FUNCTION subscriber_email_search_changed(ids int[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO subscriber_email_search_pending (lo, hi) SELECT id, id FROM unnest(ids) AS id
$$;

-- The subscribers not folded yet whose address matches `pattern` (ILIKE): the search's second source of candidates
-- (subscription/email-search.repository.ts). A function, so the planner takes it as the few rows it nearly always is
-- (ROWS): written in the query as a join of the pending ranges with subscribers, the planner's guess for the ranges
-- (a small table without statistics, 1,850 rows) priced it at millions, and it scanned every subscriber instead,
-- with nothing pending (0.5 s for one search at a million). Each range is read through the primary key.
CREATE OR REPLACE FUNCTION subscriber_email_search_unfolded(pattern text) RETURNS SETOF integer
LANGUAGE plpgsql STABLE ROWS 10 AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT lo, hi FROM subscriber_email_search_pending LOOP
    RETURN QUERY SELECT t.id FROM subscribers t WHERE t.id BETWEEN r.lo AND r.hi AND t.email ILIKE pattern;
  END LOOP;
END
$$;

-- Through the primary key, whatever plan the session keeps (routines/README.md).
CREATE OR REPLACE FUNCTION subscriber_email_search_removed() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  DELETE FROM subscriber_email_search WHERE subscriber_id IN (SELECT id FROM old_subscribers);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscriber_email_search_cleared() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE subscriber_email_search, subscriber_email_search_pending;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS subscribers_email_search_insert ON subscribers;
CREATE TRIGGER subscribers_email_search_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_email_search_added();

DROP TRIGGER IF EXISTS subscribers_email_search_delete ON subscribers;
CREATE TRIGGER subscribers_email_search_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_email_search_removed();

DROP TRIGGER IF EXISTS subscribers_email_search_truncate ON subscribers;
CREATE TRIGGER subscribers_email_search_truncate AFTER TRUNCATE ON subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_email_search_cleared();
