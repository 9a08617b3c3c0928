-- Referential integrity of deliveries, the table a campaign's audience is frozen into by the hundred thousand.
-- Row foreign keys checked and locked each inserted row's campaign and subscriber one by one: measured on a
-- 100,000-recipient freeze, 1.8 s of 4.8 s. As for subscriptions (012_subscriber_children.sql, whose
-- require_rows these use), statement-level triggers keep the same guarantees once per statement:
--
-- * On insert, the campaigns and subscribers the new rows name are locked FOR KEY SHARE in one query each, as a
--   foreign key locks them, so a concurrent delete waits for this transaction and cannot leave orphans; a parent
--   that is missing raises foreign_key_violation (23503).
-- * An update that moves a record to another campaign or subscriber (nothing in Mailroom does) is checked the same
--   way, by a row trigger limited to those two columns: claims and outcomes update deliveries all the time, and a
--   statement trigger with a transition table would copy every updated row for nothing.
-- * On delete of a campaign or a subscriber, their records go in one statement, as ON DELETE CASCADE did.

CREATE OR REPLACE FUNCTION deliveries_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('campaigns', ARRAY(SELECT DISTINCT campaign_id FROM new_rows));
  PERFORM require_rows('subscribers', ARRAY(SELECT DISTINCT subscriber_id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION deliveries_check_moved_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('campaigns', ARRAY[NEW.campaign_id]);
  PERFORM require_rows('subscribers', ARRAY[NEW.subscriber_id]);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION campaigns_cascade_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deliveries WHERE campaign_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscribers_cascade_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deliveries WHERE subscriber_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS deliveries_parents_insert ON deliveries;
CREATE TRIGGER deliveries_parents_insert AFTER INSERT ON deliveries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION deliveries_check_parents();

DROP TRIGGER IF EXISTS deliveries_parents_update ON deliveries;
CREATE TRIGGER deliveries_parents_update AFTER UPDATE OF campaign_id, subscriber_id ON deliveries
  FOR EACH ROW
  WHEN (OLD.campaign_id IS DISTINCT FROM NEW.campaign_id OR OLD.subscriber_id IS DISTINCT FROM NEW.subscriber_id)
  EXECUTE FUNCTION deliveries_check_moved_parents();

DROP TRIGGER IF EXISTS campaigns_cascade_deliveries ON campaigns;
CREATE TRIGGER campaigns_cascade_deliveries AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_cascade_deliveries();

-- A second delete trigger on subscribers, next to 012's subscribers_cascade_delete (which owns the subscription
-- area's children), so each area's cascade lives with its tables.
DROP TRIGGER IF EXISTS subscribers_cascade_deliveries ON subscribers;
CREATE TRIGGER subscribers_cascade_deliveries AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_cascade_deliveries();
