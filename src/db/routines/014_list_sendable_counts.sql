-- Sendable members per list (table list_sendable_counts, see schema/subscription.ts): members who are confirmed,
-- not blacklisted, not disabled and whose address is not in the blacklist table, the rule the sender freezes an
-- audience by (src/sending/audience.repository.ts). The send confirmation of a campaign to one list reads these
-- rows instead of counting a million members. Kept like list_member_counts (010): statement-level triggers, deltas
-- per list into one of 16 shards chosen by the writing backend. What moves a member in or out of the count:
--
-- * subscriptions inserted, deleted or moved (count the rows whose subscriber is sendable now);
-- * a subscriber's flags or address changing (only rows whose flags or lower-cased address changed are looked at);
-- * a subscriber deleted (counted before 012's cascade removes its subscriptions: the trigger name sorts first);
-- * an address added to or removed from the blacklist table.
--
-- Races: a subscription written while another transaction changes the same subscriber's flags would each miss the
-- other's uncommitted row and leave the count off by one for good. So the subscription triggers first lock their
-- subscribers FOR SHARE (which waits for an UPDATE of them to commit, and makes a later UPDATE wait), and the
-- blacklist triggers lock theirs FOR NO KEY UPDATE, each in its own statement; the counting statement that follows
-- takes a new snapshot (READ COMMITTED), so it sees what the other transaction committed. A subscriber whose row
-- version this transaction wrote is not locked: no other transaction can change it before this one commits (see
-- require_rows in 012), and an import's subscriptions name the subscribers it has just inserted (issue 24).

-- Whether a subscriber with these flags and this address gets mail (the blacklist table as it is now). Called per
-- row, so only where few rows are looked at (changed subscribers); the bulk paths spell the rule out as a join.
CREATE OR REPLACE FUNCTION subscriber_sendable(confirmed boolean, blacklisted boolean, disabled boolean, email text)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT confirmed AND NOT blacklisted AND NOT disabled
     AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(subscriber_sendable.email))
$$;

-- Subscriptions: the rows whose subscriber is sendable now, per list that still exists. A subscriber deleted by this
-- statement's parent is no longer visible here; the subscribers' delete trigger has taken it off already.
--
-- Plans: PL/pgSQL plans each statement once per session and keeps the plan. A session's first import finds the
-- tables nearly empty, so the kept plan read subscribers by sequential scan (or hashed every sendable one) — and went
-- on doing so while the import grew the table by a million rows in its own transaction: each batch read everything
-- written before it, and the import's cost grew with the square of its size (issue 24). So every function below that
-- reads subscribers, subscriptions or the blacklist runs with `enable_seqscan = off`, and reaches each subscriber
-- through an index: the lock by `id = ANY (…)`, the test by a correlated subquery per transition row, which the
-- planner cannot turn into a join over the whole table.
CREATE OR REPLACE FUNCTION list_sendable_counts_add() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM 1 FROM subscribers WHERE id = ANY (ARRAY(SELECT subscriber_id FROM new_members)) AND xmin <> pg_current_xact_id()::xid
    FOR SHARE;
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, count(*)
  FROM new_members m
  WHERE (SELECT s.confirmed AND NOT s.blacklisted AND NOT s.disabled
               AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(s.email))
         FROM subscribers s WHERE s.id = m.subscriber_id)
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION list_sendable_counts_remove() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM 1 FROM subscribers WHERE id = ANY (ARRAY(SELECT subscriber_id FROM old_members)) AND xmin <> pg_current_xact_id()::xid
    FOR SHARE;
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, -count(*)
  FROM old_members m
  WHERE (SELECT s.confirmed AND NOT s.blacklisted AND NOT s.disabled
               AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(s.email))
         FROM subscribers s WHERE s.id = m.subscriber_id)
    AND EXISTS (SELECT 1 FROM lists l WHERE l.id = m.list_id)
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION list_sendable_counts_move() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM 1 FROM subscribers
  WHERE id = ANY (ARRAY(SELECT subscriber_id FROM new_members UNION SELECT subscriber_id FROM old_members))
    AND xmin <> pg_current_xact_id()::xid FOR SHARE;
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT d.list_id, pg_backend_pid() % 16, sum(d.delta)
  FROM (
    SELECT list_id, subscriber_id, 1 AS delta FROM new_members
    UNION ALL
    SELECT list_id, subscriber_id, -1 AS delta FROM old_members
  ) d
  WHERE (SELECT s.confirmed AND NOT s.blacklisted AND NOT s.disabled
               AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(s.email))
         FROM subscribers s WHERE s.id = d.subscriber_id)
    AND EXISTS (SELECT 1 FROM lists l WHERE l.id = d.list_id)
  GROUP BY d.list_id
  HAVING sum(d.delta) <> 0
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

