-- Subscribers per domain and state (subscriber_domain_counts, 16 shards), for the analytics endpoints
-- (tracking/statistics.repository.ts), kept by statement-level triggers on subscribers reading the statement's
-- transition tables, as 011_subscriber_count.sql keeps the number of subscribers: an import of many addresses writes
-- each touched counter row once. The domain is the text after the first `@`, lower-cased; addresses without `@` are
-- not counted (reference §8.5). State: blacklisted, else confirmed, else unconfirmed.
-- Rows are written in key order so two statements that touch the same domains take their locks in one order.
-- Beside it, subscribers per UTC day of creation (subscriber_daily_counts): the dashboard's new subscribers and growth
-- chart (issue 24). A day's confirmed and blacklisted are each its own flag, as the dashboard shows them.
-- The local parts are a snapshot refreshed in the background (tracking/local-parts.service.ts): a counter row per
-- distinct local part was as many rows as subscribers and a fifth of an import's cost (issue 24). These triggers
-- only mark that snapshot dirty, with an update that finds nothing to do once it is marked.

-- Marks the local parts snapshot out of date (no row is written when it already is).
CREATE OR REPLACE FUNCTION local_parts_snapshot_dirty() RETURNS void LANGUAGE sql AS $$
  UPDATE analytics_snapshots SET dirty = true WHERE name = 'local_parts' AND NOT dirty
$$;

-- New rows: one upsert, in one statement.
CREATE OR REPLACE FUNCTION subscriber_rollups_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_domain_counts AS c (domain, shard, confirmed, unconfirmed, blacklisted)
  SELECT lower(split_part(s.email, '@', 2)), pg_backend_pid() % 16,
         count(*) FILTER (WHERE NOT s.blacklisted AND s.confirmed),
         count(*) FILTER (WHERE NOT s.blacklisted AND NOT s.confirmed),
         count(*) FILTER (WHERE s.blacklisted)
  FROM new_subscribers s WHERE strpos(s.email, '@') > 0 GROUP BY 1 ORDER BY 1
  ON CONFLICT (domain, shard) DO UPDATE SET confirmed = c.confirmed + excluded.confirmed,
    unconfirmed = c.unconfirmed + excluded.unconfirmed, blacklisted = c.blacklisted + excluded.blacklisted;
  INSERT INTO subscriber_daily_counts AS c (day, shard, subscribers, confirmed, blacklisted)
  SELECT (s.created_at AT TIME ZONE 'utc')::date, pg_backend_pid() % 16, count(*),
         count(*) FILTER (WHERE s.confirmed), count(*) FILTER (WHERE s.blacklisted)
  FROM new_subscribers s GROUP BY 1 ORDER BY 1
  ON CONFLICT (day, shard) DO UPDATE SET subscribers = c.subscribers + excluded.subscribers,
    confirmed = c.confirmed + excluded.confirmed, blacklisted = c.blacklisted + excluded.blacklisted;
  PERFORM local_parts_snapshot_dirty();
  RETURN NULL;
END
$$;

-- Rows that go or change, as parallel arrays (a trigger's transition tables are not visible to the functions it
-- calls): each row's email, day of creation and state with +1 or -1. Without sequential scans: its plan is kept for
-- the session (README).
DROP FUNCTION IF EXISTS subscriber_rollups_apply(text[], boolean[], boolean[], int[]);
CREATE OR REPLACE FUNCTION subscriber_rollups_apply(emails text[], days date[], confirmeds boolean[], blacklisteds boolean[], signs int[])
RETURNS void LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  WITH per_day AS (
    SELECT x.day, sum(x.sign) AS subscribers,
           coalesce(sum(x.sign) FILTER (WHERE x.confirmed), 0) AS confirmed,
           coalesce(sum(x.sign) FILTER (WHERE x.blacklisted), 0) AS blacklisted
    FROM unnest(days, confirmeds, blacklisteds, signs) AS x(day, confirmed, blacklisted, sign)
    GROUP BY 1
  )
  INSERT INTO subscriber_daily_counts AS c (day, shard, subscribers, confirmed, blacklisted)
  SELECT p.day, pg_backend_pid() % 16, p.subscribers, p.confirmed, p.blacklisted
  FROM per_day p WHERE p.subscribers <> 0 OR p.confirmed <> 0 OR p.blacklisted <> 0 ORDER BY 1
  ON CONFLICT (day, shard) DO UPDATE SET subscribers = c.subscribers + excluded.subscribers,
    confirmed = c.confirmed + excluded.confirmed, blacklisted = c.blacklisted + excluded.blacklisted;
  WITH d AS (
    SELECT x.email, x.confirmed, x.blacklisted, x.sign
    FROM unnest(emails, confirmeds, blacklisteds, signs) AS x(email, confirmed, blacklisted, sign)
    WHERE strpos(x.email, '@') > 0
  ), per_domain AS (
    SELECT lower(split_part(d.email, '@', 2)) AS domain,
           coalesce(sum(d.sign) FILTER (WHERE NOT d.blacklisted AND d.confirmed), 0) AS confirmed,
           coalesce(sum(d.sign) FILTER (WHERE NOT d.blacklisted AND NOT d.confirmed), 0) AS unconfirmed,
           coalesce(sum(d.sign) FILTER (WHERE d.blacklisted), 0) AS blacklisted
    FROM d GROUP BY 1
  )
  INSERT INTO subscriber_domain_counts AS c (domain, shard, confirmed, unconfirmed, blacklisted)
  SELECT p.domain, pg_backend_pid() % 16, p.confirmed, p.unconfirmed, p.blacklisted
  FROM per_domain p WHERE p.confirmed <> 0 OR p.unconfirmed <> 0 OR p.blacklisted <> 0 ORDER BY 1
  ON CONFLICT (domain, shard) DO UPDATE SET confirmed = c.confirmed + excluded.confirmed,
    unconfirmed = c.unconfirmed + excluded.unconfirmed, blacklisted = c.blacklisted + excluded.blacklisted;
