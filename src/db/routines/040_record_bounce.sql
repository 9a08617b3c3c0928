-- Bounce processing's write path: one call matches a bounce to what was sent and records it with all its effects.
-- src/messaging/bounce-processing.ts reads the message (what it is, the returned headers), picks the bounce rule and
-- says whether it counts; this function matches, stores and acts, atomically, deciding what depends on the
-- subscriber's current state on the row it locks. Bounces arrive by the thousand: as separate statements each one
-- cost ten round trips and a query plan each; a PL/pgSQL function is one round trip and keeps its plans per session.
--
-- p (jsonb): key (the bounce message's Message-ID or digest), kind, comment, header, data; the returned headers
-- h_delivery_id, h_campaign_id, h_subscriber_uid, h_message_id and the failed address recipient; counted,
-- immediate, automatic, unconfirm_threshold, blacklist_threshold; the rule: rule_id, rule_blacklist,
-- rule_blacklist_recipient, rule_unconfirm, rule_confirm, rule_delete_subscriber, rule_delete_bounce; and the texts
-- first_summary, description, suffix, about, rule_reason, threshold_reason, system_info, in which {id} is the bounce
-- id, {campaign} "campaign <id>" or "no campaign", {n} the consecutive bounces.
-- Answers what was matched and done; `duplicate` when the message was processed before (nothing is done again).
--
-- Matching, in order of certainty: the delivery id, trusted only when the campaign and subscriber headers, if
-- present, agree with it; campaign + subscriber unique id (a test send has no delivery); the returned Message-ID
-- equal to a delivery's; the failed address equal to a subscriber's (campaign unknown).
--
-- Durability: the transaction commits synchronously, like every other: a bounce answered 202 or moved out of the
-- mailbox is on disk, with all its effects. What made that slow was the three rows every bounce of a campaign
-- shares — campaigns.bounce_count, its campaign_counters row and the matched rule's bounce_rules.match_count:
-- updated here, each transaction held their locks through its WAL flush and bounces committed one flush at a time
-- (about 300 a second on the development VM). So those counts are not updated here: the bounce appends one row to
-- bounce_count_increments (no shared row, no lock anyone waits for), and fold_bounce_counts() below adds the
-- pending rows to the three counters a moment later (src/messaging/bounce-counts.ts runs it every 500 ms in a
-- process that recorded bounces, at start and at a graceful stop). The figures are fresh within about a second;
-- the increments are as durable as the bounce, and one left by a crashed process is folded by the next fold of any
-- process. Everything per subscriber (bounce_count, confirmed, blacklisted, history, blacklist) stays immediate.
--
-- Consecutive bounces: the subscriber's latest sent deliveries, newest first, counted while each has a bounce (hard,
-- soft or unknown; several bounces of one delivery count once); deliveries not sent yet are skipped.

