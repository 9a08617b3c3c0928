-- Referential integrity of the three tables an import fills by the million: subscriptions,
-- subscriber_attribute_values and subscriber_history. A foreign key checks every inserted row on its own (one
-- lookup and one row lock through the executor per row); measured on a 200,000-row import that was more than half
-- of the database's time. These statement-level triggers keep the same guarantees once per statement:
--
-- * On insert (and on an update that moves a row to another parent) the parents the new rows name are locked
--   FOR KEY SHARE in one query, as a foreign key locks them, so a concurrent delete waits for this transaction and
--   cannot leave orphans; a parent that is missing raises foreign_key_violation (23503), as a foreign key does.
-- * On delete of a subscriber, a list or an attribute definition, the rows that named it go in one statement,
--   as ON DELETE CASCADE did.

-- The parents named by `ids` in table `tbl`, locked FOR KEY SHARE in one query; foreign_key_violation when one is
-- missing. The table name comes from the trigger functions below, never from data.
--
-- A parent whose row version this transaction wrote (xmin is its own transaction id) is counted, not locked: no
-- other transaction can delete it before this one ends, since a row this one inserted is invisible to the others and
-- one it updated is held by that update until the commit. An import's subscriptions, attribute values and history
-- name the subscribers it has just inserted, so it locks nothing; locking them cost a lock record in the WAL and a
-- dirtied page per subscriber, for each of the three tables (issue 24). A row written inside a savepoint carries the
-- savepoint's id and is locked as before.
CREATE OR REPLACE FUNCTION require_rows(tbl regclass, ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  wanted integer;
  own integer;
  locked integer := 0;
BEGIN
  SELECT count(DISTINCT id) INTO wanted FROM unnest(ids) AS id;
  EXECUTE format('SELECT count(*) FROM %s WHERE id = ANY ($1) AND xmin = pg_current_xact_id()::xid', tbl)
    INTO own USING ids;
  IF own < wanted THEN
    EXECUTE format(
      'SELECT count(*) FROM (SELECT 1 FROM %s WHERE id = ANY ($1) AND xmin <> pg_current_xact_id()::xid FOR KEY SHARE) held',
      tbl) INTO locked USING ids;
  END IF;
  IF own + locked <> wanted THEN
    RAISE EXCEPTION 'a row of % these rows refer to does not exist', tbl USING ERRCODE = 'foreign_key_violation';
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION subscriptions_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('subscribers', ARRAY(SELECT DISTINCT subscriber_id FROM new_rows));
  PERFORM require_rows('lists', ARRAY(SELECT DISTINCT list_id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION attribute_values_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('subscribers', ARRAY(SELECT DISTINCT subscriber_id FROM new_rows));
  PERFORM require_rows('attribute_definitions', ARRAY(SELECT DISTINCT definition_id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION history_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('subscribers', ARRAY(SELECT DISTINCT subscriber_id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscribers_cascade_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM subscriptions WHERE subscriber_id IN (SELECT id FROM old_rows);
  DELETE FROM subscriber_attribute_values WHERE subscriber_id IN (SELECT id FROM old_rows);
  DELETE FROM subscriber_history WHERE subscriber_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION lists_cascade_subscriptions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM subscriptions WHERE list_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION attribute_definitions_cascade_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM subscriber_attribute_values WHERE definition_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

-- A transition table cannot be named by a trigger for more than one event, so insert and update get one each.
DROP TRIGGER IF EXISTS subscriptions_parents_insert ON subscriptions;
CREATE TRIGGER subscriptions_parents_insert AFTER INSERT ON subscriptions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_check_parents();
DROP TRIGGER IF EXISTS subscriptions_parents_update ON subscriptions;
CREATE TRIGGER subscriptions_parents_update AFTER UPDATE ON subscriptions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_check_parents();

DROP TRIGGER IF EXISTS attribute_values_parents_insert ON subscriber_attribute_values;
CREATE TRIGGER attribute_values_parents_insert AFTER INSERT ON subscriber_attribute_values
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribute_values_check_parents();
DROP TRIGGER IF EXISTS attribute_values_parents_update ON subscriber_attribute_values;
CREATE TRIGGER attribute_values_parents_update AFTER UPDATE ON subscriber_attribute_values
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribute_values_check_parents();

DROP TRIGGER IF EXISTS history_parents_insert ON subscriber_history;
CREATE TRIGGER history_parents_insert AFTER INSERT ON subscriber_history
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION history_check_parents();

DROP TRIGGER IF EXISTS subscribers_cascade_delete ON subscribers;
CREATE TRIGGER subscribers_cascade_delete AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_cascade_children();

DROP TRIGGER IF EXISTS lists_cascade_delete ON lists;
CREATE TRIGGER lists_cascade_delete AFTER DELETE ON lists
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lists_cascade_subscriptions();

DROP TRIGGER IF EXISTS attribute_definitions_cascade_delete ON attribute_definitions;
CREATE TRIGGER attribute_definitions_cascade_delete AFTER DELETE ON attribute_definitions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attribute_definitions_cascade_values();