END
$$;
CREATE OR REPLACE FUNCTION subscriber_rollups_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM subscriber_rollups_apply(array_agg(s.email), array_agg((s.created_at AT TIME ZONE 'utc')::date),
                                   array_agg(s.confirmed), array_agg(s.blacklisted), array_agg(-1))
  FROM old_subscribers s HAVING count(*) > 0;
  PERFORM local_parts_snapshot_dirty();
  RETURN NULL;
END
$$;

-- An update counts only the rows whose address, state or day of creation changed (most updates touch none): the old
-- values out, the new ones in.
CREATE OR REPLACE FUNCTION subscriber_rollups_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  emails text[]; days date[]; confirmeds boolean[]; blacklisteds boolean[]; signs int[];
  renamed int[];
BEGIN
  -- One pass over the statement's rows: what the domain rollup needs, and the rows whose address changed (for the
  -- local parts snapshot and the e-mail search's copy, 015_subscriber_email_search.sql).
  SELECT array_agg(x.email), array_agg(x.day), array_agg(x.confirmed), array_agg(x.blacklisted), array_agg(x.sign),
         array_agg(DISTINCT n.id) FILTER (WHERE o.email IS DISTINCT FROM n.email)
    INTO emails, days, confirmeds, blacklisteds, signs, renamed
  FROM old_subscribers o JOIN new_subscribers n ON n.id = o.id
  CROSS JOIN LATERAL (VALUES (o.email, (o.created_at AT TIME ZONE 'utc')::date, o.confirmed, o.blacklisted, -1),
                             (n.email, (n.created_at AT TIME ZONE 'utc')::date, n.confirmed, n.blacklisted, 1))
    AS x(email, day, confirmed, blacklisted, sign)
  WHERE o.email IS DISTINCT FROM n.email OR o.confirmed IS DISTINCT FROM n.confirmed
     OR o.blacklisted IS DISTINCT FROM n.blacklisted OR o.created_at IS DISTINCT FROM n.created_at;
  IF emails IS NOT NULL THEN
    PERFORM subscriber_rollups_apply(emails, days, confirmeds, blacklisteds, signs);
  END IF;
  IF renamed IS NOT NULL THEN
    PERFORM local_parts_snapshot_dirty();
    PERFORM subscriber_email_search_changed(renamed);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscriber_rollups_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM subscriber_domain_counts;
  DELETE FROM subscriber_daily_counts;
  PERFORM local_parts_snapshot_dirty();
  RETURN NULL;
END
$$;

-- The first time the triggers are installed, count what is already there (writes held off meanwhile).
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'subscribers_rollups_insert' AND tgrelid = 'subscribers'::regclass
  ) THEN
    LOCK TABLE subscribers IN SHARE MODE;
    DELETE FROM subscriber_domain_counts;
    INSERT INTO subscriber_domain_counts (domain, shard, confirmed, unconfirmed, blacklisted)
    SELECT lower(split_part(email, '@', 2)), 0, count(*) FILTER (WHERE NOT blacklisted AND confirmed),
           count(*) FILTER (WHERE NOT blacklisted AND NOT confirmed), count(*) FILTER (WHERE blacklisted)
    FROM subscribers WHERE strpos(email, '@') > 0 GROUP BY 1;
    DELETE FROM subscriber_daily_counts;
    INSERT INTO subscriber_daily_counts (day, shard, subscribers, confirmed, blacklisted)
    SELECT (created_at AT TIME ZONE 'utc')::date, 0, count(*), count(*) FILTER (WHERE confirmed), count(*) FILTER (WHERE blacklisted)
    FROM subscribers GROUP BY 1;
  END IF;
END
$$;

DROP TRIGGER IF EXISTS subscribers_rollups_insert ON subscribers;
CREATE TRIGGER subscribers_rollups_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_rollups_add();

DROP TRIGGER IF EXISTS subscribers_rollups_delete ON subscribers;
CREATE TRIGGER subscribers_rollups_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_rollups_remove();

DROP TRIGGER IF EXISTS subscribers_rollups_update ON subscribers;
CREATE TRIGGER subscribers_rollups_update AFTER UPDATE ON subscribers
  REFERENCING OLD TABLE AS old_subscribers NEW TABLE AS new_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_rollups_change();

DROP TRIGGER IF EXISTS subscribers_rollups_truncate ON subscribers;
CREATE TRIGGER subscribers_rollups_truncate AFTER TRUNCATE ON subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_rollups_clear();