-- Subscribers whose flags or lower-cased address changed: +1 per list for those who became sendable, -1 for those
-- who stopped being. An update that touches neither (bounce counts, timestamps) joins and writes nothing.
CREATE OR REPLACE FUNCTION list_sendable_counts_subscriber_update() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, sum(d.delta)
  FROM (
    SELECT n.id,
           subscriber_sendable(n.confirmed, n.blacklisted, n.disabled, n.email)::int
           - subscriber_sendable(o.confirmed, o.blacklisted, o.disabled, o.email)::int AS delta
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.confirmed, o.blacklisted, o.disabled, lower(o.email))
          IS DISTINCT FROM (n.confirmed, n.blacklisted, n.disabled, lower(n.email))
  ) d JOIN subscriptions m ON m.subscriber_id = d.id
  WHERE d.delta <> 0
  GROUP BY m.list_id
  HAVING sum(d.delta) <> 0
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

-- Deleted subscribers who were sendable, while their subscriptions are still there (before 012's cascade).
CREATE OR REPLACE FUNCTION list_sendable_counts_subscriber_delete() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, -count(*)
  FROM old_rows o JOIN subscriptions m ON m.subscriber_id = o.id
  WHERE o.confirmed AND NOT o.blacklisted AND NOT o.disabled
    AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(o.email))
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

-- Addresses added to (sign -1) or removed from (sign +1) the blacklist table: the subscribers with such an address
-- whose flags make them sendable, per list. The blacklist holds an address once (unique on lower(email)), so an
-- added address was not listed before and a removed one is not listed any more.
CREATE OR REPLACE FUNCTION list_sendable_counts_blacklist_insert() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM 1 FROM subscribers s WHERE lower(s.email) IN (SELECT lower(email) FROM new_entries) FOR NO KEY UPDATE;
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, -count(*)
  FROM new_entries e
  JOIN subscribers s ON lower(s.email) = lower(e.email)
  JOIN subscriptions m ON m.subscriber_id = s.id
  WHERE s.confirmed AND NOT s.blacklisted AND NOT s.disabled
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION list_sendable_counts_blacklist_delete() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM 1 FROM subscribers s WHERE lower(s.email) IN (SELECT lower(email) FROM old_entries) FOR NO KEY UPDATE;
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, count(*)
  FROM old_entries e
  JOIN subscribers s ON lower(s.email) = lower(e.email)
  JOIN subscriptions m ON m.subscriber_id = s.id
  WHERE s.confirmed AND NOT s.blacklisted AND NOT s.disabled
    AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(s.email))
  GROUP BY m.list_id
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

-- An entry whose address changes: the old address counts back in, the new one out.
CREATE OR REPLACE FUNCTION list_sendable_counts_blacklist_update() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM 1 FROM subscribers s
  WHERE lower(s.email) IN (SELECT lower(email) FROM old_entries UNION SELECT lower(email) FROM new_entries) FOR NO KEY UPDATE;
  INSERT INTO list_sendable_counts AS c (list_id, shard, members)
  SELECT m.list_id, pg_backend_pid() % 16, sum(d.delta)
  FROM (
    SELECT a.address, a.delta
    FROM old_entries o JOIN new_entries n ON n.id = o.id
    CROSS JOIN LATERAL (VALUES (lower(n.email), -1), (lower(o.email), 1)) AS a(address, delta)
    WHERE lower(o.email) <> lower(n.email)
  ) d
  JOIN subscribers s ON lower(s.email) = d.address
  JOIN subscriptions m ON m.subscriber_id = s.id
  WHERE s.confirmed AND NOT s.blacklisted AND NOT s.disabled
    AND (d.delta < 0 OR NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = d.address))
  GROUP BY m.list_id
  HAVING sum(d.delta) <> 0
  ON CONFLICT (list_id, shard) DO UPDATE SET members = c.members + excluded.members;
  RETURN NULL;
