-- Referential integrity of opens and clicks, which the tracking flush writes a few thousand rows per statement
-- (src/tracking/event-flush.repository.ts). As in 012_subscriber_children.sql (whose
-- require_rows this uses), a foreign key would check and lock every row on its own; these statement-level triggers
-- give the same guarantees once per statement:
--
-- * On insert, the subscribers, campaigns (and links) the new rows name are locked FOR KEY SHARE in one query each,
--   so a concurrent delete waits for the flush and leaves no orphans; a missing parent raises 23503. Event rows are
--   never updated, so there is no update trigger.
-- * On delete of a subscriber, a campaign or a link, its opens and clicks go in one statement (ON DELETE CASCADE).

CREATE OR REPLACE FUNCTION opens_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('subscribers', ARRAY(SELECT DISTINCT subscriber_id FROM new_rows));
  PERFORM require_rows('campaigns', ARRAY(SELECT DISTINCT campaign_id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION clicks_check_parents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM require_rows('subscribers', ARRAY(SELECT DISTINCT subscriber_id FROM new_rows));
  PERFORM require_rows('campaigns', ARRAY(SELECT DISTINCT campaign_id FROM new_rows));
  PERFORM require_rows('links', ARRAY(SELECT DISTINCT link_id FROM new_rows));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION subscribers_cascade_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM opens WHERE subscriber_id IN (SELECT id FROM old_rows);
  DELETE FROM clicks WHERE subscriber_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION campaigns_cascade_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM opens WHERE campaign_id IN (SELECT id FROM old_rows);
  DELETE FROM clicks WHERE campaign_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION links_cascade_clicks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM clicks WHERE link_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS opens_parents_insert ON opens;
CREATE TRIGGER opens_parents_insert AFTER INSERT ON opens
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION opens_check_parents();

DROP TRIGGER IF EXISTS clicks_parents_insert ON clicks;
CREATE TRIGGER clicks_parents_insert AFTER INSERT ON clicks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION clicks_check_parents();

DROP TRIGGER IF EXISTS subscribers_cascade_events ON subscribers;
CREATE TRIGGER subscribers_cascade_events AFTER DELETE ON subscribers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION subscribers_cascade_events();

DROP TRIGGER IF EXISTS campaigns_cascade_events ON campaigns;
CREATE TRIGGER campaigns_cascade_events AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_cascade_events();

DROP TRIGGER IF EXISTS links_cascade_clicks ON links;
CREATE TRIGGER links_cascade_clicks AFTER DELETE ON links
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION links_cascade_clicks();

-- Replaced by require_rows('subscribers', …) everywhere; removed from databases that still have it.
DROP FUNCTION IF EXISTS require_subscribers(integer[]);
