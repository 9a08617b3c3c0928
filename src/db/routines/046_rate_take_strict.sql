-- A limit of p_limit per p_window seconds that holds over *any* p_window seconds, not just within aligned windows
-- (src/shared/rate-limit.ts, takeStrict): the counts of the current and the previous window are added up, so two
-- grants are never closer than the limit allows (a mail to one address at most once in 10 minutes, say), at the cost
-- of waiting up to two windows. The current window's row is locked, so parallel callers on any process agree.
-- Answers whether one unit was granted and, if not, the seconds until one surely will be.
CREATE OR REPLACE FUNCTION rate_take_strict(p_key text, p_window int, p_limit int)
RETURNS TABLE (r_granted boolean, r_retry_after double precision)
LANGUAGE plpgsql AS $$
DECLARE
  ws timestamptz := to_timestamp(floor(extract(epoch FROM clock_timestamp()) / p_window) * p_window);
  cur int;
  prev int;
BEGIN
  INSERT INTO send_rate_windows (key, window_start, count) VALUES (p_key, ws, 0) ON CONFLICT DO NOTHING;
  SELECT w.count INTO cur FROM send_rate_windows w WHERE w.key = p_key AND w.window_start = ws FOR UPDATE;
  SELECT coalesce(sum(w.count), 0) INTO prev FROM send_rate_windows w
  WHERE w.key = p_key AND w.window_start = ws - make_interval(secs => p_window);
  IF cur + prev >= p_limit THEN
    r_granted := false;
    -- Once the current window is over, only its own count is left to weigh against the limit.
    r_retry_after := extract(epoch FROM ws + make_interval(secs => p_window * CASE WHEN cur >= p_limit THEN 2 ELSE 1 END) - clock_timestamp());
  ELSE
    UPDATE send_rate_windows w SET count = cur + 1 WHERE w.key = p_key AND w.window_start = ws;
    r_granted := true;
    r_retry_after := 0;
  END IF;
  RETURN NEXT;
END
$$;