END
$$;

-- Counts everything again: at installation, and after a TRUNCATE of any of the three tables (tests, restores).
CREATE OR REPLACE FUNCTION list_sendable_counts_recount() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM list_sendable_counts;
  INSERT INTO list_sendable_counts (list_id, shard, members)
  SELECT m.list_id, 0, count(*)
  FROM subscriptions m JOIN subscribers s ON s.id = m.subscriber_id
  WHERE s.confirmed AND NOT s.blacklisted AND NOT s.disabled
    AND NOT EXISTS (SELECT 1 FROM blacklist b WHERE lower(b.email) = lower(s.email))
  GROUP BY m.list_id;
END
$$;

CREATE OR REPLACE FUNCTION list_sendable_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM list_sendable_counts_recount();
  RETURN NULL;
END
$$;

DO $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_trigger WHERE tgname = 'subscriptions_sendable_insert' AND tgrelid = 'subscriptions'::regclass
  ) THEN
    LOCK TABLE subscriptions, subscribers, blacklist IN SHARE MODE;
    PERFORM list_sendable_counts_recount();
  END IF;
END
$$;

DROP TRIGGER IF EXISTS subscriptions_sendable_insert ON subscriptions;
CREATE TRIGGER subscriptions_sendable_insert AFTER INSERT ON subscriptions
  REFERENCING NEW TABLE AS new_members FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_add();
DROP TRIGGER IF EXISTS subscriptions_sendable_delete ON subscriptions;
CREATE TRIGGER subscriptions_sendable_delete AFTER DELETE ON subscriptions
  REFERENCING OLD TABLE AS old_members FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_remove();
DROP TRIGGER IF EXISTS subscriptions_sendable_update ON subscriptions;
CREATE TRIGGER subscriptions_sendable_update AFTER UPDATE ON subscriptions
  REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_move();
DROP TRIGGER IF EXISTS subscriptions_sendable_truncate ON subscriptions;
CREATE TRIGGER subscriptions_sendable_truncate AFTER TRUNCATE ON subscriptions
  FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_truncated();

DROP TRIGGER IF EXISTS subscribers_sendable_update ON subscribers;
CREATE TRIGGER subscribers_sendable_update AFTER UPDATE ON subscribers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_subscriber_update();
-- Named to sort before subscribers_cascade_delete (012): triggers of one event fire in name order.
DROP TRIGGER IF EXISTS subscribers_a_sendable_delete ON subscribers;
CREATE TRIGGER subscribers_a_sendable_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_subscriber_delete();
DROP TRIGGER IF EXISTS subscribers_sendable_truncate ON subscribers;
CREATE TRIGGER subscribers_sendable_truncate AFTER TRUNCATE ON subscribers
  FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_truncated();

DROP TRIGGER IF EXISTS blacklist_sendable_insert ON blacklist;
CREATE TRIGGER blacklist_sendable_insert AFTER INSERT ON blacklist
  REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_blacklist_insert();
DROP TRIGGER IF EXISTS blacklist_sendable_delete ON blacklist;
CREATE TRIGGER blacklist_sendable_delete AFTER DELETE ON blacklist
  REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_blacklist_delete();
DROP TRIGGER IF EXISTS blacklist_sendable_update ON blacklist;
CREATE TRIGGER blacklist_sendable_update AFTER UPDATE ON blacklist
  REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries
  FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_blacklist_update();
DROP TRIGGER IF EXISTS blacklist_sendable_truncate ON blacklist;
CREATE TRIGGER blacklist_sendable_truncate AFTER TRUNCATE ON blacklist
  FOR EACH STATEMENT EXECUTE FUNCTION list_sendable_counts_truncated();
