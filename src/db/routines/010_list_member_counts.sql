-- Members per list (table list_member_counts, see schema/subscription.ts), kept by statement-level triggers on
-- subscriptions. A statement that adds 5,000 members to one list writes one counter row once, from its transition
-- table, instead of 5,000 times. Deltas go to one of 16 shards per list, chosen by the writing backend, so concurrent
-- imports into the same list rarely wait on each other's row lock; a count is the sum of a list's shards.
-- Rows of a list being deleted are not counted back in: the list's counter rows go with it (foreign-key cascade),
-- and the EXISTS keeps the delete of its subscriptions (012_subscriber_children.sql's cascade trigger, which runs
-- after the list row is gone) from writing new ones.

CREATE OR REPLACE FUNCTION list_member_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO list_member_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, count(*)
  FROM new_members m
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION list_member_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO list_member_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, -count(*)
  FROM old_members m
  WHERE EXISTS (SELECT 1 FROM lists l WHERE l.id = m.list_id)
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

-- An update that moves subscriptions between lists; updates that keep list_id net to zero and write nothing.
CREATE OR REPLACE FUNCTION list_member_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO list_member_counts AS c (list_id, shard, members)
  SELECT d.list_id, pg_backend_pid() % 16, sum(d.delta)
  FROM (
    SELECT list_id, 1 AS delta FROM new_members
    UNION ALL
    SELECT list_id, -1 AS delta FROM old_members
  ) d
  WHERE EXISTS (SELECT 1 FROM lists l WHERE l.id = d.list_id)
  GROUP BY d.list_id
  HAVING sum(d.delta) <> 0
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION list_member_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_member_counts;
  RETURN NULL;
END
$$;

-- The first time the triggers are installed, count what is already there (writes held off meanwhile); after that
-- the triggers keep the counts, and this costs one catalogue lookup per start.
DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'subscriptions_count_insert' AND tgrelid = 'subscriptions'::regclass
  ) THEN
    LOCK TABLE subscriptions IN SHARE MODE;
    DELETE FROM list_member_counts;
    INSERT INTO list_member_counts (list_id, shard, members)
    SELECT list_id, 0, count(*) FROM subscriptions GROUP BY list_id;
  END IF;
END
$$;

DROP TRIGGER IF EXISTS subscriptions_count_insert ON subscriptions;
CREATE TRIGGER subscriptions_count_insert AFTER INSERT ON subscriptions
  REFERENCING NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION list_member_counts_add();

DROP TRIGGER IF EXISTS subscriptions_count_delete ON subscriptions;
CREATE TRIGGER subscriptions_count_delete AFTER DELETE ON subscriptions
  REFERENCING OLD TABLE AS old_members
  FOR EACH STATEMENT EXECUTE FUNCTION list_member_counts_remove();

DROP TRIGGER IF EXISTS subscriptions_count_update ON subscriptions;
CREATE TRIGGER subscriptions_count_update AFTER UPDATE ON subscriptions
  REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION list_member_counts_move();

DROP TRIGGER IF EXISTS subscriptions_count_truncate ON subscriptions;
CREATE TRIGGER subscriptions_count_truncate AFTER TRUNCATE ON subscriptions
  FOR EACH STATEMENT EXECUTE FUNCTION list_member_counts_clear();
