-- The number of subscribers (table subscriber_counts), kept by statement-level triggers on subscribers reading the
-- statement's transition table, in 16 shards chosen by the writing backend, as 010_list_member_counts.sql does for
-- list members and for the same reason: an import of many subscribers writes one row once, and concurrent imports
-- rarely wait on each other.

CREATE OR REPLACE FUNCTION subscriber_count_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_counts AS c (shard, subscribers)
  SELECT pg_backend_pid() % 16, count(*) FROM new_subscribers HAVING count(*) > 0
  ON CONFLICT (shard) DO UPDATE SET subscribers = c.subscribers + excluded.subscribers;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscriber_count_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_counts AS c (shard, subscribers)
  SELECT pg_backend_pid() % 16, -count(*) FROM old_subscribers HAVING count(*) > 0
  ON CONFLICT (shard) DO UPDATE SET subscribers = c.subscribers + excluded.subscribers;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscriber_count_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM subscriber_counts;
  RETURN NULL;
END
$$;

-- The first time the triggers are installed, count what is already there (writes held off meanwhile).
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'subscribers_count_insert' AND tgrelid = 'subscribers'::regclass
  ) THEN
    LOCK TABLE subscribers IN SHARE MODE;
    DELETE FROM subscriber_counts;
    INSERT INTO subscriber_counts (shard, subscribers) SELECT 0, count(*) FROM subscribers;
  END IF;
END
$$;

DROP TRIGGER IF EXISTS subscribers_count_insert ON subscribers;
CREATE TRIGGER subscribers_count_insert AFTER INSERT ON subscribers
  REFERENCING NEW TABLE AS new_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_count_add();

DROP TRIGGER IF EXISTS subscribers_count_delete ON subscribers;
CREATE TRIGGER subscribers_count_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_count_remove();

DROP TRIGGER IF EXISTS subscribers_count_truncate ON subscribers;
CREATE TRIGGER subscribers_count_truncate AFTER TRUNCATE ON subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION subscriber_count_clear();
