-- The bounce counts shared by every bounce of a campaign (or rule), folded in a moment after the bounces.
--
-- A bounce is matched, decided and written in TypeScript (src/messaging/bounce-processing.ts, the decision in
-- bounce-decision.ts, the SQL in bounce-processing.repository.ts). Until issue 16 a PL/pgSQL function
-- record_bounce(jsonb) did it here; it is dropped at start, so a database upgraded from then keeps no stale copy.
--
-- Durability: the bounce's transaction commits synchronously, like every other: a bounce answered 202 or moved out
-- of the mailbox is on disk, with all its effects. What made that slow was the three rows every bounce of a campaign
-- shares — campaigns.bounce_count, its campaign_counters row and the matched rule's bounce_rules.match_count:
-- updated by each bounce, each transaction held their locks through its WAL flush and bounces committed one flush at
-- a time (about 300 a second on the development VM). So a bounce appends one row to bounce_count_increments (no
-- shared row, no lock anyone waits for), and fold_bounce_counts() below adds the pending rows to the three counters
-- a moment later (src/messaging/bounce-counts.ts runs it every 500 ms in a process that recorded bounces, at start
-- and at a graceful stop). The figures are fresh within about a second; the increments are as durable as the bounce,
-- and one left by a crashed process is folded by the next fold of any process.

DROP FUNCTION IF EXISTS record_bounce(jsonb);

-- Moves every pending increment into campaigns.bounce_count, campaign_counters.bounces and bounce_rules.match_count
-- in one transaction; answers how many increments it took. Any process may call it at any time: the increments are
-- taken by DELETE … RETURNING, so each is added once however many folds run, and a transaction-level advisory lock
-- runs folds one after the other, so two never wait on each other's rows (nor deadlock updating several campaigns in
-- different orders); the second sees what the first left. Increments of a campaign or rule deleted meanwhile are
-- dropped (UPDATE … FROM finds no row; the counters row is only written for a campaign just updated, whose row lock
-- keeps it from being deleted before this commits).
CREATE OR REPLACE FUNCTION fold_bounce_counts() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_taken integer;
BEGIN
  PERFORM pg_advisory_xact_lock(7342, 0);
  WITH taken AS (
    DELETE FROM bounce_count_increments RETURNING campaign_id, rule_id
  ), per_campaign AS (
    SELECT campaign_id, count(*) AS n FROM taken WHERE campaign_id IS NOT NULL GROUP BY campaign_id
  ), per_rule AS (
    SELECT rule_id, count(*) AS n FROM taken WHERE rule_id IS NOT NULL GROUP BY rule_id
  ), campaigns_done AS (
    UPDATE campaigns c SET bounce_count = c.bounce_count + p.n
    FROM per_campaign p WHERE c.id = p.campaign_id
    RETURNING c.id, p.n
  ), counters_done AS (
    INSERT INTO campaign_counters AS k (campaign_id, bounces)
    SELECT id, n FROM campaigns_done
    ON CONFLICT (campaign_id) DO UPDATE SET bounces = k.bounces + excluded.bounces, updated_at = now()
  ), rules_done AS (
    UPDATE bounce_rules r SET match_count = r.match_count + p.n
    FROM per_rule p WHERE r.id = p.rule_id
  )
  SELECT count(*) INTO v_taken FROM taken;
  RETURN v_taken;
END
$$;
