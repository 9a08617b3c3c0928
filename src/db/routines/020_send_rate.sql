-- The sender's shared rate limits (src/shared/rate-limit.ts). Takes up to p_wants[i] sends from the current window
-- of each key (windows of p_windows[i] seconds on the database's clock, so every worker on every host agrees) without
-- passing p_limits[i], and answers how many each key granted. Keys are locked in name order, so two workers
-- reserving for overlapping sets of domains never deadlock.
CREATE OR REPLACE FUNCTION send_rate_take(p_keys text[], p_windows int[], p_wants int[], p_limits int[])
RETURNS TABLE (r_key text, r_granted int, r_window_start timestamptz, r_window_end timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  i int;
  ws timestamptz;
  cur int;
  give int;
BEGIN
  FOR i IN SELECT k.ord FROM unnest(p_keys) WITH ORDINALITY AS k(name, ord) ORDER BY k.name LOOP
    ws := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_windows[i]) * p_windows[i]);
    INSERT INTO send_rate_windows (key, window_start, count) VALUES (p_keys[i], ws, 0) ON CONFLICT DO NOTHING;
    SELECT w.count INTO cur FROM send_rate_windows w WHERE w.key = p_keys[i] AND w.window_start = ws FOR UPDATE;
    give := greatest(0, least(p_wants[i], p_limits[i] - cur));
    IF give > 0 THEN
      UPDATE send_rate_windows w SET count = cur + give WHERE w.key = p_keys[i] AND w.window_start = ws;
    END IF;
    r_key := p_keys[i];
    r_granted := give;
    r_window_start := ws;
    r_window_end := ws + make_interval(secs => p_windows[i]);
    RETURN NEXT;
  END LOOP;
END
$$;
