-- subscriber_engagement (schema/segments.ts): per subscriber, the latest sent_at, first_human_opened_at and
-- first_clicked_at among their delivery records, for the segment conditions on any campaign
-- (src/segments/segment.compile.ts). Kept here, by triggers on deliveries, so every writer keeps it: the sender's
-- outcomes (sent_at), the tracking flush's firsts, a resend, a test's fixture.
--
-- * Inserts: once per statement, from the transition table that 021's parent check has the statement collect anyway
--   (the triggers of one event share it), so the freeze's chunks of records without any of the times cost a scan of
--   it, and a bulk insert of sent records (an import of history, a bench seed) one grouped upsert.
-- * Updates: a row trigger limited to the three columns, with a WHEN clause: claims and outcomes update deliveries all
--   the time, a statement trigger would copy every updated row, and a WHEN is tested before an after-trigger is
--   queued, so only a record whose time changed calls the function (a send, a first open, a first click).
-- * An upsert that only writes when a time moves forward (greatest() ignores nulls). It locks the subscriber's row
--   until the writer commits; the writers' transactions are short (one outcome batch, one flush), and the rare
--   deadlock between a flush and a sender batch that reach two shared subscribers in opposite orders is retried by
--   both (the event buffer keeps its events and retries; recordOutcomes runs withOneRetry).
-- * A removed record (its campaign or subscriber deleted) recomputes its subscribers' rows from what remains, once
--   per statement; a subscriber with nothing left loses the row. Without sequential scans: the plan is kept for
--   the session, and would be made while the tables are small (see README).

CREATE OR REPLACE FUNCTION deliveries_note_engagement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_engagement AS e (subscriber_id, last_sent_at, last_opened_at, last_clicked_at)
  VALUES (NEW.subscriber_id, NEW.sent_at, NEW.first_human_opened_at, NEW.first_clicked_at)
  ON CONFLICT (subscriber_id) DO UPDATE SET
    last_sent_at = greatest(e.last_sent_at, excluded.last_sent_at),
    last_opened_at = greatest(e.last_opened_at, excluded.last_opened_at),
    last_clicked_at = greatest(e.last_clicked_at, excluded.last_clicked_at)
  WHERE excluded.last_sent_at > coalesce(e.last_sent_at, '-infinity')
     OR excluded.last_opened_at > coalesce(e.last_opened_at, '-infinity')
     OR excluded.last_clicked_at > coalesce(e.last_clicked_at, '-infinity');
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION deliveries_note_inserted_engagement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO subscriber_engagement AS e (subscriber_id, last_sent_at, last_opened_at, last_clicked_at)
  SELECT subscriber_id, max(sent_at), max(first_human_opened_at), max(first_clicked_at)
  FROM new_rows
  WHERE sent_at IS NOT NULL OR first_human_opened_at IS NOT NULL OR first_clicked_at IS NOT NULL
  GROUP BY subscriber_id
  ORDER BY subscriber_id
  ON CONFLICT (subscriber_id) DO UPDATE SET
    last_sent_at = greatest(e.last_sent_at, excluded.last_sent_at),
    last_opened_at = greatest(e.last_opened_at, excluded.last_opened_at),
    last_clicked_at = greatest(e.last_clicked_at, excluded.last_clicked_at)
  WHERE excluded.last_sent_at > coalesce(e.last_sent_at, '-infinity')
     OR excluded.last_opened_at > coalesce(e.last_opened_at, '-infinity')
     OR excluded.last_clicked_at > coalesce(e.last_clicked_at, '-infinity');
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION deliveries_recount_engagement() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  DELETE FROM subscriber_engagement WHERE subscriber_id IN (SELECT subscriber_id FROM old_rows);
  INSERT INTO subscriber_engagement (subscriber_id, last_sent_at, last_opened_at, last_clicked_at)
  SELECT d.subscriber_id, max(d.sent_at), max(d.first_human_opened_at), max(d.first_clicked_at)
  FROM deliveries d
  WHERE d.subscriber_id IN (SELECT subscriber_id FROM old_rows)
    AND (d.sent_at IS NOT NULL OR d.first_human_opened_at IS NOT NULL OR d.first_clicked_at IS NOT NULL)
  GROUP BY d.subscriber_id;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS deliveries_engagement_insert ON deliveries;
CREATE TRIGGER deliveries_engagement_insert AFTER INSERT ON deliveries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION deliveries_note_inserted_engagement();

DROP TRIGGER IF EXISTS deliveries_engagement_update ON deliveries;
CREATE TRIGGER deliveries_engagement_update AFTER UPDATE OF sent_at, first_human_opened_at, first_clicked_at ON deliveries
  FOR EACH ROW
  WHEN (NEW.sent_at IS DISTINCT FROM OLD.sent_at
     OR NEW.first_human_opened_at IS DISTINCT FROM OLD.first_human_opened_at
     OR NEW.first_clicked_at IS DISTINCT FROM OLD.first_clicked_at)
  EXECUTE FUNCTION deliveries_note_engagement();

DROP TRIGGER IF EXISTS deliveries_engagement_delete ON deliveries;
CREATE TRIGGER deliveries_engagement_delete AFTER DELETE ON deliveries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION deliveries_recount_engagement();