DROP FUNCTION IF EXISTS record_bounce(jsonb);
CREATE FUNCTION record_bounce(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_id bigint;
  v_by text;
  v_sub integer;
  v_delivery bigint;
  v_campaign integer;
  v_status text;
  v_h_delivery bigint := (p->>'h_delivery_id')::bigint;
  v_h_campaign integer := (p->>'h_campaign_id')::integer;
  v_h_uid text := p->>'h_subscriber_uid';
  v_h_message_id text := p->>'h_message_id';
  v_recipient text := p->>'recipient';
  v_rule integer := (p->>'rule_id')::integer;
  v_counted boolean := (p->>'counted')::boolean;
  v_immediate boolean := (p->>'immediate')::boolean;
  v_automatic boolean := (p->>'automatic')::boolean;
  v_ut integer := (p->>'unconfirm_threshold')::integer;
  v_bt integer := (p->>'blacklist_threshold')::integer;
  v_r_blacklist boolean := coalesce((p->>'rule_blacklist')::boolean, false);
  v_r_blacklist_recipient boolean := coalesce((p->>'rule_blacklist_recipient')::boolean, false);
  v_r_unconfirm boolean := coalesce((p->>'rule_unconfirm')::boolean, false);
  v_r_confirm boolean := coalesce((p->>'rule_confirm')::boolean, false);
  v_r_delete_subscriber boolean := coalesce((p->>'rule_delete_subscriber')::boolean, false);
  v_r_delete_bounce boolean := coalesce((p->>'rule_delete_bounce')::boolean, false);
  v_email text;
  v_confirmed boolean;
  v_blacklisted boolean;
  v_was_confirmed boolean;
  v_was_blacklisted boolean;
  v_found boolean := false;
  v_deleted boolean := false;
  v_rule_blacklisted boolean := false;
  v_rule_unconfirmed boolean := false;
  v_rule_confirmed boolean := false;
  v_auto_blacklisted boolean := false;
  v_auto_unconfirmed boolean := false;
  v_n integer := 0;
  v_fill_campaign text;
  v_rule_reason text;
  v_auto_reason text;
  v_kept record;
BEGIN
  IF v_h_delivery IS NOT NULL THEN
    SELECT d.id, d.campaign_id, d.subscriber_id INTO v_delivery, v_campaign, v_sub
    FROM deliveries d JOIN subscribers s ON s.id = d.subscriber_id
    WHERE d.id = v_h_delivery
      AND (v_h_campaign IS NULL OR d.campaign_id = v_h_campaign)
      AND (v_h_uid IS NULL OR s.unique_id = v_h_uid);
    IF FOUND THEN v_by := 'delivery'; END IF;
  END IF;
  IF v_by IS NULL AND v_h_campaign IS NOT NULL AND v_h_uid IS NOT NULL THEN
    SELECT d.id, c.id, s.id INTO v_delivery, v_campaign, v_sub
    FROM subscribers s
    JOIN campaigns c ON c.id = v_h_campaign
    LEFT JOIN deliveries d ON d.campaign_id = c.id AND d.subscriber_id = s.id
    WHERE s.unique_id = v_h_uid;
    IF FOUND THEN v_by := 'campaign_subscriber'; END IF;
  END IF;
  IF v_by IS NULL AND v_h_message_id IS NOT NULL THEN
    SELECT id, campaign_id, subscriber_id INTO v_delivery, v_campaign, v_sub
    FROM deliveries WHERE message_id = v_h_message_id LIMIT 1;
    IF FOUND THEN v_by := 'message_id'; END IF;
  END IF;
  IF v_by IS NULL AND v_recipient IS NOT NULL THEN
    SELECT NULL, NULL, id INTO v_delivery, v_campaign, v_sub FROM subscribers WHERE lower(email) = lower(v_recipient);
    IF FOUND THEN v_by := 'recipient'; END IF;
  END IF;
  v_status := CASE
    WHEN v_sub IS NULL THEN 'unidentified'
    WHEN p->>'kind' = 'complaint' THEN 'complaint'
    WHEN v_campaign IS NULL THEN 'bounced subscriber'
    ELSE 'bounced list message' END;

  INSERT INTO bounce_receipts (message_id, bounce_id)
  VALUES (p->>'key', nextval(pg_get_serial_sequence('bounces', 'id')))
  ON CONFLICT DO NOTHING
  RETURNING bounce_receipts.bounce_id INTO v_id;
  IF v_id IS NULL THEN
    -- Processed before: what was stored then (unless a rule deleted the bounce), nothing done again.
    SELECT r.bounce_id, b.id AS kept, b.status, b.kind, b.campaign_id, b.subscriber_id INTO v_kept
    FROM bounce_receipts r LEFT JOIN bounces b ON b.id = r.bounce_id
    WHERE r.message_id = p->>'key';
    RETURN jsonb_build_object(
      'duplicate', true,
      'bounce_id', v_kept.bounce_id,
      'matched_by', v_by,
      'status', CASE WHEN v_kept.kept IS NULL THEN v_status ELSE v_kept.status END,
      'kind', CASE WHEN v_kept.kept IS NULL THEN p->>'kind' ELSE v_kept.kind END,
      'campaign_id', CASE WHEN v_kept.kept IS NULL THEN v_campaign ELSE v_kept.campaign_id END,
      'subscriber_id', CASE WHEN v_kept.kept IS NULL THEN v_sub ELSE v_kept.subscriber_id END);
  END IF;
  v_fill_campaign := CASE WHEN v_campaign IS NULL THEN 'no campaign' ELSE 'campaign ' || v_campaign END;
  v_rule_reason := replace(replace(p->>'rule_reason', '{id}', v_id::text), '{campaign}', v_fill_campaign);

  -- A rule that deletes the bounce: it is never stored (the receipt is).
  IF NOT v_r_delete_bounce THEN
    INSERT INTO bounces (id, status, kind, comment, header, data, campaign_id, subscriber_id, delivery_id, message_id)
    VALUES (v_id, v_status, p->>'kind', p->>'comment', p->>'header', p->>'data', v_campaign,
            CASE WHEN v_r_delete_subscriber THEN NULL ELSE v_sub END, v_delivery, p->>'key');
  END IF;

  IF v_sub IS NOT NULL THEN
    SELECT email, confirmed, blacklisted INTO v_email, v_was_confirmed, v_was_blacklisted
    FROM subscribers WHERE id = v_sub FOR UPDATE;
    v_found := FOUND;
  END IF;

  IF v_found AND v_r_delete_subscriber THEN
    DELETE FROM subscribers WHERE id = v_sub;
    v_deleted := true;
    v_found := false;
  ELSIF v_found THEN
    v_confirmed := v_was_confirmed;
    v_blacklisted := v_was_blacklisted;
    -- The rule's action.
    IF v_r_blacklist THEN
      INSERT INTO blacklist (email, reason) VALUES (v_email, v_rule_reason) ON CONFLICT DO NOTHING;
      v_rule_blacklisted := FOUND OR NOT v_blacklisted;
      v_blacklisted := true;
    END IF;
    IF v_r_unconfirm AND v_confirmed THEN
      v_rule_unconfirmed := true;
      v_confirmed := false;
    END IF;
    IF v_r_confirm AND NOT v_confirmed THEN
      v_rule_confirmed := true;
      v_confirmed := true;
    END IF;
    -- What happens on its own: a hard bounce or complaint blacklists, otherwise the thresholds.
    IF v_automatic AND NOT v_blacklisted THEN
      IF v_immediate THEN
        v_auto_blacklisted := true;
        v_auto_reason := replace(replace(p->>'about', '{id}', v_id::text), '{campaign}', v_fill_campaign);
      ELSIF v_counted AND (v_bt > 0 OR (v_ut > 0 AND v_confirmed)) THEN
        SELECT count(*) INTO v_n FROM (
          SELECT bool_and(d.id = coalesce(v_delivery, 0) OR EXISTS (
                   SELECT 1 FROM bounces x WHERE x.delivery_id = d.id AND x.kind IN ('hard', 'soft', 'unknown')))
                 OVER (ORDER BY d.id DESC) AS unbroken
          FROM (SELECT id FROM deliveries
                WHERE subscriber_id = v_sub AND (status = 'sent' OR id = coalesce(v_delivery, 0))
                ORDER BY id DESC LIMIT greatest(v_bt, v_ut)) d
        ) walk
        WHERE unbroken;
        v_auto_reason := replace(p->>'threshold_reason', '{n}', v_n::text);
        IF v_bt > 0 AND v_n >= v_bt THEN
          v_auto_blacklisted := true;
        ELSIF v_ut > 0 AND v_n >= v_ut AND v_confirmed THEN
          v_auto_unconfirmed := true;
          v_confirmed := false;
        END IF;
      END IF;
      IF v_auto_blacklisted THEN
        INSERT INTO blacklist (email, reason) VALUES (v_email, v_auto_reason) ON CONFLICT DO NOTHING;
        v_blacklisted := true;
      END IF;
    END IF;

    UPDATE subscribers SET
      bounce_count = bounce_count + CASE WHEN v_counted THEN 1 ELSE 0 END,
      confirmed = v_confirmed,
      blacklisted = v_blacklisted,
      updated_at = CASE WHEN v_confirmed <> v_was_confirmed OR v_blacklisted <> v_was_blacklisted THEN now() ELSE updated_at END
    WHERE id = v_sub;

    INSERT INTO subscriber_history (subscriber_id, summary, detail, system_info)
    SELECT v_sub, h.summary, h.detail, p->>'system_info'
    FROM (VALUES
      (1, p->>'first_summary', (p->>'description') || replace(replace(p->>'suffix', '{id}', v_id::text), '{campaign}', v_fill_campaign), true),
      (2, 'Blacklisted', v_rule_reason, v_rule_blacklisted),
      (3, 'Unconfirmed', v_rule_reason, v_rule_unconfirmed),
      (4, 'Confirmed', v_rule_reason, v_rule_confirmed),
      (5, 'Blacklisted', v_auto_reason, v_auto_blacklisted),
      (6, 'Auto unconfirmed', v_auto_reason, v_auto_unconfirmed)
    ) AS h(ord, summary, detail, wanted)
    WHERE h.wanted
    ORDER BY h.ord;
  END IF;

  -- `blacklistemail…` with no subscriber: the failed address itself.
  IF v_r_blacklist_recipient AND v_recipient IS NOT NULL AND v_sub IS NULL THEN
    INSERT INTO blacklist (email, reason) VALUES (v_recipient, v_rule_reason) ON CONFLICT DO NOTHING;
    v_rule_blacklisted := FOUND;
  END IF;

  -- The counts every bounce of a campaign (or rule) shares: appended, folded in later (see Durability above).
  IF (v_counted AND v_campaign IS NOT NULL) OR v_rule IS NOT NULL THEN
    INSERT INTO bounce_count_increments (campaign_id, rule_id)
    VALUES (CASE WHEN v_counted THEN v_campaign END, v_rule);
  END IF;

  RETURN jsonb_build_object(
    'duplicate', false,
    'bounce_id', v_id,
    'matched_by', v_by,
    'status', v_status,
    'kind', p->>'kind',
    'campaign_id', v_campaign,
    'subscriber_id', v_sub,
    'subscriber_found', v_found,
    'subscriber_deleted', v_deleted,
    'rule_blacklisted', v_rule_blacklisted,
    'rule_unconfirmed', v_rule_unconfirmed,
    'rule_confirmed', v_rule_confirmed,
    'auto_blacklisted', v_auto_blacklisted,
    'auto_unconfirmed', v_auto_unconfirmed,
    'consecutive', v_n);
END
$$;

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
